"""A box held against the other tiles of its photo: its body's colour and its size (vision.tile_likeness)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from vision.ink_colour import body_colours
from vision.pipeline import kept_as_tiles
from vision.tile_likeness import MIN_REFERENCE_TILES, REFERENCE_TILE_PROB, NO_LIKENESS, TileLikeness

IVORY = (222, 230, 232)  # BGR
RULE = TileLikeness(max_body_step=25.0, min_area_share=0.3)


def _crop(body: tuple[int, int, int], ink: tuple[int, int, int] = (45, 42, 40), light: float = 1.0, seed: int = 0) -> np.ndarray:
    """A 64 px crop: a body, a digit in ``ink``, in ``light``, a little noise."""
    crop = np.full((64, 64, 3), body, np.uint8)
    cv2.putText(crop, "8", (22, 44), cv2.FONT_HERSHEY_SIMPLEX, 0.9, ink, 3, cv2.LINE_AA)
    noisy = crop.astype(np.float64) * light + np.random.default_rng(seed).normal(0, 2, crop.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _lab(bgr: tuple[int, int, int]) -> np.ndarray:
    return cv2.cvtColor(np.array([[bgr]], np.float32) / 255.0, cv2.COLOR_BGR2LAB)[0, 0]


def test_a_crops_body_is_the_colour_around_its_digit_not_the_digit():
    crops = np.stack([_crop(IVORY), _crop((60, 110, 150), seed=1), _crop(IVORY, ink=(10, 150, 235), seed=2)])
    bodies = body_colours(crops)
    assert bodies.shape == (3, 3)
    np.testing.assert_allclose(bodies[0], _lab(IVORY), atol=2.0)
    np.testing.assert_allclose(bodies[1], _lab((60, 110, 150)), atol=2.0)  # wood
    np.testing.assert_allclose(bodies[2], bodies[0], atol=2.0)  # another ink, the same body
    assert body_colours(np.zeros((0, 64, 64, 3), np.uint8)).shape == (0, 3)
    with pytest.raises(ValueError, match="square BGR crops"):
        body_colours(np.zeros((2, 64, 32, 3), np.uint8))


def _photo(extra_bodies: list[tuple[int, int, int]], extra_areas: list[float], light: list[float] | None = None):
    """Bodies, areas and P(tile) of a photo: tiles the reader is sure of, then the extra boxes (P(tile) 0.9)."""
    tiles = MIN_REFERENCE_TILES + 2
    crops = [_crop(IVORY, seed=i) for i in range(tiles)]
    crops += [_crop(body, light=(light or [1.0] * len(extra_bodies))[k], seed=50 + k) for k, body in enumerate(extra_bodies)]
    areas = np.array([1000.0 + 40 * i for i in range(tiles)] + extra_areas)
    tile_prob = np.array([REFERENCE_TILE_PROB] * tiles + [0.9] * len(extra_bodies))
    return body_colours(np.stack(crops)), areas, tile_prob, tiles


def test_a_box_whose_body_or_size_is_unlike_the_photos_tiles_is_unlike_them():
    grey_key, wood = (95, 90, 88), (60, 110, 150)
    bodies, areas, tile_prob, tiles = _photo([grey_key, wood, IVORY, IVORY], [1100.0, 1100.0, 200.0, 1100.0])
    unlike = RULE.unlike(bodies, areas, tile_prob)
    # wood stands out by its hue, and a sliver of a fifth of a tile's area is no tile; a grey key differs
    # from ivory mostly in lightness, which a shadow changes too, so the rule leaves it to the reader
    assert unlike.tolist() == [False] * tiles + [False, True, True, False]
    assert NO_LIKENESS.unlike(bodies, areas, tile_prob).tolist() == [False] * len(areas)
    assert NO_LIKENESS.is_off and not RULE.is_off


def test_a_joker_with_a_large_coloured_face_keeps_its_ivory_body():
    """An orange two-faced joker fills much of the crop's middle with its face; the body is the brighter
    part around it, so the joker is like the photo's other tiles (a joker left out costs 30 points)."""
    joker = _crop(IVORY, seed=7)
    cv2.circle(joker, (32, 32), 12, (20, 120, 240), -1)  # a face a third of the middle across
    bodies, areas, tile_prob, tiles = _photo([IVORY], [1100.0])
    bodies[-1] = body_colours(joker[None])[0]
    np.testing.assert_allclose(bodies[-1], bodies[0], atol=3.0)
    assert not RULE.unlike(bodies, areas, tile_prob).any()


def test_a_tile_in_a_shadow_is_darker_and_no_less_a_tile():
    bodies, areas, tile_prob, tiles = _photo([IVORY], [1100.0], light=[0.45])
    assert bodies[-1, 0] < bodies[0, 0] - 30  # far darker
    assert not RULE.unlike(bodies, areas, tile_prob).any()


def test_the_photos_own_light_moves_every_tile_alike():
    """Under warm light every tile's body is orange-ish: a wood patch is still told from them, a tile is not."""
    warm = (150, 200, 240)
    crops = [_crop(warm, seed=i) for i in range(MIN_REFERENCE_TILES + 1)] + [_crop(warm, seed=90), _crop((40, 60, 200), seed=91)]
    bodies = body_colours(np.stack(crops))
    tile_prob = np.array([1.0] * (MIN_REFERENCE_TILES + 1) + [0.9, 0.9])
    areas = np.full(len(crops), 1000.0)
    assert RULE.unlike(bodies, areas, tile_prob).tolist() == [False] * (MIN_REFERENCE_TILES + 2) + [True]


def test_too_few_sure_tiles_say_nothing_of_what_the_photos_tiles_look_like():
    bodies, areas, tile_prob, tiles = _photo([(60, 110, 150)], [100.0])
    tile_prob[2:tiles] = REFERENCE_TILE_PROB - 0.01  # two sure tiles left
    assert MIN_REFERENCE_TILES > 2
    assert not RULE.unlike(bodies, areas, tile_prob).any()


def test_a_rule_needs_sensible_limits_and_matching_inputs():
    for step, share in ((0.0, 0.3), (-1.0, 0.0), (math.nan, 0.0), (25.0, 1.0), (25.0, -0.1)):
        with pytest.raises(ValueError, match="body step"):
            TileLikeness(step, share)
    with pytest.raises(ValueError, match="bodies"):
        RULE.unlike(np.zeros((3, 3)), np.ones(2), np.ones(3))
    assert RULE.unlike(np.zeros((0, 3)), np.zeros(0), np.zeros(0)).tolist() == []


def test_the_gate_drops_a_box_unlike_the_photos_tiles_only_where_their_bodies_are_known():
    bodies, areas, tile_prob, tiles = _photo([(60, 110, 150), IVORY], [1000.0, 1000.0])
    side = np.sqrt(1000.0)
    boxes = np.array([[i * 50.0, 0.0, i * 50.0 + side / 1.2, side * 1.2] for i in range(len(areas))], np.float32)
    found = Detections(boxes, np.full(len(areas), 0.95, np.float32))
    assert kept_as_tiles(found, tile_prob).all()  # the reader and the detector alone keep the wood
    assert kept_as_tiles(found, tile_prob, bodies=bodies, likeness=RULE).tolist() == [True] * tiles + [False, True]
    assert kept_as_tiles(found, tile_prob, bodies=bodies, likeness=NO_LIKENESS).all()
