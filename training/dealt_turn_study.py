"""A table and a rack dealt from one set, read apart and together (a study, not a test)::

    python -m training.dealt_turn_study [--editions E ...] [--seed S] [--pairs N] [--size W H] [--next-turn] [--json FILE]

Each pair is one turn of a game: a valid table and a rack dealt from the 106 tiles
(:func:`benchmarks.positions.deal_position`, 15-90 tiles on the table, 5-16 on the rack), drawn as
photos of one edition (:func:`datasets.synth.scenes.compose_scene` with ``deal``: the table from
above, the rack as a rack or a close-up). Both photos are read by :func:`vision.read` as the Play
page reads them, then decoded again together (:func:`vision.pipeline.decode_together`), so that the
copy limits hold over the table and the rack as one game. Counted over the pairs: tiles read right
(of the labelled tiles whose number shows, matched to a read box), tiles the joint decoding put
right and turned wrong, wrong tiles shown as sure, and pairs that hold more copies of a tile than
the game has (what the player was asked to find). The edition kept for choosing
(``selection-heavy``) is the default; the held-out editions are test photos.

``--next-turn``: each turn is the one after a dealt one, whose table the player confirmed: that
table plus 3-12 tiles played since (:func:`benchmarks.positions.random_table` from what is left),
photographed afresh, and a rack from what is left then. A third method decodes it together with
the last turn's table as tiles that never leave it (``on_table_before`` of
:func:`vision.pipeline.decode_together`).
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Sequence

import numpy as np

from benchmarks.positions import deal_position, draw, full_pool, random_table
from datasets.synth.editions import edition
from datasets.synth.scenes import Scene, compose_scene
from solver.rules import STANDARD
from solver.tiles import Tile
from training.evaluate_suite import MIN_NUMBER_VISIBLE
from vision.detections import box_iou
from vision.pipeline import decode_together, read
from vision.reading import Reading

#: A read box shows a labelled tile when they overlap this much.
MATCH_IOU = 0.5


def dealt_scenes(edition_name: str, rng: np.random.Generator, size: tuple[int, int]) -> tuple[Scene, Scene]:
    """One turn's table and rack, dealt from one set and photographed (``size``: width, height)."""
    dealer = random.Random(int(rng.integers(0, 2**31)))
    table_size, rack_size = int(rng.integers(15, 91)), int(rng.integers(5, 17))
    position = deal_position(dealer, table_size, rack_size, STANDARD)
    return _photographed(position.table, position.rack, edition_name, rng, size)


def _photographed(
    melds: Sequence[Sequence[Tile]], rack: Sequence[Tile], edition_name: str, rng: np.random.Generator, size: tuple[int, int]
) -> tuple[Scene, Scene]:
    """A table of ``melds`` photographed from above (tiles 2-4 % of the photo's longer side) and
    ``rack`` as a rack or a close-up, in one edition."""
    kind = (edition(edition_name),)
    width, height = size
    tile_px = float(rng.uniform(0.02, 0.04)) * max(width, height)
    table = compose_scene(rng, width, height, "table", kind, tile_px=tile_px, deal=melds)
    rack_kind = "closeup" if rng.random() < 0.5 else "rack"
    return table, compose_scene(rng, width, height, rack_kind, kind, deal=[rack])


def next_turn_scenes(
    edition_name: str, rng: np.random.Generator, size: tuple[int, int]
) -> tuple[tuple[Tile, ...], Scene, Scene]:
    """The table one turn ago (its tiles, as the player confirmed them), and this turn's table and
    rack: the same tiles plus 3-12 played since, all dealt from one set and photographed afresh."""
    dealer = random.Random(int(rng.integers(0, 2**31)))
    before = deal_position(dealer, int(rng.integers(15, 81)), 0, STANDARD)
    left = full_pool(STANDARD) - Counter(t for meld in before.table for t in meld)
    played, left = random_table(int(rng.integers(3, 13)), left, dealer, STANDARD)
    melds = list(before.table) + list(played)
    dealer.shuffle(melds)
    rack = draw(left, int(rng.integers(5, 17)), dealer)
    table, rack_scene = _photographed(melds, rack, edition_name, rng, size)
    return tuple(t for meld in before.table for t in meld), table, rack_scene


