"""A test set blurred once more, in proportion to each photo's frame."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.synthetic_photos import edge_rise_px, step_photo
from training.blurred_copies import blur_to_scale, main, write_blurred_copy


def test_the_blur_spans_the_same_share_of_any_frame():
    small, large = edge_rise_px(blur_to_scale(step_photo(500), 5.0)), edge_rise_px(blur_to_scale(step_photo(2000), 5.0))
    assert small >= 2 and abs(large / small - 4) < 0.6
    assert np.array_equal(blur_to_scale(step_photo(500), 0.0), step_photo(500))


def _test_set(root):
    for sub in ("images", "labels", "meta"):
        (root / sub).mkdir(parents=True)
    for name, width in (("synth_000000", 400), ("synth_000001", 1200)):
        cv2.imwrite(str(root / "images" / f"{name}.jpg"), step_photo(width))
        (root / "labels" / f"{name}.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    (root / "data.yaml").write_text("nc: 1\n")


def test_a_copy_holds_every_photo_blurred_and_the_labels_as_they_were(tmp_path):
    _test_set(tmp_path / "src")
    assert write_blurred_copy(tmp_path / "src", tmp_path / "out", 3.0) == 2
    assert (tmp_path / "out" / "labels" / "synth_000001.txt").read_text() == "0 0.5 0.5 0.1 0.1\n"
    assert (tmp_path / "out" / "data.yaml").is_file()
    original = cv2.imread(str(tmp_path / "src" / "images" / "synth_000001.jpg"))
    blurred = cv2.imread(str(tmp_path / "out" / "images" / "synth_000001.jpg"))
    assert edge_rise_px(blurred) > edge_rise_px(original) + 4


def test_the_cli_writes_the_copy_and_refuses_what_it_cannot_do(tmp_path, capsys):
    _test_set(tmp_path / "sets" / "held-out-phone")
    args = ["--set", "held-out-phone", "--out", str(tmp_path / "blurred"), "--testsets", str(tmp_path / "sets")]
    assert main([*args, "--per-1000px", "1"]) == 0
    assert len(list((tmp_path / "blurred" / "held-out-phone" / "images").iterdir())) == 2
    assert main([*args, "--per-1000px", "-1"]) == 2
    assert "negative" in capsys.readouterr().err
    assert main(["--set", "absent", "--out", str(tmp_path / "b"), "--testsets", str(tmp_path / "sets"), "--per-1000px", "1"]) == 2
    assert "not a test set" in capsys.readouterr().err
    with pytest.raises(ValueError):
        blur_to_scale(step_photo(100), -0.5)


def test_a_file_in_images_that_is_no_image_is_refused(tmp_path):
    _test_set(tmp_path / "src")
    (tmp_path / "src" / "images" / "notes.jpg").write_text("not a photo")
    with pytest.raises(ValueError, match="not an image"):
        write_blurred_copy(tmp_path / "src", tmp_path / "out", 1.0)
