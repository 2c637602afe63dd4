"""The detector's training views of a photo: whole, or in the windows the tiled pass reads."""

import json

import cv2
import numpy as np
import pytest
import yaml

from training.detector_views import MAX_SIDE, MIN_INSIDE, detector_views, main, write_views
from vision.detector import tiling_windows


def _grid_boxes(width: int, height: int, tile_w: float, tile_h: float, step: float) -> np.ndarray:
    return np.array([
        (x, y, x + tile_w, y + tile_h)
        for y in np.arange(10, height - tile_h, step) for x in np.arange(10, width - tile_w, step)
    ], np.float64)


def test_small_tiles_of_a_12mp_photo_are_seen_in_the_tiled_passs_windows():
    image = np.zeros((3000, 4000, 3), np.uint8)
    boxes = _grid_boxes(4000, 3000, 70, 100, 230)  # 70 px wide: 98 px tall x 0.16 = 15.7 px at 640, small
    views = detector_views(image, boxes)
    expected = tiling_windows(4000, 3000, 98.0, 640)
    assert len(expected) > 1 and len(views) == len(expected)
    for (view, labelled), (x1, y1, x2, y2) in zip(views, expected):
        assert view.shape[:2] == (y2 - y1, x2 - x1)
        assert np.all(labelled >= 0) and np.all(labelled[:, [0, 2]] <= x2 - x1) and np.all(labelled[:, [1, 3]] <= y2 - y1)
        whole = boxes[(boxes[:, 0] >= x1) & (boxes[:, 1] >= y1) & (boxes[:, 2] <= x2) & (boxes[:, 3] <= y2)]
        shifted = {tuple(np.round(b - [x1, y1, x1, y1], 3)) for b in whole}
        assert shifted <= {tuple(np.round(b, 3)) for b in labelled}  # every tile wholly inside is labelled as it is
    # every tile is labelled whole in some window (they overlap by a tile and a half)
    assert all(any(len(l) and np.any(np.all(np.isclose(l + [w[0], w[1], w[0], w[1]], b), axis=1)) for (_, l), w in zip(views, expected))
               for b in boxes)


def test_a_tile_cut_by_a_window_is_labelled_only_when_most_of_it_is_inside():
    image = np.zeros((3000, 4000, 3), np.uint8)
    boxes = _grid_boxes(4000, 3000, 70, 100, 230)
    x1, y1, x2, y2 = tiling_windows(4000, 3000, 98.0, 640)[0]
    half_in = np.array([[x2 - 35, 500, x2 + 35, 600]], np.float64)  # half inside the first window
    mostly_out = np.array([[x2 - 20, 800, x2 + 50, 900]], np.float64)
    views = detector_views(image, np.concatenate([boxes, half_in, mostly_out]))
    labelled = views[0][1]
    assert MIN_INSIDE <= 0.5
    assert np.any(np.all(np.isclose(labelled, [x2 - 35 - x1, 500 - y1, x2 - x1, 600 - y1]), axis=1))  # clipped to the window
    assert not np.any(np.isclose(labelled[:, 0], x2 - 20 - x1) & np.isclose(labelled[:, 1], 800 - y1))


def test_large_tiles_or_a_small_photo_are_seen_whole():
    big_tiles = np.zeros((3000, 4000, 3), np.uint8)
    boxes = _grid_boxes(4000, 3000, 300, 420, 500)  # 420 x 0.16 = 67 px at 640: the first pass sees them
    [(view, labelled)] = detector_views(big_tiles, boxes)
    assert view is big_tiles and np.array_equal(labelled, boxes)
    small_photo = np.zeros((480, 640, 3), np.uint8)
    tiny = _grid_boxes(640, 480, 10, 14, 30)  # small tiles, but the photo is no larger than the input
    [(view, labelled)] = detector_views(small_photo, tiny)
    assert view is small_photo and len(labelled) == len(tiny)
    [(view, labelled)] = detector_views(big_tiles, np.zeros((0, 4)))  # no tiles: nothing to judge the scale by
    assert view is big_tiles and labelled.shape == (0, 4)


def test_reading_and_the_views_judge_small_tiles_by_one_rule(monkeypatch):
    """The views follow vision.detector's own judgement of small tiles, not a copy of it."""
    from vision.detector import SMALL_TILE_PX, tiles_come_out_small

    assert tiles_come_out_small(0.0, 0.16)  # no tile known: look again, window by window
    assert tiles_come_out_small(SMALL_TILE_PX / 0.16 - 1, 0.16) and not tiles_come_out_small(SMALL_TILE_PX / 0.16, 0.16)
    image = np.zeros((3000, 4000, 3), np.uint8)
    boxes = _grid_boxes(4000, 3000, 70, 100, 230)  # small, so seen in windows (above)
    monkeypatch.setattr("training.detector_views.tiles_come_out_small", lambda tile, scale: False)
    [(view, labelled)] = detector_views(image, boxes)
    assert view is image and len(labelled) == len(boxes)


