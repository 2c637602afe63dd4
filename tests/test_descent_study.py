"""The descent study runs, compares the two ways of solving the last program, and leaves the
solver's settings as it found them."""

from __future__ import annotations

import re

from benchmarks import descent_study
from solver import mip, move_program


def test_the_study_finds_the_same_optimum_both_ways_and_restores_the_solver(capsys) -> None:
    rows, shares = move_program._rack_share_rows, (mip.DESCENT_TIME_SHARE, mip.DESCENT_COLUMN_SHARE)
    assert descent_study.main(["--table", "30", "--rack", "14", "--seeds", "0", "1", "2", "--without-rack-share"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("seed ")]
    assert len(lines) == 3
    assert all("same optimum: True" in line or "no descent" in line for line in lines)
    assert all(re.search(r"answer: (proven|cut short), \d+ table tiles moved", line) for line in lines)
    assert move_program._rack_share_rows is rows
    assert (mip.DESCENT_TIME_SHARE, mip.DESCENT_COLUMN_SHARE) == shares
