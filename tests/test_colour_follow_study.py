"""The colour-follow study's counting (training/colour_follow_study.py), without the models."""

from __future__ import annotations

import numpy as np

from solver.tiles import parse_tile
from training import colour_follow_study as study
from training.evaluate_profiles import SeenPhoto
from vision.detections import Detections


def _photo(truth: list[str], reads: list[dict[str, float]], side: float = 50.0) -> SeenPhoto:
    n = len(truth)
    probs = np.full((n, 53), 1e-6)
    for row, reading in enumerate(reads):
        for name, p in reading.items():
            probs[row, parse_tile(name).index] = p
    boxes = np.array([[i * 60, 0, i * 60 + side * 0.7, side] for i in range(n)], np.float32)
    labels = [parse_tile(t).index for t in truth]
    return SeenPhoto(Detections(boxes, np.ones(n, np.float32)), [[i] for i in range(n)], probs / probs.sum(axis=1, keepdims=True),
                     np.zeros((n, 4)), labels, np.array(labels), "rack")


def test_a_followed_colour_change_saves_corrections_and_a_tile_turned_wrong_costs_one():
    photo = _photo(["b7", "b3", "k9", "b5"], [{"k7": 0.7, "b7": 0.3}, {"k3": 0.6, "b3": 0.4},
                                               {"k9": 0.55, "b9": 0.45}, {"k5": 0.9, "b5": 0.1}])
    one_by_one = study.corrections_needed(photo, follow=False)
    assert one_by_one == {"wrong": 3, "corrections": 3}
    followed = study.corrections_needed(photo, follow=True)
    # b7 corrected: b3 and k9 (as blue as it) follow, b3 rightly, k9 wrongly; then k9 and b5 by hand.
    assert followed == {"wrong": 3, "corrections": 3, "put_right": 1, "turned_wrong": 1}
    small = _photo(["b7", "b3"], [{"k7": 0.7, "b7": 0.3}, {"k3": 0.6, "b3": 0.4}], side=30.0)
    assert study.corrections_needed(small, follow=True) == {"wrong": 2, "corrections": 2}  # small tiles: none follows
