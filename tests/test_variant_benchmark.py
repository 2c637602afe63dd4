"""The rule-variant benchmark's command line (:mod:`benchmarks.variant_benchmark`)."""

from __future__ import annotations

import pytest

from benchmarks import variant_benchmark


def test_reports_one_row_per_rule_set_and_cell(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    out = tmp_path / "report.md"
    code = variant_benchmark.main(
        ["--seeds", "2", "--tables", "0,10", "--racks", "5", "--rules", "standard,repeated-colours", "--out", str(out)]
    )
    assert code == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| standard") or line.startswith("| repeated")]
    assert [row.split("|")[1:4] for row in rows] == [
        [" standard ", " 0 ", " 5 "], [" standard ", " 10 ", " 5 "],
        [" repeated-colours ", " 0 ", " 5 "], [" repeated-colours ", " 10 ", " 5 "],
    ]
    assert all(row.rstrip(" |").endswith("0") for row in rows)  # nothing cut short on tiny positions
    assert capsys.readouterr().out.strip() == out.read_text().strip()


def test_cells_larger_than_the_tile_set_are_left_out(tmp_path) -> None:
    out = tmp_path / "report.md"
    variant_benchmark.main(["--seeds", "1", "--tables", "100", "--racks", "5,8", "--rules", "standard", "--out", str(out)])
    rows = [line for line in out.read_text().splitlines() if line.startswith("| standard")]
    assert [row.split("|")[3].strip() for row in rows] == ["5"]  # 100 + 8 > 106 tiles


def test_an_unknown_rule_set_is_refused_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        variant_benchmark.main(["--rules", "standard,nope"])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert "unknown rule preset(s): nope" in error and "repeated-colours" in error


def test_the_program_study_records_each_program_of_a_move_and_the_last_ones_gap() -> None:
    from benchmarks import program_study
    from solver import mip, move_program, search

    solve, build = mip.solve, move_program.program
    optimal, programs = program_study.study("repeated-colours", 30, 8, 0)
    assert optimal and programs
    assert all(p.columns > 0 and p.rows > 0 and p.seconds >= 0 for p in programs)
    last = programs[-1]
    assert last.gap_staying is None or last.gap_staying >= -1e-6  # a relaxation never promises less
    assert (mip.solve, move_program.program) == (solve, build)  # the solver is left as it was
    assert (search.mip.solve, search.move_program.program) == (solve, build)
