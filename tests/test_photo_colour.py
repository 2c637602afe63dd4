"""Colour read relative to the photo: one photo's tiles teach it what its inks look like."""

from __future__ import annotations

import cv2
import numpy as np

from solver.tiles import NUM_KINDS, parse_tile
from training.photo_colour import DEFAULT_INK, ink_features, recolour

#: BGR inks of an edition the reader never saw: teal blue, bronze black; and a warm light cast.
INKS = {"black": (60, 75, 95), "blue": (160, 140, 0), "orange": (10, 150, 245), "red": (40, 30, 200)}
CAST = np.array([0.8, 0.95, 1.1])


def _photo() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Four tiles of each colour in a row on a grey table, each a cream body with a thick bar of ink."""
    image = np.full((60, 16 * 30 + 10, 3), 90, np.uint8)
    boxes, colours = [], []
    for i, colour in enumerate([c for c in INKS for _ in range(4)]):
        x = 5 + 30 * i
        cv2.rectangle(image, (x, 10), (x + 24, 44), (200, 235, 245), -1)
        cv2.rectangle(image, (x + 8, 17), (x + 16, 37), INKS[colour], -1)
        boxes.append((x, 10, x + 24, 44))
        colours.append(colour)
    return np.clip(image * CAST, 0, 255).astype(np.uint8), np.array(boxes, np.float32), colours


def test_ink_features_separate_the_four_inks_under_a_colour_cast():
    image, boxes, colours = _photo()
    lab = ink_features(image, boxes)
    means = {c: lab[[k for k, name in enumerate(colours) if name == c]].mean(axis=0) for c in INKS}
    chroma = lambda a, b: float(np.linalg.norm(means[a][1:] - means[b][1:]))  # noqa: E731
    assert chroma("blue", "black") > 20 and chroma("red", "orange") > 20 and chroma("black", "red") > 20
    assert means["blue"][2] < means["black"][2] - 20  # the teal, balanced on the cream bodies, reads blue
    assert lab.shape == (16, 3) and ink_features(image, boxes[:0]).shape == (0, 3)


def test_a_tile_read_in_the_wrong_colour_takes_the_colour_its_ink_shares():
    image, boxes, colours = _photo()
    probs = np.full((16, NUM_KINDS), 1e-4)
    for k, colour in enumerate(colours):
        probs[k, parse_tile(f"{colour}-7").index] = 0.9
    probs[4] = 1e-4  # the first blue tile: the reader thinks black, a little blue
    probs[4, parse_tile("black-7").index] = 0.6
    probs[4, parse_tile("blue-7").index] = 0.3
    probs /= probs.sum(axis=1, keepdims=True)
    out = recolour(probs, image, boxes)
    assert np.allclose(out.sum(axis=1), 1.0)
    assert out[4].argmax() == parse_tile("blue-7").index
    assert (out.argmax(axis=1)[5:] == probs.argmax(axis=1)[5:]).all()  # right tiles stay right
    assert out[4, parse_tile("joker").index] == probs[4, parse_tile("joker").index]  # the joker keeps its share


def test_too_few_tiles_keep_the_readers_colours():
    image, boxes, _ = _photo()
    probs = np.full((DEFAULT_INK.min_tiles - 1, NUM_KINDS), 1.0 / NUM_KINDS)
    assert np.array_equal(recolour(probs, image, boxes[: len(probs)]), probs)