def _synth_folder(root, image, boxes):
    (root / "images").mkdir(parents=True)
    (root / "meta").mkdir()
    cv2.imwrite(str(root / "images" / "synth_000000.jpg"), image)
    meta = {"image": "images/synth_000000.jpg", "tiles": [{"box": [float(v) for v in b]} for b in boxes]}
    (root / "meta" / "synth_000000.json").write_text(json.dumps(meta))


def test_written_views_are_yolo_labelled_and_shrunk_with_their_boxes(tmp_path):
    image = np.full((3000, 4000, 3), 200, np.uint8)
    boxes = _grid_boxes(4000, 3000, 300, 420, 500)
    _synth_folder(tmp_path / "src", image, boxes)
    assert write_views(tmp_path / "src", tmp_path / "out") == 1
    view = cv2.imread(str(tmp_path / "out" / "images" / "synth_000000_00.jpg"))
    assert max(view.shape[:2]) == MAX_SIDE and view.shape[:2] == (960, 1280)
    lines = (tmp_path / "out" / "labels" / "synth_000000_00.txt").read_text().splitlines()
    assert len(lines) == len(boxes)
    first = [float(v) for v in lines[0].split()]
    b = boxes[0]
    assert first[0] == 0 and np.allclose(first[1:], [(b[0] + b[2]) / 8000, (b[1] + b[3]) / 6000, (b[2] - b[0]) / 4000, (b[3] - b[1]) / 3000], atol=1e-5)


def test_views_refuse_a_folder_without_photos(tmp_path, capsys):
    with pytest.raises(FileNotFoundError, match="no photos"):
        write_views(tmp_path, tmp_path / "out")
    assert main(["--source", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "no photos" in capsys.readouterr().err


def test_views_refuse_a_photo_that_is_not_an_image(tmp_path, capsys):
    _synth_folder(tmp_path / "src", np.zeros((40, 60, 3), np.uint8), np.zeros((0, 4)))
    (tmp_path / "src" / "images" / "synth_000000.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(ValueError, match="not an image"):
        write_views(tmp_path / "src", tmp_path / "out")
    assert main(["--source", str(tmp_path / "src"), "--out", str(tmp_path / "out")]) == 2
    assert "not an image" in capsys.readouterr().err


def test_a_detector_config_with_views_trains_on_them(tmp_path):
    from training.train_detector import build_data_yaml

    prepared = build_data_yaml({"views": {"count": 2, "seed": 5, "recipe": "generalised"}}, tmp_path / "work")
    data = yaml.safe_load(prepared.data_yaml.read_text())
    views = tmp_path / "work" / "views" / "images"
    assert data["train"] == [str(views)]
    assert prepared.train_images == len(list(views.glob("*.jpg"))) >= 2  # generalised photos are seen whole
    assert len(list((tmp_path / "work" / "views-photos" / "images").glob("*.jpg"))) == 2
    stale = views / "synth_000099_00.jpg"  # a view of a photo the set no longer holds
    stale.write_bytes(b"old")
    again = build_data_yaml({"views": {"count": 2, "seed": 5, "recipe": "generalised"}}, tmp_path / "work")
    assert not stale.exists() and again.train_images == prepared.train_images


def test_the_phone_stage_is_stage_6_with_new_scenes_and_phone_photos_of_the_training_editions():
    from pathlib import Path

    from datasets.synth.editions import NEVER_TRAINED
    from datasets.synth.writer import RECIPES
    from training.testsets import TEST_SETS
    from training.train_detector import load_config

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    earlier = [load_config(configs / f"detector_{name}.yaml") for name in ("generalised", "more_scenes", "restyled", "gpu")]
    stage6, phone = earlier[2], load_config(configs / "detector_phone.yaml")
    used = {c["synthetic"]["seed"] for c in earlier} | {t.seed for t in TEST_SETS}
    assert phone["synthetic"]["seed"] not in used and phone["views"]["seed"] not in used | {phone["synthetic"]["seed"]}
    assert RECIPES[phone["views"]["recipe"]] == RECIPES["phone"] and not RECIPES["phone"].uses_held_out()
    assert not NEVER_TRAINED & set(RECIPES[phone["synthetic"]["recipe"]].editions)
    # all else as stage 6 trained: the real photos, their printings, the rate
    assert {k: v for k, v in phone.items() if k not in {"synthetic", "views"}} == {k: v for k, v in stage6.items() if k != "synthetic"}
