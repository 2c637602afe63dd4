"""Two evaluation reports side by side: sets and the photos whose misreads changed."""

from __future__ import annotations

import json

import pytest

from training.compare_evaluations import PhotoChange, compare, format_comparison, load_report, main


def _set(tiles: int, right: int, f1: float, errors: list[tuple[str, int, int]]) -> dict:
    return {
        "tiles": tiles, "tiles_right": right, "f1": f1,
        "errors": [{"photo": p, "missing": ["red-1"] * m, "extra": ["blue-2"] * x, "phantoms": []} for p, m, x in errors],
    }


BEFORE = {
    "rack-ends": _set(20, 17, 0.85, [("synth_000001", 2, 2), ("synth_000002", 1, 0)]),
    "held-out-phone": _set(10, 10, 1.0, []),
    "only-before": _set(5, 5, 1.0, []),
}
AFTER = {
    "rack-ends": _set(20, 16, 0.80, [("synth_000001", 2, 2), ("synth_000003", 4, 3)]),
    "held-out-phone": _set(10, 10, 1.0, []),
}


def test_only_the_photos_whose_misreads_differ_are_listed_and_a_photo_read_right_counts_nothing():
    sets, photos = compare(BEFORE, AFTER)
    assert [s.name for s in sets] == ["rack-ends", "held-out-phone"]  # a set one run lacks is left out
    assert sets[0].tiles_right == (17, 16) and sets[0].f1 == (0.85, 0.80)
    assert photos == [
        PhotoChange("rack-ends", "synth_000002", (1, 0), (0, 0)),
        PhotoChange("rack-ends", "synth_000003", (0, 4), (0, 3)),
    ]
    text = format_comparison(sets, photos)
    assert "rack-ends/synth_000003: 0 → 4, 0 → 3" in text
    assert "tiles not read right on them: 1 → 4 (+4 on the photos that lost, −1 on those that gained)" in text


def test_two_runs_alike_say_so():
    assert "no photo's misreads changed" in format_comparison(*compare(BEFORE, BEFORE))


def test_the_cli_reads_two_reports(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(BEFORE))
    (tmp_path / "b.json").write_text(json.dumps(AFTER))
    assert main([str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    assert "| rack-ends | 20 → 20 | 17 → 16 | 0.8500 → 0.8000 |" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["not json", "[]", "{}", json.dumps({"rack-ends": {"tiles": 3}})])
def test_a_file_that_is_no_evaluation_report_is_refused_clearly(tmp_path, capsys, text):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(ValueError, match="evaluation report"):
        load_report(bad)
    (tmp_path / "good.json").write_text(json.dumps(BEFORE))
    assert main([str(bad), str(tmp_path / "good.json")]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_a_missing_file_is_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match="not a readable evaluation report"):
        load_report(tmp_path / "absent.json")
