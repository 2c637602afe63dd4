"""The array-based candidate catalogue gives exactly what the plain meld-by-meld one gave.

:mod:`solver.candidates` builds the runs an old meld can grow or split into as packed
integers in numpy arrays and merges candidates with whole-array operations. The reference
below is the straightforward version it replaced (Python loops, one candidate at a time);
on seeded random positions both must produce the same rows, in the same order, with the
same melds, values and joker values.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import pytest

from benchmarks.positions import deal_position
from solver.candidates import (
    MAX_BASE_RUN,
    MAX_EXTENSION,
    Catalogue,
    RunShape,
    base_catalogue,
    catalogue_for,
    joker_value,
    meld_catalogue,
    run_extensions,
    run_pieces,
    usage_of,
)
from solver.melds import Meld, MeldKind, check_meld, run_meld
from solver.rules import PRESETS, STANDARD, RuleSet
from solver.table import check_table, interpret_as_laid
from solver.tiles import JOKER, MAX_NUMBER, NUM_KINDS, Colour, Tile

# The reference: the candidates one at a time ----------------------------------------------


@dataclass(frozen=True)
class Row:
    meld: Meld
    usage: tuple[int, ...]
    value: int
    joker_value: int


@cache
def row_of(meld: Meld) -> Row:
    return Row(meld, tuple(int(x) for x in usage_of(meld)), meld.value, joker_value(meld))


def shape_key(shape: RunShape) -> tuple:
    return shape.colour, shape.start, shape.length, tuple(sorted(shape.jokers))


def reference_extensions(meld: Meld, rules: RuleSet) -> list[RunShape]:
    if any(meld.joker_mask):
        return reference_joker_extensions(meld, rules)
    if meld.kind is not MeldKind.RUN:
        return []
    colour, start, length = meld.represented[0].colour, int(meld.represented[0].number or 0), len(meld)
    end = start + length - 1
    out = []
    for lo in range(max(1, start - MAX_EXTENSION), start + 1):
        for hi in range(end, min(MAX_NUMBER, end + MAX_EXTENSION) + 1):
            added = [n for n in range(lo, hi + 1) if not start <= n <= end]
            if hi - lo + 1 < rules.min_meld_size or len(added) > MAX_EXTENSION:
                continue
            variants: list[list[int]] = [[]] + ([[n] for n in added] if rules.jokers > 0 else [])
            out += [RunShape(colour, lo, hi - lo + 1, tuple(n - lo for n in js)) for js in variants]
    return out


def reference_joker_extensions(meld: Meld, rules: RuleSet) -> list[RunShape]:
    jokers = sum(meld.joker_mask)
    real = [t for t, j in zip(meld.represented, meld.joker_mask) if not j]
    reach = MAX_EXTENSION + jokers
    if meld.kind is MeldKind.RUN:
        cores = [(real[0].colour, tuple(int(t.number or 0) for t in real))]
    else:
        cores = [(t.colour, (int(t.number or 0),)) for t in real]
    out = []
    for colour, core in cores:
        for lo in range(max(1, min(core) - reach), min(core) + 1):
            for hi in range(max(core), min(MAX_NUMBER, max(core) + reach) + 1):
                size = hi - lo + 1
                if size <= MAX_BASE_RUN:
                    continue
                others = [n - lo for n in range(lo, hi + 1) if n not in core]
                for count in range(min(rules.jokers, size - 1) + 1):
                    out += [RunShape(colour, lo, size, js) for js in combinations(others, count)]
    return out


def reference_pieces(meld: Meld) -> list[RunShape]:
    if meld.kind is not MeldKind.RUN or len(meld) <= MAX_BASE_RUN + 1:
        return []
    colour, start, last = meld.represented[0].colour, int(meld.represented[0].number or 0), len(meld)
    last = start + len(meld) - 1
    jokers = sorted(start + i for i, j in enumerate(meld.joker_mask) if j)
    out = []
    for lo in range(start, last + 1):
        for hi in range(lo + MAX_BASE_RUN - 1, last + 1):
            if (lo, hi) == (start, last):
                continue
            for grow_lo, grow_hi in ((lo, hi), (lo - 1, hi), (lo, hi + 1)):
                if grow_hi - grow_lo + 1 <= MAX_BASE_RUN or grow_lo < 1 or grow_hi > MAX_NUMBER:
                    continue
                positions = tuple(n - grow_lo for n in jokers if lo <= n <= hi)
                out.append(RunShape(colour, grow_lo, grow_hi - grow_lo + 1, positions))
    return out


def shape_row(shape: RunShape) -> tuple[tuple[int, ...], int]:
    """Usage and value of a run shape, from its numbers (building every meld is slow)."""
    usage = [0] * NUM_KINDS
    for i in range(shape.length):
        usage[JOKER.index if i in shape.jokers else Tile(shape.colour, shape.start + i).index] += 1
    return tuple(usage), sum(range(shape.start, shape.start + shape.length))


@cache
def reference_part(meld: Meld, rules: RuleSet) -> tuple[Row, ...]:
    """The meld as laid, then its grown runs (tiles merged, most valuable first of equals)."""
    shapes = reference_extensions(meld, rules) + reference_pieces(meld)
    best: dict[tuple[int, ...], tuple[int, int]] = {}
    for k, shape in enumerate(shapes):
        usage, value = shape_row(shape)
        if usage not in best or value > best[usage][1]:
            best[usage] = (k, value)
    own = row_of(meld)
    grown = [row_of(run_meld(s.colour, s.start, s.length, s.jokers)) for s in (shapes[k] for k, _ in sorted(best.values()))]
    return (own, *(row for row in grown if row.usage != own.usage))


def fits(usage: tuple[int, ...], available: list[int]) -> bool:
    return all(u <= a for u, a in zip(usage, available))


def reference_catalogue(rules: RuleSet, available: np.ndarray, old_melds: tuple[Meld, ...]) -> list[Row]:
    base = [row_of(m) for m in base_catalogue(rules).melds]
    tiles = available.tolist()
    keep = [fits(r.usage, tiles) for r in base]
    base_index = {r.usage: k for k, r in enumerate(base)}
    laid = {row_of(m).usage for m in old_melds}
    chosen: dict[tuple[int, ...], Row] = {}
    for meld in old_melds:
        for row in reference_part(meld, rules):
            if not fits(row.usage, tiles):
                continue
            if row.usage in laid and row.meld not in old_melds:
                continue
            if row.usage not in chosen or row.value > chosen[row.usage].value:
                chosen[row.usage] = row
    for usage, row in list(chosen.items()):
        k = base_index.get(usage)
        if k is None or not keep[k]:
            continue
        if usage in laid or row.value > base[k].value:
            keep[k] = False
        else:
            del chosen[usage]
    return [r for r, kept in zip(base, keep) if kept] + list(chosen.values())


def rows_of(catalogue: Catalogue) -> list[Row]:
    usage, values, joker_values = catalogue.usage.tolist(), catalogue.values.tolist(), catalogue.joker_values.tolist()
    rows = [Row(m, tuple(u), v, j) for m, u, v, j in zip(catalogue.melds, usage, values, joker_values)]
    # Each stored row agrees with the meld it holds.
    assert all(r == row_of(r.meld) for r in rows)
    return rows


# Positions ----------------------------------------------------------------------------

RULES = [STANDARD, PRESETS["four-jokers"], PRESETS["repeated-colours"], RuleSet(jokers=0), RuleSet(min_meld_size=4)]


def counts(tiles) -> np.ndarray:
    row = np.zeros(NUM_KINDS, dtype=np.int16)
    for t in tiles:
        row[t.index] += 1
    return row


def dealt(seed: int) -> tuple[RuleSet, tuple[Meld, ...], np.ndarray]:
    """A benchmark position: its old melds as laid and the tiles of table and rack."""
    rng = random.Random(seed)
    rules = RULES[seed % 3]
    position = deal_position(rng, rng.choice([10, 20, 30, 45, 60, 75, 90]), 14, rules)
    check = check_table(position.table, rules)
    old = tuple(interpret_as_laid(m, c) for m, c in zip(position.table, check.melds))
    return rules, old, counts(position.table_tiles) + counts(position.rack)


def random_meld(rng: random.Random, rules: RuleSet) -> Meld:
    """A random valid meld, often long or with several jokers (rarer in dealt positions)."""
    while True:
        jokers = rng.randint(0, rules.jokers)
        if rng.random() < 0.6:
            colour = rng.choice(list(Colour))
            length = rng.randint(rules.min_meld_size, MAX_NUMBER)
            start = rng.randint(1, MAX_NUMBER - length + 1)
            tiles = [Tile(colour, start + i) for i in range(length)]
        else:
            size = rng.randint(rules.min_meld_size, len(Colour))
            number = rng.randint(1, MAX_NUMBER)
            if rules.group_colours_distinct:
                colours = rng.sample(list(Colour), size)
            else:
                colours = [rng.choice(list(Colour)) for _ in range(size)]
            tiles = [Tile(c, number) for c in colours]
        for i in rng.sample(range(len(tiles)), min(jokers, len(tiles) - 1)):
            tiles[i] = JOKER
        check = check_meld(tuple(tiles), rules)
        if check.valid:
            return interpret_as_laid(tiles, check)


def built(seed: int) -> tuple[RuleSet, tuple[Meld, ...], np.ndarray]:
    """Random old melds under any of the rule sets, and a random rack on top."""
    rng = random.Random(seed)
    rules = RULES[seed % len(RULES)]
    old = tuple(random_meld(rng, rules) for _ in range(rng.randint(1, 15)))
    rack = [Tile(rng.choice(list(Colour)), rng.randint(1, MAX_NUMBER)) for _ in range(14)]
    available = sum((usage_of(m) for m in old), counts(rack))
    return rules, old, available


CASES = [("dealt", s) for s in range(30)] + [("built", s) for s in range(30)]


def case(kind: str, seed: int) -> tuple[RuleSet, tuple[Meld, ...], np.ndarray]:
    return dealt(seed) if kind == "dealt" else built(seed)


# Tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind,seed", CASES)
def test_catalogue_for_gives_the_reference_rows_in_order(kind: str, seed: int) -> None:
    rules, old, available = case(kind, seed)
    assert rows_of(catalogue_for(rules, available, old)) == reference_catalogue(rules, available, old)


@pytest.mark.parametrize("kind,seed", CASES[::3])
def test_catalogue_for_a_few_free_melds_gives_the_reference_rows(kind: str, seed: int) -> None:
    # As when only some old melds may change: the rack and their tiles, every old meld given.
    rules, old, available = case(kind, seed)
    rng = random.Random(seed)
    free = rng.sample(old, max(1, len(old) // 3))
    tiles = sum((usage_of(m) for m in free), available - sum(usage_of(m) for m in old))
    assert rows_of(catalogue_for(rules, tiles, old)) == reference_catalogue(rules, tiles, old)


@pytest.mark.parametrize("kind,seed", CASES[::2])
def test_each_old_meld_grows_and_splits_like_the_reference(kind: str, seed: int) -> None:
    rules, old, _ = case(kind, seed)
    for meld in old:
        assert [shape_key(s) for s in run_extensions(meld, rules)] == [
            shape_key(s) for s in reference_extensions(meld, rules)
        ]
        assert [shape_key(s) for s in run_pieces(meld, rules)] == [shape_key(s) for s in reference_pieces(meld)]
        assert rows_of(meld_catalogue(meld, rules)) == list(reference_part(meld, rules))


def test_the_cases_cover_jokers_long_runs_groups_and_rule_variants() -> None:
    melds = [(rules, m) for kind, seed in CASES for rules, old, _ in [case(kind, seed)] for m in old]
    kinds = Counter(
        (m.kind, min(sum(m.joker_mask), 2), len(m) > MAX_BASE_RUN + 1) for _, m in melds
    )
    for kind in MeldKind:
        for jokers in (0, 1, 2):
            assert kinds[(kind, jokers, False)] > 0, (kind, jokers)
    assert kinds[(MeldKind.RUN, 0, True)] > 0 and kinds[(MeldKind.RUN, 1, True)] > 0
    assert any(sum(m.joker_mask) >= 3 for r, m in melds if r.jokers == 4)
    assert any(len({t.colour for t in m.tiles if t != JOKER}) < len(m) - sum(m.joker_mask)
               for r, m in melds if m.kind is MeldKind.GROUP)


def test_another_reading_of_an_old_melds_tiles_gives_way_to_the_meld_as_laid() -> None:
    # k4 k5 k6 grown by a joker below reads [j=k3 k4 k5 k6]; the same tiles lie on the table
    # as k4 k5 k6 j=k7, and that reading is the one kept.
    grown_from = run_meld(Colour.BLACK, 4, 3)
    as_laid = run_meld(Colour.BLACK, 4, 4, [3])
    old = (grown_from, as_laid)
    available = usage_of(grown_from) + usage_of(as_laid)
    catalogue = catalogue_for(STANDARD, available, old)
    same_tiles = [catalogue.melds[k] for k in range(len(catalogue.melds))
                  if np.array_equal(catalogue.usage[k], usage_of(as_laid))]
    assert same_tiles == [as_laid]
    assert rows_of(catalogue) == reference_catalogue(STANDARD, available, old)


def test_an_old_meld_equal_to_another_melds_extension_is_kept_once() -> None:
    short, long = run_meld(Colour.BLUE, 3, 3), run_meld(Colour.BLUE, 3, 4)
    old = (short, long)
    available = usage_of(short) + usage_of(long)
    catalogue = catalogue_for(STANDARD, available, old)
    assert [catalogue.melds[k] for k in range(len(catalogue.melds))].count(long) == 1
    assert rows_of(catalogue) == reference_catalogue(STANDARD, available, old)


def test_grown_runs_stay_shapes_until_looked_at() -> None:
    meld = run_meld(Colour.ORANGE, 2, 4)
    catalogue = meld_catalogue(meld, STANDARD)
    assert catalogue.melds.item(0) == meld
    shapes = [catalogue.melds.item(k) for k in range(1, len(catalogue.melds))]
    assert shapes and all(isinstance(s, RunShape) for s in shapes)
    assert [run_meld(s.colour, s.start, s.length, s.jokers) for s in shapes] == list(catalogue.melds)[1:]
    taken = catalogue.melds.take([2, 0])
    assert list(taken) == [catalogue.melds[2], meld]
    assert catalogue.melds.take(np.array([1])).item(0) == shapes[0]


def test_no_old_melds_gives_the_base_rows_that_fit() -> None:
    available = counts([Tile(Colour.RED, n) for n in range(1, 8)] + [JOKER])
    rows = rows_of(catalogue_for(STANDARD, available, ()))
    assert rows == reference_catalogue(STANDARD, available, ())
    assert rows and all(r.meld.kind is MeldKind.RUN for r in rows)
