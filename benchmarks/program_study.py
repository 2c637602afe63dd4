"""Where a move's time goes: each integer program the solver solves for it, one by one.

    python -m benchmarks.program_study [--rules repeated-colours] [--table 90] [--rack 14] [--seeds 0 1 2]

For each seeded position (the variant benchmark's, :mod:`benchmarks.variant_benchmark`): per
program, its columns and rows and the CPU time it took; and for the move's last program (the
tie-break at the best score), how far its linear relaxation's bound lies above its optimum, in
table tiles staying in place (the tie-break's leading criterion). A study for the solver's
developers (issue 17), not a benchmark of the product: the move gets up to 60 s so the last
program is solved to the end. Positions are dealt to players who have opened (the opening's
programs are not the move program's and are not studied).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from benchmarks.positions import deal_position
from benchmarks.solver_benchmark import position_seed
from solver import PRESETS, Objective
from solver import mip, move_program, search
from solver.problem import Weights


@dataclass(frozen=True)
class Solved:
    """One program of a move: its size, the CPU seconds it took, and its relaxation's gap."""

    columns: int
    rows: int
    seconds: float
    gap_staying: float | None  # (bound - optimum) / the weight of one tile staying; None: no tie-break weights


@contextmanager
def _recording() -> Iterator[list[tuple[mip.IntegerProgram, mip.Solution | None, float, Weights]]]:
    """Every program the solver builds and solves while in this block, with its weights."""
    seen: list = []
    weights: list[Weights] = []
    build, solve = move_program.program, mip.solve

    def building(problem, columns, objective, w):
        weights.append(w)
        return build(problem, columns, objective, w)

    def solving(program, limit, start=None, stop=None):
        # CPU time of the whole process: with two searches at a time (solver.mip._TwoAtATime) a
        # program's time includes the other's.
        began = time.process_time()
        solution = solve(program, limit, start, stop)
        seen.append((program, solution, time.process_time() - began, weights[-1] if weights else None))
        return solution

    search.move_program.program, search.mip.solve = building, solving
    try:
        yield seen
    finally:
        search.move_program.program, search.mip.solve = build, solve


def study(rules_name: str, table: int, rack: int, seed: int) -> tuple[bool, list[Solved]]:
    """Whether the move was proven optimal, and its programs in the order solved."""
    position = deal_position(random.Random(position_seed(seed, table, rack)), table, rack, rules=PRESETS[rules_name])
    with _recording() as seen:
        suggestion = search.solve(position, Objective.TILES, time_limit_s=60.0)
    out = []
    for i, (program, solution, seconds, weights) in enumerate(seen):
        gap = None
        if i == len(seen) - 1 and solution is not None and weights is not None and weights.stay:
            relaxed = mip.solve_linear(program, dual=True)
            if relaxed is not None:
                gap = (relaxed.bound - float(program.objective @ solution.values)) / weights.stay
        out.append(Solved(len(program.objective), len(program.equal) + len(program.at_most), seconds, gap))
    return suggestion.optimal, out


def study_parser(description: str) -> argparse.ArgumentParser:
    """The options every solver study takes: which rules, table and rack sizes, and seeds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rules", default="repeated-colours", choices=sorted(PRESETS))
    parser.add_argument("--table", type=int, default=90)
    parser.add_argument("--rack", type=int, default=14)
    parser.add_argument("--seeds", type=int, nargs="*", default=list(range(10)))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = study_parser(__doc__.splitlines()[0]).parse_args(argv)
    print(f"{args.rules}, table {args.table} + rack {args.rack}: per program columns / rows / CPU s")
    for seed in args.seeds:
        optimal, programs = study(args.rules, args.table, args.rack, seed)
        cells = ", ".join(f"{p.columns} / {p.rows} / {p.seconds:.2f}" for p in programs)
        gap = programs[-1].gap_staying if programs else None
        gap_text = "" if gap is None else f"; last program's relaxation {gap:.1f} tiles staying above its optimum"
        print(f"seed {seed}: {cells}{gap_text}{'' if optimal else ' (not proven optimal)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
