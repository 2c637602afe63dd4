"""Real tiles printed again in another edition (datasets.synth.restyle)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.synth.editions import edition
from datasets.synth.recolour import REAL_BODY, measure_tile
from datasets.synth.restyle import print_angle, restyle_photo, restyle_tile
from datasets.synth.tiles import render_tile
from solver.tiles import JOKER, Colour, Tile
from tests.fonts import needs_edition_fonts

pytestmark = needs_edition_fonts

WOOD = (40, 80, 130)
TEAL = (160, 140, 0)
TILE = Tile(Colour.BLUE, 5)


def _scene(angle: float = 0.0, tile: Tile = TILE) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """Wood with one rendered tile of the real photos' edition on it, turned counter-clockwise by
    ``angle`` degrees; the tile's box, a few pixels loose."""
    rendered = render_tile(tile, np.random.default_rng(3), 90, edition("classic"))
    canvas = np.zeros((200, 200, 4), np.uint8)
    h, w = rendered.shape[:2]
    canvas[100 - h // 2:100 - h // 2 + h, 100 - w // 2:100 - w // 2 + w] = rendered
    turn = cv2.getRotationMatrix2D((99.5, 99.5), angle, 1.0)
    canvas = cv2.warpAffine(canvas, turn, (200, 200), flags=cv2.INTER_LINEAR)
    alpha = canvas[..., 3:4].astype(np.float32) / 255.0
    image = (canvas[..., :3] * alpha + np.array(WOOD, np.float32) * (1 - alpha)).astype(np.uint8)
    ys, xs = np.nonzero(canvas[..., 3] > 128)
    return image, (xs.min() - 3.0, ys.min() - 3.0, xs.max() + 4.0, ys.max() + 4.0)


def _ink(image: np.ndarray, box) -> np.ndarray:
    measured = measure_tile(image, box)
    assert measured is not None
    return measured.alpha > 0.5


@pytest.mark.parametrize("angle", [0.0, 90.0, 180.0, 270.0, 25.0, 200.0])
def test_the_tiles_turn_is_found_from_its_sides_and_where_its_print_leans(angle) -> None:
    image, box = _scene(angle)
    measured = measure_tile(image, box)
    assert measured is not None
    found = print_angle(measured)
    assert abs((found - angle + 180.0) % 360.0 - 180.0) < 8.0


@pytest.mark.parametrize("angle", [0.0, 25.0, 180.0])
def test_the_number_is_printed_again_in_the_editions_ink_where_the_old_print_was(angle) -> None:
    image, box = _scene(angle)
    before = image.copy()
    old_ink = _ink(image, box)
    restyle_tile(image, box, TILE, edition("us-teal"), TEAL, tuple(REAL_BODY), np.random.default_rng(0))
    new_ink = _ink(image, box)
    assert new_ink.sum() > 0.3 * old_ink.sum()  # a number is printed...
    overlap = (old_ink & new_ink).sum() / (old_ink | new_ink).sum()
    assert overlap < 0.8  # ... in another font, not the old print recoloured
    ys, xs = np.nonzero(old_ink)
    new_ys, new_xs = np.nonzero(new_ink)
    assert abs(ys.mean() - new_ys.mean()) < 12 and abs(xs.mean() - new_xs.mean()) < 12  # where the old one was
    printed = measure_tile(image, box).old_ink  # the solid ink's median
    assert np.abs(printed - np.array(TEAL)).max() < 40  # the new ink, under the photo's light
    np.testing.assert_array_equal(image[:, : int(box[0])], before[:, : int(box[0])])  # outside the box


def test_jokers_and_boxes_too_small_are_left_alone() -> None:
    image, box = _scene(0.0, JOKER)
    before = image.copy()
    restyle_tile(image, box, JOKER, edition("us-teal"), TEAL, tuple(REAL_BODY), np.random.default_rng(0))
    restyle_tile(image, (90, 90, 94, 94), TILE, edition("us-teal"), TEAL, tuple(REAL_BODY), np.random.default_rng(0))
    np.testing.assert_array_equal(image, before)


def test_a_photo_is_restyled_the_same_for_the_same_seed_and_on_a_copy() -> None:
    image, box = _scene(25.0)
    before = image.copy()
    look = edition("original-circle")
    first = restyle_photo(image, [(TILE, box)], look, np.random.default_rng(5))
    second = restyle_photo(image, [(TILE, box)], look, np.random.default_rng(5))
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(image, before)
    assert np.abs(first.astype(int) - image.astype(int)).max() > 60
