"""The calibration experiment's own logic (training/evaluate_profiles.py), without the models."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth.editions import edition
from solver.tiles import parse_tile
from tests.fonts import needs_fonts
from training import evaluate_profiles as ep
from vision.calibration import CalibrationError
from vision.detections import Detections


def test_a_reading_on_a_tile_whose_number_is_hidden_counts_neither_way():
    from dataclasses import replace

    r5, r6 = (parse_tile(t).index for t in ("r5", "r6"))
    photo = _photo([r5, r6], [r5, r6])
    # A third detection, on a tile whose number is hidden (unmatched), read as b7.
    b7 = parse_tile("b7").index
    extra = _photo([r5, r6, b7], [r5, r6, b7])
    ignored = replace(extra, truth=[r5, r6], matched=np.array([r5, r6, -1]), counted=np.array([True, True, False]))
    assert ep.score([ignored], lambda p, e: p)["f1"] == 1.0
    phantom = replace(ignored, counted=None)  # counted, it is a phantom
    assert ep.score([phantom], lambda p, e: p)["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert ep.score([photo], lambda p, e: p)["f1"] == 1.0


@needs_fonts(edition("us-teal"))
def test_a_test_photo_shows_the_edition_and_the_tile_asked_for():
    kind, tile = edition("us-teal"), parse_tile("o9")
    scene = ep.test_scene(kind, np.random.default_rng(3), holding=tile)
    assert scene.edition == "us-teal" and tile in {t.tile for t in scene.tiles}
    assert ep.reading_kind(scene) == ("rack" if scene.kind in ("rack", "closeup") else "table")


def test_a_refused_calibration_photo_is_taken_again_and_reported(monkeypatch):
    answers = iter([CalibrationError("row {row} has a problem", row=5), ("sample",)])

    def collect(image, layout):
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(ep, "calibration_scene", lambda kind, rng: type("S", (), {"image": None})())
    monkeypatch.setattr(ep, "collect_samples", collect)
    samples, seconds, refused = ep.calibrate(edition("us-teal"), np.random.default_rng(0))
    assert samples == ("sample",) and refused == ["row 5 has a problem"] and seconds >= 0


def test_every_calibration_photo_refused_is_an_error(monkeypatch):
    def refuse(image, layout):
        raise CalibrationError("no tiles found in the photo")

    monkeypatch.setattr(ep, "calibration_scene", lambda kind, rng: type("S", (), {"image": None})())
    monkeypatch.setattr(ep, "collect_samples", refuse)
    with pytest.raises(RuntimeError, match="every calibration photo was refused"):
        ep.calibrate(edition("original-circle"), np.random.default_rng(0), attempts=2)


def _photo(truth: list[int], read: list[int]) -> ep.SeenPhoto:
    n = len(truth)
    probs = np.full((n, 53), 1e-4)
    probs[np.arange(n), read] = 1.0
    boxes = np.array([[i * 50, 0, i * 50 + 40, 56] for i in range(n)], np.float32)
    return ep.SeenPhoto(
        Detections(boxes, np.ones(n, np.float32)), [[i] for i in range(n)], probs / probs.sum(axis=1, keepdims=True),
        np.zeros((n, 4)), np.zeros((1, n, 2, 2, 3), np.uint8), truth, np.array(truth), "rack",
    )


def test_the_class_read_wrong_most_often_and_its_misreads_are_counted():
    r5, r6, b7 = (parse_tile(t).index for t in ("r5", "r6", "b7"))
    photos = [_photo([r5, r6, b7], [r6, r6, b7]), _photo([r5, b7], [r6, r5])]
    assert ep.worst_class(photos, None) == (r5, 2)
    assert ep.misreads_of(r5, photos, None) == 2 and ep.misreads_of(b7, photos, None) == 1
    assert ep.worst_class([_photo([r5], [r5])], None) == (None, 0)
    scored = ep.score(photos, lambda probs, embeddings: probs)
    assert scored["detected"] == 1.0 and scored["decoded_accuracy"] == pytest.approx(2 / 5)


@needs_fonts(edition("us-teal"))
def test_test_photos_can_be_drawn_as_another_held_out_set_draws_them():
    """--test-set: the photos follow that set's recipe (here its sizes, made small to be quick)."""
    from dataclasses import replace

    assert set(ep.HELD_OUT_SETS) == {"held-out-editions", "held-out-phone"}
    phone = replace(ep.HELD_OUT_SETS["held-out-phone"], photo_sizes=((800, 600),), closeup_sizes=((800, 450),))
    rng = np.random.default_rng(5)
    shapes = {ep.test_scene(edition("us-teal"), rng, recipe=phone).image.shape[:2] for _ in range(4)}
    assert shapes <= {(600, 800), (450, 800)} and shapes
