"""Benchmark: our exact solver against the reference package ``rummikub-solver`` 1.0.

    python -m benchmarks.solver_benchmark [--seeds N] [--out FILE]

Seeded random positions (a valid table of 0-90 tiles, table jokers included, and a rack of
14-30 tiles, all dealt from one 106-tile set; the player has opened) are solved in the same
run by our solver (tile objective, least-disruption tie-break included) and by every
installed backend of rummikub-solver (tile-count mode). Prints a Markdown report: per cell the
median, p95 and max solve time, tiles placed, the time ratio to the reference's fastest
backend, and every position where we place fewer tiles than the reference (a bug).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from typing import Sequence

from benchmarks.positions import deal_position, full_pool
from benchmarks.reference import ReferenceSolver, available_backends, quiet_stdout
from benchmarks.solver_clock import clocked
from solver import Objective, Position, solve
from solver.rules import STANDARD
from solver.tiles import format_melds, format_tiles

TABLE_SIZES = (0, 10, 30, 60, 90)
RACK_SIZES = (14, 20, 30)
#: Targets from issue 2, printed next to the figures.
TARGET_RATIO = 0.5
TARGET_P95_S = 0.050
TARGET_P95_CELL = (90, 14)


@dataclass
class Cell:
    table: int
    rack: int
    ours: list[float] = field(default_factory=list)
    #: Of each of our times, the part spent in OR-Tools' GLOP and SCIP calls.
    ours_glop: list[float] = field(default_factory=list)
    ours_scip: list[float] = field(default_factory=list)
    ours_tiles: list[int] = field(default_factory=list)
    ours_failures: int = 0
    ours_not_proven: int = 0
    ref: dict[str, list[float]] = field(default_factory=dict)
    ref_tiles: list[int] = field(default_factory=list)
    ref_unrepresentable: int = 0
    fewer_than_ref: list[str] = field(default_factory=list)
    more_than_ref: int = 0
    disagreements: int = 0

    def fastest_reference(self) -> tuple[str, float]:
        """The reference backend with the lowest median time here, and that median."""
        medians = {name: statistics.median(times) for name, times in self.ref.items()}
        fastest = min(medians, key=medians.get)  # type: ignore[arg-type]
        return fastest, medians[fastest]


def position_seed(seed: int, table: int, rack: int) -> int:
    return seed * 1_000_003 + table * 1_000 + rack


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (no interpolation: with few samples p95 is close to the max)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), math.ceil(q * len(ordered))))
    return ordered[rank - 1]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def spread(times: Sequence[float]) -> str:
    """Median / p95 / max in ms, as every table of the reports shows times."""
    return f"{ms(statistics.median(times))} / {ms(percentile(times, 0.95))} / {ms(max(times))}"


def timed_solve(position: Position, time_limit_s: float | None):
    kwargs = {} if time_limit_s is None else {"time_limit_s": time_limit_s}
    start = time.perf_counter()
    suggestion = solve(position, Objective.TILES, **kwargs)
    return time.perf_counter() - start, suggestion


def run_cell(
    table: int, rack: int, seeds: int, refs: dict[str, ReferenceSolver], time_limit_s: float | None
) -> Cell:
    cell = Cell(table, rack, ref={name: [] for name in refs})
    checker = next(iter(refs.values()))
    for seed in range(seeds):
        position = deal_position(random.Random(position_seed(seed, table, rack)), table, rack)
        try:
            with clocked() as clock:
                seconds, suggestion = timed_solve(position, time_limit_s)
        except Exception as error:  # noqa: BLE001 - a benchmark reports failures, it does not stop
            cell.ours_failures += 1
            print(f"!! our solver failed on table={table} rack={rack} seed={seed}: {error!r}", file=sys.stderr)
            ours = None
        else:
            cell.ours.append(seconds)
            cell.ours_glop.append(clock.glop)
            cell.ours_scip.append(clock.scip)
            cell.ours_tiles.append(suggestion.tiles_placed)
            cell.ours_not_proven += not suggestion.optimal
            ours = suggestion.tiles_placed
        if not checker.can_arrange_table(position):
            cell.ref_unrepresentable += 1
        placed = set()
        for name, ref in refs.items():
            result = ref.solve(position)
            cell.ref[name].append(result.seconds)
            placed.add(result.tiles_placed)
        if len(placed) > 1:
            cell.disagreements += 1
        best_ref = max(placed)
        cell.ref_tiles.append(best_ref)
        if ours is not None and ours > best_ref:
            cell.more_than_ref += 1
        if ours is not None and ours < best_ref:
            cell.fewer_than_ref.append(
                f"table={table} rack={rack} seed={seed}: ours {ours} < reference {best_ref}\n"
                f"    table: {format_melds(position.table, short=True)}\n"
                f"    rack:  {format_tiles(position.rack, short=True)}"
            )
    return cell


def code_version() -> str:
    """The git commit benchmarked, marked dirty when solver/ has uncommitted changes."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "solver"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" + uncommitted solver changes" if dirty else "")


