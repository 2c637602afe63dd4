"""The detection-only box figures: boxes spanning two tiles, size bias, IoU per scale band."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from training import box_study
from training.evaluate_suite import TestPhoto as Photo
from vision.detections import Detections, box_coverage

TILES = np.array([[0, 0, 10, 20], [10, 0, 20, 20]], np.float32)  # two touching tiles


def test_coverage_is_the_share_of_each_second_box_inside_each_first():
    cover = box_coverage(np.array([[5, 0, 15, 20]], np.float32), TILES)
    assert cover.shape == (1, 2) and np.allclose(cover, [[0.5, 0.5]])
    assert np.allclose(box_coverage(TILES, np.array([[0, 0, 0, 5]], np.float32)), 0.0)  # an empty box: 0, no NaN


def test_a_box_across_two_touching_tiles_spans_two_and_a_tight_one_does_not():
    found = np.array([[5, 0, 15, 20], [0, 0, 10, 20], [0, 0, 12, 20]], np.float32)
    assert box_study.spans_two_tiles(found, TILES).tolist() == [True, False, False]  # 2/10 of the second: < 1/4
    assert box_study.spans_two_tiles(np.zeros((0, 4), np.float32), TILES).shape == (0,)
    assert box_study.spans_two_tiles(found, np.zeros((0, 4), np.float32)).tolist() == [False] * 3


def test_size_errors_are_relative_and_signed():
    errors = box_study.size_errors(np.array([[0, 0, 11, 18]]), np.array([[0, 0, 10, 20]]))
    assert np.allclose(errors, [[0.1, -0.1]])


def test_study_reports_bias_spans_and_bands(tmp_path, monkeypatch):
    image = tmp_path / "photo.png"
    cv2.imwrite(str(image), np.zeros((100, 200, 3), np.uint8))
    photo = Photo("p", image, TILES, (0, 1), "rack", np.zeros((0, 4), np.float32))
    boxes = np.array([[0, 0, 11, 22], [10, 0, 21, 22], [40, 40, 60, 60]], np.float32)  # 10 % too big, and a stray box
    seen = {}

    def fake_detect(img, *, weights=None, imgsz=640, tiling="auto"):
        seen.update(imgsz=imgsz, tiling=tiling, shape=img.shape)
        return Detections(boxes, np.array([0.9, 0.8, 0.7], np.float32))

    monkeypatch.setattr("vision.detector.detect_tiles", fake_detect)
    result = box_study.study_photos([photo], None, 320, "never")
    assert seen == {"imgsz": 320, "tiling": "never", "shape": (100, 200, 3)}
    assert (result["found"], result["tiles"], result["spanning_two_tiles"]) == (3, 2, 0)
    assert result["precision"] == pytest.approx(2 / 3) and result["recall"] == 1.0
    assert result["width_error"] == pytest.approx(0.1) and result["height_error"] == pytest.approx(0.1)
    band = result["box_iou"]["1/20-1/8"]  # 20 px of a 200 px photo: 1/10
    assert band["n"] == 2 and band["median"] == pytest.approx(1 / 1.21, abs=1e-3)
    assert "spanning two tiles 0" in box_study.line("set", result)


def test_a_box_on_a_tile_whose_number_is_hidden_counts_neither_way(tmp_path, monkeypatch):
    image = tmp_path / "photo.png"
    cv2.imwrite(str(image), np.zeros((100, 200, 3), np.uint8))
    hidden = np.array([[40, 40, 60, 60]], np.float32)
    photo = Photo("p", image, TILES, (0, 1), "rack", np.zeros((0, 4), np.float32), hidden)
    boxes = np.array([[0, 0, 10, 20], [40, 40, 60, 60], [100, 40, 120, 60]], np.float32)  # a tile, the hidden one, nothing
    monkeypatch.setattr("vision.detector.detect_tiles", lambda img, **kw: Detections(boxes, np.ones(3, np.float32)))
    result = box_study.study_photos([photo], None, 640, "never")
    assert (result["found"], result["tiles"]) == (2, 2)
    assert result["precision"] == pytest.approx(1 / 2) and result["recall"] == pytest.approx(1 / 2)


def test_a_missing_test_set_is_a_clear_error(tmp_path, capsys):
    assert box_study.main(["--testsets", str(tmp_path), "--sets", "closeup-racks"]) == 2
    assert "closeup-racks" in capsys.readouterr().err


def test_photos_are_kept_by_the_first_look_at_their_tile_size(tmp_path, monkeypatch):
    photos = []
    for name, length in (("small", 30.0), ("big", 95.0), ("none", None)):
        image = tmp_path / f"{name}.png"
        cv2.imwrite(str(image), np.full((10 + len(photos), 20, 3), 50, np.uint8))
        photos.append(Photo(name, image, TILES, (0, 1), "rack", np.zeros((0, 4), np.float32)))
    lengths = {10: 30.0, 11: 95.0, 12: None}  # told apart by the image's height
    monkeypatch.setattr("vision.detector.first_look", lambda image, weights=None: lengths[image.shape[0]])
    assert [p.name for p in box_study.photos_with_tiles(photos, None, 80, 1e9)] == ["big"]
    assert [p.name for p in box_study.photos_with_tiles(photos, None, 0, 80)] == ["small"]