def tiles_right(reading: Reading, scene: Scene) -> tuple[int, int, int]:
    """(tiles read right, wrong tiles shown as sure, labelled tiles whose number shows): each read box
    matched to the labelled tile it overlaps most (at :data:`MATCH_IOU`)."""
    readable = [t for t in scene.tiles if t.number_visible >= MIN_NUMBER_VISIBLE]
    if not readable or not reading.tiles:
        return 0, 0, len(readable)
    overlaps = box_iou(np.array([t.box for t in reading.tiles], np.float32), np.array([t.box for t in readable], np.float32))
    right = sure_wrong = 0
    taken: set[int] = set()
    for i in np.argsort(-overlaps.max(axis=1), kind="stable"):
        j = int(np.argmax(overlaps[i]))
        if overlaps[i, j] < MATCH_IOU or j in taken:
            continue
        taken.add(j)
        if reading.tiles[i].tile == readable[j].tile:
            right += 1
        elif not reading.tiles[i].uncertain:
            sure_wrong += 1
    return right, sure_wrong, len(readable)


def over_limit(readings: Sequence[Reading]) -> bool:
    """Whether the readings together hold more copies of a tile than the game has."""
    counts = Counter(t.tile for r in readings for t in r.tiles)
    return any(n > STANDARD.max_count(tile) for tile, n in counts.items())


def study(edition_name: str, seed: int, pairs: int, size: tuple[int, int], next_turn: bool = False) -> dict:
    """The counts over ``pairs`` turns of ``edition_name``, read apart and together (and, for the
    turn after a confirmed one, together with that turn's table)."""
    rng = np.random.default_rng(seed)
    totals = {"apart": Counter(), "together": Counter()}
    for _ in range(pairs):
        before: tuple[Tile, ...] = ()
        if next_turn:
            before, *scenes = next_turn_scenes(edition_name, rng, size)
        else:
            scenes = list(dealt_scenes(edition_name, rng, size))
        apart = (read(scenes[0].image, "table"), read(scenes[1].image, "rack"))
        methods = {"apart": apart, "together": decode_together(apart, STANDARD)}
        if next_turn:
            methods["with the last table"] = decode_together(apart, STANDARD, on_table_before=before)
        for name, readings in methods.items():
            totals.setdefault(name, Counter())
            for reading, scene in zip(readings, scenes):
                right, sure_wrong, labelled = tiles_right(reading, scene)
                totals[name].update(right=right, sure_wrong=sure_wrong, labelled=labelled, flagged=sum(t.uncertain for t in reading.tiles))
            totals[name]["pairs_over_limit"] += int(over_limit(readings))
        for name, readings in methods.items():
            for first, after, scene in zip(apart, readings, scenes):
                for old, new in zip(first.tiles, after.tiles):
                    if old.tile != new.tile:
                        truth = _truth_at(new.box, scene)
                        totals[name]["changed"] += 1
                        totals[name]["put_right"] += int(truth == new.tile.index)
                        totals[name]["turned_wrong"] += int(truth == old.tile.index)
    return {name: dict(t) for name, t in totals.items()}


def _truth_at(box: tuple[float, ...], scene: Scene) -> int:
    """The labelled tile a read box shows (its index; -1 for none)."""
    if not scene.tiles:
        return -1
    overlaps = box_iou(np.array([box], np.float32), np.array([t.box for t in scene.tiles], np.float32))[0]
    j = int(np.argmax(overlaps))
    return scene.tiles[j].tile.index if overlaps[j] >= MATCH_IOU else -1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("::")[0])
    parser.add_argument("--editions", nargs="*", default=["selection-heavy"], help="editions of datasets.synth.editions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairs", type=int, default=20, help="turns (a table and a rack photo) per edition")
    parser.add_argument("--size", nargs=2, type=int, default=(4000, 3000), metavar=("W", "H"), help="photo size (12 MP)")
    parser.add_argument("--next-turn", action="store_true", help="the turn after one the player confirmed (see above)")
    parser.add_argument("--json", help="also write the report here")
    args = parser.parse_args(argv)
    report = {name: study(name, args.seed, args.pairs, tuple(args.size), args.next_turn) for name in args.editions}
    for name, methods in report.items():
        for method, counts in methods.items():
            print(f"{name} {method}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
