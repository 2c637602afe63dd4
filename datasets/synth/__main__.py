"""``python -m datasets.synth --out DIR --count N --seed S [--workers W] [--start K] [--recipe NAME]``: write a synthetic dataset."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from datasets.synth.writer import RECIPES, write_dataset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m datasets.synth", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="output directory (created)")
    parser.add_argument("--count", type=int, default=100, help="number of images")
    parser.add_argument("--seed", type=int, default=0, help="base seed; image i uses rng([seed, i])")
    parser.add_argument("--start", type=int, default=0, help="index of the first image (to extend a set)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--recipe", choices=sorted(RECIPES), default="default",
                        help="what the photos show: default (tables and racks) or generalised (close-ups, grids, editions, distractors)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    try:
        tiles = write_dataset(args.out, args.count, args.seed, workers=args.workers, start=args.start, recipe=RECIPES[args.recipe])
    except ValueError as exc:
        parser.error(str(exc))
    print(f"wrote {args.count} images with {tiles} tiles to {args.out} in {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
