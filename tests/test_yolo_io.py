"""Letterbox, box decoding and NMS around the exported detector (pure numpy + OpenCV)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.yolo_io import PAD_VALUE, Letterbox, decode, letterbox


def test_letterbox_fits_the_longer_side_and_pads_to_the_stride():
    image = np.zeros((300, 400, 3), np.uint8)
    blob, geometry = letterbox(image, 640, 32)
    assert blob.shape == (1, 3, 480, 640) and blob.dtype == np.float32
    assert geometry.scale_x == pytest.approx(1.6) and geometry.scale_y == pytest.approx(1.6)
    assert (geometry.pad_x, geometry.pad_y) == (0, 0)
    tall = np.zeros((1000, 300, 3), np.uint8)
    blob, geometry = letterbox(tall, 640, 32)
    # 300 * 0.64 = 192 wide: already a multiple of 32, no padding; 1000 -> 640 tall
    assert blob.shape == (1, 3, 640, 192) and geometry.pad_x == 0
    odd = np.zeros((100, 250, 3), np.uint8)
    blob, geometry = letterbox(odd, 640, 32)
    assert blob.shape[2] % 32 == 0 and blob.shape[3] == 640
    assert geometry.pad_y == (blob.shape[2] - 256) // 2  # 100 * 2.56 = 256 rows of photo


def test_letterbox_is_rgb_in_unit_range_with_grey_padding():
    image = np.zeros((10, 40, 3), np.uint8)
    image[..., 2] = 255  # BGR red
    blob, geometry = letterbox(image, 64, 32)
    top = geometry.pad_y
    assert blob[0, 0, top + 2, 10] == pytest.approx(1.0) and blob[0, 2, top + 2, 10] == pytest.approx(0.0)
    assert blob[0, 1, 0, 0] == pytest.approx(PAD_VALUE / 255)


def test_boxes_come_back_in_the_photo_pixels():
    geometry = Letterbox(scale_x=0.5, scale_y=0.5, pad_x=10, pad_y=20, width=1000, height=600)
    boxes = geometry.to_photo(np.array([[10, 20, 60, 70], [500, 300, 600, 400]], np.float32))
    assert boxes[0] == pytest.approx([0, 0, 100, 100])
    assert boxes[1] == pytest.approx([980, 560, 1000, 600])  # clipped to the photo


def _raw(boxes_cxcywh: list[tuple[float, float, float, float]], scores: list[float]) -> np.ndarray:
    """A one-class detector output (1, 5, anchors) holding these boxes."""
    columns = [list(b) + [s] for b, s in zip(boxes_cxcywh, scores)]
    return np.asarray(columns, np.float32).T[None]


IDENTITY = Letterbox(1.0, 1.0, 0, 0, 1000, 1000)


def test_decode_keeps_the_surer_of_two_overlapping_boxes_and_drops_weak_ones():
    raw = _raw([(100, 100, 40, 60), (102, 101, 40, 60), (300, 300, 40, 60), (500, 500, 40, 60)], [0.6, 0.9, 0.8, 0.2])
    found = decode(raw, IDENTITY, conf=0.35, iou=0.6, max_det=10)
    assert len(found) == 2
    assert found.confidences.tolist() == pytest.approx([0.9, 0.8])
    assert found.boxes[0] == pytest.approx([82, 71, 122, 131])


def test_decode_keeps_neighbours_that_only_touch():
    raw = _raw([(100, 100, 40, 60), (141, 100, 40, 60)], [0.9, 0.8])
    assert len(decode(raw, IDENTITY, conf=0.35, iou=0.6, max_det=10)) == 2


def test_decode_caps_the_number_of_boxes_and_handles_none():
    raw = _raw([(50 + 60 * i, 100, 40, 60) for i in range(8)], [0.5 + 0.05 * i for i in range(8)])
    found = decode(raw, IDENTITY, conf=0.35, iou=0.6, max_det=3)
    assert found.confidences.tolist() == pytest.approx([0.85, 0.8, 0.75])
    assert len(decode(raw, IDENTITY, conf=0.99, iou=0.6, max_det=3)) == 0


def test_decode_keeps_a_lone_box_behind_more_duplicates_than_max_det():
    # One tile seen by 6 anchors (duplicates NMS removes) and a lone weaker tile: more candidates than
    # max_det must not push the lone tile out before NMS (OpenCV's top_k cuts the *input*, not the output).
    duplicates = [(100 + i * 0.5, 100, 40, 60) for i in range(6)]
    raw = _raw(duplicates + [(400, 400, 40, 60)], [0.9 - 0.01 * i for i in range(6)] + [0.4])
    found = decode(raw, IDENTITY, conf=0.35, iou=0.6, max_det=3)
    assert found.confidences.tolist() == pytest.approx([0.9, 0.4])


def test_decode_refuses_what_is_not_one_detector_output():
    with pytest.raises(ValueError, match="one image"):
        decode(np.zeros((2, 5, 10), np.float32), IDENTITY, 0.3, 0.6, 10)
    with pytest.raises(ValueError, match="classes, anchors"):
        decode(np.zeros((3, 10), np.float32), IDENTITY, 0.3, 0.6, 10)
    with pytest.raises(ValueError, match="BGR uint8"):
        letterbox(np.zeros((10, 10), np.uint8), 64)


def test_decode_drops_a_box_lying_in_the_letterbox_padding():
    """A box in the grey padding left of the photo clips to a line on its edge (a seeded synthetic
    photo gave one: 0, 0, 0, 132): no crop can be cut from it, so it is no detection."""
    geometry = Letterbox(scale_x=0.5, scale_y=0.5, pad_x=40, pad_y=0, width=1000, height=1200)
    raw = _raw([(20, 100, 30, 60), (200, 300, 40, 60)], [0.8, 0.9])  # the first lies in the padding
    found = decode(raw, geometry, conf=0.35, iou=0.6, max_det=10)
    assert len(found) == 1
    assert found.boxes[0] == pytest.approx([280, 540, 360, 660])
    assert found.confidences.tolist() == pytest.approx([0.9])