def environment() -> str:
    versions = []
    for package in ("ortools", "rummikub-solver", "cvxpy-base", "scipy", "highspy", "cvxopt"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            pass
    cores = os.cpu_count()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"Python {platform.python_version()}, {platform.machine()}, {cores} cores "
        f"(load average {load} at the end of the run), " + ", ".join(versions)
    )


def report(cells: list[Cell], backends: list[str], seeds: int, skipped: list[tuple[int, int]]) -> str:
    default = available_backends()[0]
    lines = [
        f"Solver benchmark: {seeds} seeded positions per cell; times in ms (median / p95 / max).",
        f"Reference: rummikub-solver, backends {', '.join(backends)} (its default with what is installed here: {default}).",
        f"Code: {code_version()}. Environment: {environment()}.",
        "",
        "| table | rack | ours | " + " | ".join(backends) + " | fastest ref | ratio (median ours / fastest) |",
        "|---:|---:|---|" + "---|" * len(backends) + "---|---:|",
    ]
    for c in cells:
        fastest, fastest_median = c.fastest_reference()
        ours_median = statistics.median(c.ours) if c.ours else float("nan")
        ratio = ours_median / fastest_median
        flag = "" if ratio <= TARGET_RATIO else " ✗"
        ours = spread(c.ours) if c.ours else "failed"
        lines.append(
            f"| {c.table} | {c.rack} | {ours} | "
            + " | ".join(spread(c.ref[b]) for b in backends)
            + f" | {fastest} | {ratio:.2f}{flag} |"
        )
    lines += [
        "",
        "| table | rack | tiles placed: ours (mean) | reference (mean, best backend) | "
        "ours < reference | ours > reference | reference cannot arrange the table | backends disagree | "
        "our failures | not proven optimal |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cells:
        mean = lambda xs: f"{statistics.mean(xs):.2f}" if xs else "-"  # noqa: E731
        lines.append(
            f"| {c.table} | {c.rack} | {mean(c.ours_tiles)} | {mean(c.ref_tiles)} | {len(c.fewer_than_ref)} | {c.more_than_ref} | "
            f"{c.ref_unrepresentable} | {c.disagreements} | {c.ours_failures} | {c.ours_not_proven} |"
        )
    lines += ["", *time_split(cells), ""]
    target_cell = next((c for c in cells if (c.table, c.rack) == TARGET_P95_CELL and c.ours), None)
    if target_cell is not None:
        p95 = percentile(target_cell.ours, 0.95)
        verdict = "met" if p95 <= TARGET_P95_S else "NOT met"
        lines.append(f"Target p95 <= {ms(TARGET_P95_S)} ms at table 90 + rack 14: {ms(p95)} ms, {verdict}.")
    worst = max((statistics.median(c.ours) / c.fastest_reference()[1] for c in cells if c.ours),
                default=float("nan"))
    verdict = "met" if worst <= TARGET_RATIO else "NOT met"
    lines.append(f"Target median <= {TARGET_RATIO}x the fastest reference backend in every cell: worst {worst:.2f}x, {verdict}.")
    fewer = [v for c in cells for v in c.fewer_than_ref]
    lines.append(f"Positions where we place fewer tiles than the reference: {len(fewer)}.")
    if skipped:
        lines.append(
            "Cells skipped because table + rack exceed the 106 tiles of one set: "
            + ", ".join(f"{t}+{r}" for t, r in skipped) + "."
        )
    return "\n".join(lines)


def time_split(cells: list[Cell]) -> list[str]:
    """Where our time goes, against the ratio target's budget: medians per position of the
    time in GLOP (relaxations), in SCIP (integer programs) and in the rest (our Python)."""
    lines = [
        "Where our time goes (ms, medians per position; the parts' medians need not add up to the total's):",
        "",
        "| table | rack | ours | GLOP | SCIP | rest (Python) | budget (target ratio x fastest ref) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cells:
        if not c.ours:
            continue
        budget = TARGET_RATIO * c.fastest_reference()[1]
        rest = [t - g - s for t, g, s in zip(c.ours, c.ours_glop, c.ours_scip)]
        parts = (c.ours, c.ours_glop, c.ours_scip, rest)
        lines.append(f"| {c.table} | {c.rack} | " + " | ".join(ms(statistics.median(p)) for p in parts) + f" | {ms(budget)} |")
    return lines


#: Positions the reference is known to get wrong (issue 2), shown with both answers.
WEAK_SPOTS = (
    ("k5 b5 o5", "j"),
    ("r4 r5 r6 j", "r7"),
    ("k5 b5 o5 j | r1 r2 r3", "r4"),
)


def weak_spots(refs: dict[str, ReferenceSolver]) -> str:
    from solver import parse_melds, parse_tiles

    lines = [
        "",
        "Known weak spots of the reference (tiles placed):",
        "",
        "| table | rack | ours | " + " | ".join(refs) + " |",
        "|---|---|---:|" + "---:|" * len(refs),
    ]
    for table, rack in WEAK_SPOTS:
        position = Position(parse_melds(table), parse_tiles(rack))
        ours = solve(position, Objective.TILES).tiles_placed
        theirs = " | ".join(str(ref.solve(position).tiles_placed) for ref in refs.values())
        shown = " ".join(f"[{format_tiles(m, short=True)}]" for m in position.table)
        lines.append(f"| {shown} | {rack} | {ours} | {theirs} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="positions per cell (default 20)")
    parser.add_argument("--tables", default=",".join(map(str, TABLE_SIZES)), help="table sizes, comma-separated")
    parser.add_argument("--racks", default=",".join(map(str, RACK_SIZES)), help="rack sizes, comma-separated")
    parser.add_argument("--backends", default=None, help="rummikub-solver backends (default: all installed)")
    parser.add_argument("--time-limit", type=float, default=None, help="our solver's time limit per position (s)")
    parser.add_argument("--out", default=None, help="also write the Markdown report to this file")
    args = parser.parse_args(argv)

    backends = args.backends.split(",") if args.backends else available_backends()
    refs = {name: ReferenceSolver(name) for name in backends}
    total = sum(full_pool(STANDARD).values())
    cells, skipped = [], []
    # Warm up: catalogue building (ours) and cvxpy's problem compilation (theirs) are one-off costs.
    warm = deal_position(random.Random(0), 30, 14)
    timed_solve(warm, args.time_limit)
    with quiet_stdout():
        for ref in refs.values():
            ref.solve(warm)
    for table in map(int, args.tables.split(",")):
        for rack in map(int, args.racks.split(",")):
            if table + rack > total:
                skipped.append((table, rack))
                continue
            cells.append(run_cell(table, rack, args.seeds, refs, args.time_limit))
            print(f"done table={table} rack={rack}", file=sys.stderr, flush=True)
    text = report(cells, backends, args.seeds, skipped) + "\n" + weak_spots(refs)
    fewer = [v for c in cells for v in c.fewer_than_ref]
    if fewer:
        text += "\n\n**!!! OUR SOLVER PLACED FEWER TILES THAN THE REFERENCE !!!**\n\n```\n" + "\n".join(fewer) + "\n```"
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return 1 if fewer else 0


if __name__ == "__main__":
    raise SystemExit(main())
