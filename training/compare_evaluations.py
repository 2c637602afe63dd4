"""Two runs of ``python -m training.evaluate --json`` side by side: what changed, set by set and photo by photo.

A change to a model, a rule or the generator moves a few photos; a set's F1 alone does not say
which, or whether the photos that moved are the ones the change meant to move. This lists every
set both runs read (F1 and tiles read right, before → after) and every photo whose misreads
differ, with its tiles not read right before → after::

    python -m training.compare_evaluations BEFORE.json AFTER.json

A photo is named by its set and file stem, so the two runs must read the same sets under the same
names (a set drawn again keeps its photos' names; what changed in a photo is the run's to say).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SetChange", "PhotoChange", "compare", "format_comparison", "load_report"]


@dataclass(frozen=True)
class SetChange:
    name: str
    tiles: tuple[int, int]
    tiles_right: tuple[int, int]
    f1: tuple[float, float]


@dataclass(frozen=True)
class PhotoChange:
    set_name: str
    photo: str
    #: Labelled tiles not read right (missing from the reading), before and after.
    not_right: tuple[int, int]
    #: Readings of no labelled tile (a wrong tile, a non-tile), before and after.
    extra: tuple[int, int]


_SET_KEYS = ("tiles", "tiles_right", "f1", "errors")


def load_report(path: Path) -> dict:
    """An evaluation report written by ``python -m training.evaluate --json``; a clear error for anything else."""
    try:
        report = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a readable evaluation report ({error})") from error
    if not isinstance(report, dict) or not report or not all(
        isinstance(s, dict) and all(k in s for k in _SET_KEYS) for s in report.values()
    ):
        raise ValueError(f"{path}: not an evaluation report (python -m training.evaluate --json writes one)")
    return report


def _misreads(report_set: Mapping) -> dict[str, tuple[int, int]]:
    return {e["photo"]: (len(e["missing"]), len(e["extra"])) for e in report_set["errors"]}


def compare(before: Mapping, after: Mapping) -> tuple[list[SetChange], list[PhotoChange]]:
    """The sets both reports read, and every photo of them whose misreads differ (a photo read
    without a misread counts 0)."""
    sets, photos = [], []
    for name in (n for n in before if n in after):
        b, a = before[name], after[name]
        sets.append(SetChange(
            name, (int(b["tiles"]), int(a["tiles"])), (int(b["tiles_right"]), int(a["tiles_right"])),
            (float(b["f1"]), float(a["f1"])),
        ))
        old, new = _misreads(b), _misreads(a)
        for photo in sorted(set(old) | set(new)):
            was, now = old.get(photo, (0, 0)), new.get(photo, (0, 0))
            if was != now:
                photos.append(PhotoChange(name, photo, (was[0], now[0]), (was[1], now[1])))
    return sets, photos


def format_comparison(sets: Sequence[SetChange], photos: Sequence[PhotoChange]) -> str:
    lines = ["| set | tiles | tiles read right | tile F1 |", "|---|---|---|---|"]
    for s in sets:
        lines.append(
            f"| {s.name} | {s.tiles[0]} → {s.tiles[1]} | {s.tiles_right[0]} → {s.tiles_right[1]} "
            f"| {s.f1[0]:.4f} → {s.f1[1]:.4f} |"
        )
    lines.append("")
    if not photos:
        lines.append("no photo's misreads changed")
        return "\n".join(lines)
    lines.append(f"photos whose misreads changed: {len(photos)} (tiles not read right, readings of no tile: before → after)")
    for p in photos:
        lines.append(f"  {p.set_name}/{p.photo}: {p.not_right[0]} → {p.not_right[1]}, {p.extra[0]} → {p.extra[1]}")
    worse = sum(max(0, p.not_right[1] - p.not_right[0]) for p in photos)
    better = sum(max(0, p.not_right[0] - p.not_right[1]) for p in photos)
    lines.append(f"tiles not read right on them: {sum(p.not_right[0] for p in photos)} → "
                 f"{sum(p.not_right[1] for p in photos)} (+{worse} on the photos that lost, −{better} on those that gained)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.compare_evaluations", description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    try:
        before, after = load_report(args.before), load_report(args.after)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(format_comparison(*compare(before, after)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
