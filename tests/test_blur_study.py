"""The blurred-photo study's report (``training.blur_study``): which photos count, the note's F1
split, and its refusals."""

from __future__ import annotations

import pytest

from training.blur_study import PhotoBlur, blur_report, main
from vision.reading import SMALL_TILE_NOTE_PX


def photo(name: str, blur: float, tiles: int, read: int, right: int, tile_px: float = 80.0) -> PhotoBlur:
    return PhotoBlur("set", name, tile_px, blur, tiles, read, right)


def test_the_report_splits_the_photos_with_tiles_long_enough_at_the_threshold():
    photos = [
        photo("sharp", 0.01, 10, 10, 10),
        photo("soft", 0.05, 10, 10, 9),
        photo("smeared", 0.12, 10, 9, 6),
        photo("smeared but read", 0.08, 5, 5, 5),
        photo("tiny", 0.30, 20, 10, 0, tile_px=SMALL_TILE_NOTE_PX - 1),  # gets the small-tiles note: not counted
    ]
    r = blur_report(photos, 0.07)
    assert r["photos_measured"] == 4 and r["photos_noted"] == 2
    assert r["noted"] == ["set/smeared", "set/smeared but read"]
    assert r["f1_noted"] == pytest.approx(2 * 11 / (14 + 15))  # 11 right of 14 read and 15 labelled
    assert r["f1_rest"] == pytest.approx(19 / 20)
    assert r["share_of_errors_noted"] == pytest.approx(7 / 9)  # 4 + 3 errors of 1 + 1 + 7
    assert r["noted_without_error"] == 1
    assert r["highest_blur_not_noted"] == 0.05
    none = blur_report(photos, 0.5)
    assert none["photos_noted"] == 0 and none["f1_noted"] is None and none["share_of_errors_noted"] == 0.0
    empty = blur_report([], 0.07)
    assert empty["photos_measured"] == 0 and empty["f1_rest"] is None and empty["highest_blur_not_noted"] is None


@pytest.mark.parametrize("argv", [["--threshold", "0"], ["--threshold", "-1"], ["--sets", "no-such-set"]])
def test_the_study_refuses_a_threshold_of_nothing_and_unknown_sets(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "--threshold must be above 0" in capsys.readouterr().err or argv[0] == "--sets"


def test_a_missing_set_is_skipped_with_its_reason(tmp_path, capsys, monkeypatch):
    import training.blur_study as study

    monkeypatch.setattr(study, "load_any_reader", lambda path: object())
    assert main(["--testsets", str(tmp_path), "--sets", "distractors"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("distractors: skipped (") and "noted: none" in out


def test_the_real_splits_are_named_sets(real_root, tmp_path):
    from training.evaluate_suite import REAL_TRAINING, REAL_VALIDATION, load_named_set

    valid = load_named_set(REAL_VALIDATION, real_root, tmp_path)
    train = load_named_set(REAL_TRAINING, real_root, tmp_path)
    assert [p.name for p in valid] == ["table-1_jpeg.rf.aaa.jpg"]
    assert len(train) == 4 and all(p.image_path.parent.parent.name == "train" for p in train)
    assert all(len(p.boxes) == len(p.labels) > 0 and p.kind == "table" for p in valid + train)
    with pytest.raises(ValueError):
        load_named_set(REAL_TRAINING, tmp_path / "nothing", tmp_path)
    with pytest.raises(FileNotFoundError):
        load_named_set("distractors", real_root, tmp_path)
