"""The blur of a photo's tiles (``vision.sharpness``): what a sharp tile measures, at any size; a
blur or a shake in any direction measured as the same share of the tile at any size; the photo's
figure is its typical tile's; and the crops it cannot measure."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.reading import BLURRED_PHOTO
from vision.sharpness import SHARP_EDGE_PX, WORK_PX, blurred_tiles, edge_width, photo_blur, tile_blur, tile_blurs, typical_blur

MARGIN = 20


def tile_photo(length: int, digit: str = "7") -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A BGR photo of one upright tile ``length`` pixels tall (a dark digit drawn anti-aliased on a
    light face) on a darker table, and the tile's box."""
    width = int(length * 0.75)
    photo = np.full((length + 2 * MARGIN, width + 2 * MARGIN, 3), (70, 110, 150), np.uint8)
    face = photo[MARGIN : MARGIN + length, MARGIN : MARGIN + width]
    face[:] = (225, 235, 240)
    cv2.putText(face, digit, (int(width * 0.2), int(length * 0.7)), cv2.FONT_HERSHEY_SIMPLEX, length / 40,
                (40, 30, 30), max(1, length // 15), cv2.LINE_AA)
    return photo, (MARGIN, MARGIN, MARGIN + width, MARGIN + length)


def gaussian(photo: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(photo, (0, 0), sigma)


def shaken(photo: np.ndarray, length: int, degrees: float) -> np.ndarray:
    """``photo`` smeared along a straight line ``length`` pixels long at ``degrees``, as a hand's shake smears it."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), degrees, 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(photo, -1, kernel / kernel.sum())


@pytest.mark.parametrize("length", [WORK_PX, 100, 250, 1000])
def test_a_sharp_tile_measures_the_sharp_edge_width_at_any_size_and_no_blur(length):
    photo, box = tile_photo(length)
    x1, y1, x2, y2 = box
    crop = cv2.cvtColor(photo[y1:y2, x1:x2], cv2.COLOR_BGR2GRAY)
    scale = WORK_PX / length
    crop = cv2.resize(crop, (round(crop.shape[1] * scale), round(crop.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    assert edge_width(crop) == pytest.approx(SHARP_EDGE_PX, abs=0.15)
    assert tile_blur(photo, box) < 0.02


@pytest.mark.parametrize("share", [0.02, 0.04, 0.06])
def test_a_blur_is_the_same_share_of_the_tile_at_any_size_and_grows_with_the_blur(share):
    blurs = []
    for length in (100, 300, 900):
        photo, box = tile_photo(length)
        blurs.append(tile_blur(gaussian(photo, share * length), box))
    assert max(blurs) - min(blurs) < 0.01, blurs
    if share >= 0.04:
        assert min(blurs) >= BLURRED_PHOTO, blurs  # σ of 4 % of the tile is a photo to take again
    else:
        assert max(blurs) < BLURRED_PHOTO, blurs  # 2 %: soft, but readable
    photo, box = tile_photo(300)
    assert tile_blur(gaussian(photo, share * 300), box) < tile_blur(gaussian(photo, 2 * share * 300), box)


@pytest.mark.parametrize("degrees", [0, 30, 90, 150])
def test_a_shake_in_any_direction_is_measured_across_it(degrees):
    """A shake smears the edges across its own direction and leaves those along it sharp: the tile
    is measured where its edges are widest, so a shake counts whatever way the hand moved."""
    photo, box = tile_photo(300)
    blurred = tile_blur(shaken(photo, 45, degrees), box)  # a smear 15 % of the tile long
    assert blurred >= BLURRED_PHOTO
    assert blurred > 3 * tile_blur(photo, box)


def test_a_grey_photo_measures_as_its_colour_one():
    photo, box = tile_photo(200)
    photo = gaussian(photo, 6)
    assert tile_blur(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), box) == pytest.approx(tile_blur(photo, box), abs=1e-6)


def test_the_photo_blur_is_its_typical_tiles_so_a_few_smeared_tiles_do_not_make_it_blurred():
    photo, box = tile_photo(200)
    x1, y1, x2, y2 = box
    row = np.concatenate([photo] * 5, axis=1)  # five tiles side by side
    boxes = [(x1 + i * photo.shape[1], y1, x2 + i * photo.shape[1], y2) for i in range(5)]
    sharp = photo_blur(row, boxes)
    smeared = row.copy()
    for bx1, _, bx2, _ in boxes[:2]:  # two of the five tiles smeared
        smeared[:, bx1 - MARGIN : bx2 + MARGIN] = gaussian(row[:, bx1 - MARGIN : bx2 + MARGIN], 10)
    assert photo_blur(smeared, boxes) == pytest.approx(sharp, abs=0.01)
    assert photo_blur(gaussian(row, 10), boxes) >= BLURRED_PHOTO  # all five: a blurred photo


def test_boxes_too_small_or_off_the_photo_are_not_measured():
    photo, box = tile_photo(200)
    assert tile_blur(photo, (10, 10, 15, 60)) is None  # 5 pixels wide
    assert tile_blur(photo, (-50, -50, -5, -5)) is None  # wholly off the photo
    assert tile_blur(photo, (box[0] - 500, box[1], box[2], box[3])) == pytest.approx(
        tile_blur(photo[:, : box[2] + MARGIN], (0, box[1], box[2], box[3])), abs=1e-6
    )  # a box over the frame is measured on what of it is in the photo
    assert photo_blur(photo, []) == 0.0
    assert photo_blur(photo, [(10, 10, 15, 60)]) == 0.0
    assert photo_blur(photo, [(10, 10, 15, 60), box]) == tile_blur(photo, box)


def test_a_flat_crop_is_sharp_and_a_crop_that_is_not_one_is_refused():
    assert edge_width(np.full((30, 20), 200, np.uint8)) == SHARP_EDGE_PX
    assert tile_blur(np.full((100, 100, 3), 200, np.uint8), (10, 10, 60, 90)) == 0.0
    for bad in (np.zeros(30), np.zeros((2, 40)), np.zeros((20, 20, 3))):
        with pytest.raises(ValueError, match="grey crop"):
            edge_width(bad)


def test_each_tiles_blur_is_measured_and_a_smeared_one_is_flagged_past_the_limit_but_never_one_not_measured():
    photo, box = tile_photo(200)
    x1, y1, x2, y2 = box
    row = np.concatenate([photo] * 3, axis=1)
    boxes = [(x1 + i * photo.shape[1], y1, x2 + i * photo.shape[1], y2) for i in range(3)] + [(10, 10, 15, 60)]
    smeared = row.copy()
    bx1, _, bx2, _ = boxes[1]
    smeared[:, bx1 - MARGIN : bx2 + MARGIN] = shaken(row[:, bx1 - MARGIN : bx2 + MARGIN], 40, 30)  # the middle tile only
    blurs = tile_blurs(smeared, boxes)
    assert blurs.shape == (4,) and np.isnan(blurs[3])  # too small to measure
    assert blurs[0] == pytest.approx(tile_blur(smeared, boxes[0])) and blurs[1] > 3 * blurs[0] + 0.05
    assert typical_blur(blurs) == pytest.approx(float(np.median(blurs[:3]))) == photo_blur(smeared, boxes)
    assert typical_blur(np.array([np.nan])) == typical_blur(np.zeros(0)) == 0.0
    limit = (blurs[0] + blurs[1]) / 2
    assert blurred_tiles(blurs, limit).tolist() == [False, True, False, False]
    assert not blurred_tiles(blurs, float("inf")).any()
    assert blurred_tiles(blurs, 0.0).tolist() == [True, True, True, False]
