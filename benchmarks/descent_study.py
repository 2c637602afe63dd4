"""What the tie-break's descent (:func:`solver.mip.solve_descending`) saves, program by program.

    python -m benchmarks.descent_study [--rules repeated-colours] [--table 90] [--rack 14] [--seeds 0 1 2]
                                       [--without-rack-share]

For each seeded position (the variant benchmark's, :mod:`benchmarks.variant_benchmark`): the
move's last program (the tie-break at the best score, with the move that proved that score as its
start) is taken as the solver builds it, and solved twice more with a long limit (60 s): by one
search of the whole program (:func:`solver.mip.solve`, from the start) and by the descent; the
CPU seconds of each, and whether both found the same optimum. Then the move as a player gets it
(the default 5 s limit): proven or cut short, and the table tiles it moves. ``--without-rack-share``
builds the programs without the rows on the rack's share of the free groups
(``move_program._rack_share_rows``). A study for the solver's developers (issue 17), not a
benchmark of the product: the descent's hand-over to a whole search (``mip.DESCENT_TIME_SHARE``,
``DESCENT_COLUMN_SHARE``) and to the search set by set (``solver.split_search``) are off in the
descent timed here, so that its own time shows; the move as a player gets it has both.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

import numpy as np

from benchmarks.positions import deal_position
from benchmarks.program_study import study_parser
from benchmarks.solver_benchmark import position_seed
from solver import PRESETS, Objective
from solver import mip, move_program, search
from solver.mip import Rows

LONG_LIMIT_S = 60.0


def last_program(position) -> tuple[mip.IntegerProgram, float, np.ndarray] | None:
    """The tie-break program the move descends on, its step and its start (None: the move has none)."""
    seen: list = []
    descend = mip.solve_descending

    def recording(program, step, time_limit_s, start, hand_over=None):
        seen.append((program, step, start))
        return descend(program, step, time_limit_s, start, hand_over)

    mip.solve_descending = recording
    try:
        search.solve(position, Objective.TILES, time_limit_s=LONG_LIMIT_S)
    finally:
        mip.solve_descending = descend
    return seen[-1] if seen else None


def timed(solving) -> tuple[mip.Solution | None, float]:
    began = time.process_time()
    solution = solving()
    return solution, time.process_time() - began


def main(argv: Sequence[str] | None = None) -> int:
    parser = study_parser(__doc__.splitlines()[0])
    parser.add_argument("--without-rack-share", action="store_true")
    args = parser.parse_args(argv)
    saved = (move_program._rack_share_rows, mip.DESCENT_TIME_SHARE, mip.DESCENT_COLUMN_SHARE)
    if args.without_rack_share:
        move_program._rack_share_rows = lambda *_: Rows.empty()
    mip.DESCENT_TIME_SHARE = mip.DESCENT_COLUMN_SHARE = 1.0
    try:
        return _study(args)
    finally:
        move_program._rack_share_rows, mip.DESCENT_TIME_SHARE, mip.DESCENT_COLUMN_SHARE = saved


def _study(args: argparse.Namespace) -> int:
    rules = PRESETS[args.rules]
    print(f"{args.rules}, table {args.table} + rack {args.rack}: the last program solved whole / by the descent (CPU s)")
    totals = [0.0, 0.0]
    for seed in args.seeds:
        position = deal_position(random.Random(position_seed(seed, args.table, args.rack)), args.table, args.rack, rules=rules)
        found = last_program(position)
        move = search.solve(position, Objective.TILES)
        answer = f"answer: {'proven' if move.optimal else 'cut short'}, {move.tiles_moved} table tiles moved"
        if found is None:
            print(f"seed {seed}: no descent (the bound was reached at once); {answer}")
            continue
        program, step, start = found
        whole, whole_s = timed(lambda: mip.solve(program, LONG_LIMIT_S, start))
        descended, descent_s = timed(lambda: mip.solve_descending(program, step, LONG_LIMIT_S, start))
        same = whole is not None and descended is not None and program.objective @ whole.values == program.objective @ descended.values
        totals[0] += whole_s
        totals[1] += descent_s
        print(f"seed {seed}: {len(program.objective)} columns, {whole_s:.2f} / {descent_s:.2f} s, same optimum: {same}; {answer}")
    print(f"in all: {totals[0]:.1f} / {totals[1]:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
