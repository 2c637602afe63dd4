"""Benchmark: our solver alone under the rule sets that change what a move may be.

    python -m benchmarks.variant_benchmark [--seeds N] [--rules standard,four-jokers,repeated-colours] [--out FILE]

Seeded positions (as in :mod:`benchmarks.solver_benchmark`, dealt from each rule set's own
tile set; the player has opened) solved with the tile objective and the solver's default
time limit for the whole move. Per rule set and cell: median, p95 and max time, and how many
answers the time limit cut short (legal, but not proven best). ``rummikub-solver`` takes
neither four jokers nor groups repeating a colour, so nothing is compared here.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from benchmarks.positions import deal_position, full_pool
from benchmarks.solver_benchmark import (
    code_version,
    environment,
    position_seed,
    spread,
    timed_solve,
)
from solver import PRESETS

TABLE_SIZES = (30, 60, 90)
RACK_SIZES = (8, 14, 20)
RULES = ("standard", "four-jokers", "repeated-colours")


def run(rules_name: str, table: int, rack: int, seeds: int) -> str:
    """One report row: times over ``seeds`` positions and the answers not proven best."""
    rules = PRESETS[rules_name]
    times, cut_short = [], 0
    for seed in range(seeds):
        position = deal_position(random.Random(position_seed(seed, table, rack)), table, rack, rules=rules)
        seconds, suggestion = timed_solve(position, None)
        times.append(seconds)
        cut_short += not suggestion.optimal
    return f"| {rules_name} | {table} | {rack} | {spread(times)} | {cut_short} |"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="positions per cell (default 10)")
    parser.add_argument("--rules", default=",".join(RULES), help="rule presets, comma-separated")
    parser.add_argument("--tables", default=",".join(map(str, TABLE_SIZES)), help="table sizes, comma-separated")
    parser.add_argument("--racks", default=",".join(map(str, RACK_SIZES)), help="rack sizes, comma-separated")
    parser.add_argument("--out", default=None, help="also write the Markdown report to this file")
    args = parser.parse_args(argv)
    names = args.rules.split(",")
    unknown = [name for name in names if name not in PRESETS]
    if unknown:
        parser.error(f"unknown rule preset(s): {', '.join(unknown)}; known: {', '.join(PRESETS)}")
    lines = [
        f"Rule variants: {args.seeds} seeded positions per cell, tile objective; times in ms (median / p95 / max).",
        f"Code: {code_version()}. Environment: {environment()}.",
        "",
        "| rules | table | rack | ours | cut short by the time limit |",
        "|---|---:|---:|---|---:|",
    ]
    for name in names:
        tiles = sum(full_pool(PRESETS[name]).values())
        # Warm up: each rule set's candidate catalogue is built once, on its first move.
        timed_solve(deal_position(random.Random(0), 30, 14, rules=PRESETS[name]), None)
        for table in map(int, args.tables.split(",")):
            for rack in map(int, args.racks.split(",")):
                if table + rack <= tiles:
                    lines.append(run(name, table, rack, args.seeds))
                    print(f"done {name} table={table} rack={rack}", file=sys.stderr, flush=True)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
