"""Time the solver with its optimiser calls swapped: the shipped OR-Tools (SCIP + GLOP) against GLPK and HiGHS.

    python -m benchmarks.backend_comparison --seeds 20 --tables 30,60,90 --racks 14,30

Each seeded position (the same ones as :mod:`benchmarks.solver_benchmark`) is solved once to
warm the caches, then once per configuration, interleaved, so every configuration sees the
same machine load. The answers must agree in every criterion of the objective (the script
exits with status 1 otherwise); the report gives per cell the median / p95 / max time of each
configuration and its ratio to the shipped one.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence

from benchmarks.glpk_backends import relax_with_highs, solve_with_glpk
from benchmarks.positions import deal_position
from benchmarks.solver_benchmark import code_version, ms, percentile, position_seed
from solver import mip, search
from solver.mip import solve_linear
from solver.position import Objective

#: Configuration name -> (MIP solver, relaxation solver); the first is what ships.
CONFIGURATIONS: dict[str, tuple[Callable, Callable]] = {
    "SCIP + GLOP (OR-Tools, shipped)": (mip.solve, solve_linear),
    "GLPK + GLOP": (solve_with_glpk, solve_linear),
    "GLPK + HiGHS": (solve_with_glpk, relax_with_highs),
}


@contextlib.contextmanager
def configured(name: str) -> Iterator[None]:
    """The solver with the configuration's MIP and relaxation calls in place."""
    solve_mip, relax = CONFIGURATIONS[name]
    saved = mip.solve, search.relax
    mip.solve, search.relax = solve_mip, relax
    try:
        yield
    finally:
        mip.solve, search.relax = saved


def criteria(suggestion) -> tuple[int, ...]:
    return (
        suggestion.tiles_placed, suggestion.value_placed, suggestion.melds_untouched,
        suggestion.tiles_moved, len(suggestion.new_table),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--tables", default="30,60,90")
    parser.add_argument("--racks", default="14,30")
    args = parser.parse_args(argv)
    names = list(CONFIGURATIONS)
    lines = [
        "| table | rack | " + " | ".join(f"{n} median / p95 / max" for n in names)
        + " | " + " | ".join(f"{n} / shipped (median, p95)" for n in names[1:]) + " |",
        "|---:|---:|" + "---|" * len(names) + "---:|" * (len(names) - 1),
    ]
    disagreements = 0
    for table in (int(t) for t in args.tables.split(",")):
        for rack in (int(r) for r in args.racks.split(",")):
            if table + rack > 106:
                continue
            times: dict[str, list[float]] = {n: [] for n in names}
            for seed in range(args.seeds):
                position = deal_position(random.Random(position_seed(seed, table, rack)), table, rack)
                search.solve(position, Objective.TILES)  # warm the catalogue caches
                answers = set()
                for name in names:
                    with configured(name):
                        start = time.perf_counter()
                        suggestion = search.solve(position, Objective.TILES)
                        times[name].append(time.perf_counter() - start)
                    answers.add(criteria(suggestion))
                if len(answers) > 1:
                    disagreements += 1
                    print(f"!! table={table} rack={rack} seed={seed}: answers differ {answers}", file=sys.stderr)
            base = times[names[0]]
            cells = [f"{ms(percentile(t, 0.5))} / {ms(percentile(t, 0.95))} / {ms(max(t))}" for t in times.values()]
            ratios = [
                f"{percentile(times[n], 0.5) / percentile(base, 0.5):.2f}, {percentile(times[n], 0.95) / percentile(base, 0.95):.2f}"
                for n in names[1:]
            ]
            lines.append(f"| {table} | {rack} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Code: {code_version()}. {args.seeds} positions per cell, tile objective, times in ms; "
          f"load average {load} at the end of the run.\n")
    print("\n".join(lines))
    print(f"\nPositions where the configurations' answers differ in a criterion: {disagreements}.")
    return 1 if disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
