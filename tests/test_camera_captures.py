"""The 12 MP sets as the app's camera widget hands them over (training/camera_captures.py)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from training.camera_captures import CAPTURES, Capture, main, write_capture
from training.evaluate_suite import load_testset


def _write_set(folder, width=4000, height=3000):
    (folder / "meta").mkdir(parents=True)
    (folder / "images").mkdir()
    image = np.full((height, width, 3), 200, np.uint8)
    cv2.rectangle(image, (1000, 1000), (1100, 1140), (30, 30, 30), -1)
    cv2.imwrite(str(folder / "images" / "p.jpg"), image)
    meta = {
        "image": "images/p.jpg", "width": width, "height": height, "kind": "table",
        "distractors": [[2000, 400, 2080, 480]], "hidden": [[10, 20, 110, 160]],
        "tiles": [{"name": "red-7", "index": 45, "box": [1000, 1000, 1100, 1140],
                   "corners": [[1000, 1000], [1100, 1000], [1100, 1140], [1000, 1140]], "visible": 1.0, "number_visible": 1.0}],
    }
    (folder / "meta" / "p.json").write_text(json.dumps(meta))


def test_a_capture_shrinks_to_its_side_and_never_enlarges():
    widget = Capture("w", 360, "width")
    frame = Capture("f", 1080, "short")
    assert widget.scale(4000, 3000) == pytest.approx(0.09)
    assert widget.scale(3000, 4000) == pytest.approx(0.12)  # a portrait photo: its width
    assert frame.scale(4000, 3000) == pytest.approx(0.36)
    assert frame.scale(2250, 4000) == pytest.approx(0.48)  # the shorter side
    assert frame.scale(800, 600) == 1.0
    assert {c.name for c in CAPTURES} >= {"phone-widget", "1080p"}


def test_the_written_set_holds_the_shrunk_photo_and_its_labels_scaled_alike(tmp_path):
    source, out = tmp_path / "set", tmp_path / "out"
    _write_set(source)
    assert write_capture(source, out, Capture("f", 1080, "short")) == 1
    image = cv2.imread(str(out / "images" / "p.jpg"))
    assert image.shape[:2] == (1080, 1440)
    photo = load_testset(out)[0]
    np.testing.assert_allclose(photo.boxes, [[360, 360, 396, 410.4]], atol=0.01)
    np.testing.assert_allclose(photo.distractors, [[720, 144, 748.8, 172.8]], atol=0.01)
    np.testing.assert_allclose(photo.hidden, [[3.6, 7.2, 39.6, 57.6]], atol=0.01)
    assert photo.labels == (45,)
    # the dark tile lies where its scaled box says
    x1, y1, x2, y2 = (int(round(v)) for v in photo.boxes[0])
    assert image[y1 + 5 : y2 - 5, x1 + 5 : x2 - 5].mean() < 60 < image[:, :300].mean()
    meta = json.loads((out / "meta" / "p.json").read_text())
    assert (meta["width"], meta["height"]) == (1440, 1080)
    np.testing.assert_allclose(meta["tiles"][0]["corners"][2], [396, 410.4], atol=0.01)


def test_writing_again_replaces_the_old_copy(tmp_path):
    source, out = tmp_path / "set", tmp_path / "out"
    _write_set(source)
    write_capture(source, out, Capture("w", 360, "width"))
    write_capture(source, out, Capture("f", 1080, "short"))
    assert cv2.imread(str(out / "images" / "p.jpg")).shape[:2] == (1080, 1440)
    assert len(list((out / "meta").glob("*.json"))) == 1


def test_a_set_not_written_yet_is_an_error_not_an_empty_folder(tmp_path, capsys):
    assert main(["--testsets", str(tmp_path), "--out", str(tmp_path / "out"), "--sets", "held-out-phone"]) == 1
    assert "python -m training.testsets --only held-out-phone" in capsys.readouterr().err
    assert not (tmp_path / "out" / "phone-widget" / "held-out-phone").exists()
