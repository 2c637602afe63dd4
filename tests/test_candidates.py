"""The candidate catalogue is complete: every valid meld the tiles can form, once.

The reference is the independent enumeration of :mod:`tests.exact` (every run of 3-13 tiles
with every joker placement, every group, merged by physical tiles keeping the most valuable
reading), checked against :mod:`tests.oracle`'s meld rules. The relaxations' base catalogue
must cover every longer run: the physical tiles of each split into base runs holding a real
tile, under every rule variant that changes runs.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest

from benchmarks.positions import deal_position
from solver.candidates import (
    RunShape,
    base_catalogue,
    base_run_limit,
    catalogue_for,
    joker_value,
    long_runs_for,
    usage_of,
)
from solver.melds import Meld, MeldKind, run_meld
from solver.rules import PRESETS, STANDARD, RuleSet
from solver.tiles import JOKER, MAX_NUMBER, NUM_KINDS, Colour, Tile
from tests.exact import all_melds, fitting
from tests.oracle import best_value, is_valid_tiles

RULES = [STANDARD, PRESETS["four-jokers"], PRESETS["repeated-colours"], RuleSet(jokers=0), RuleSet(min_meld_size=4)]


def counts(tiles) -> np.ndarray:
    row = np.zeros(NUM_KINDS, dtype=np.int16)
    for t in tiles:
        row[t.index] += 1
    return row


def as_counter(row) -> Counter[Tile]:
    return Counter({Tile.from_index(i): int(n) for i, n in enumerate(row) if n})


def rows(catalogue) -> dict[tuple[int, ...], tuple[int, int]]:
    """Each row's physical tiles -> (value, jokers' worth); each set of tiles once."""
    found: dict[tuple[int, ...], tuple[int, int]] = {}
    for key, value, worth in zip(map(tuple, catalogue.usage.tolist()), catalogue.values.tolist(), catalogue.joker_values.tolist()):
        assert key not in found, f"two rows hold {as_counter(key)}"
        found[key] = (value, worth)
    # The stored numbers are the meld's own (a sample: building every meld is slow).
    for k in random.Random(len(found)).sample(range(len(found)), min(len(found), 150)):
        meld = catalogue.melds[k]
        assert np.array_equal(usage_of(meld), catalogue.usage[k])
        assert (meld.value, joker_value(meld)) == (int(catalogue.values[k]), int(catalogue.joker_values[k]))
    return found


def reference(rules: RuleSet, available: np.ndarray) -> dict:
    """Every meld the tiles can form (tests.exact's enumeration), at its best reading."""
    return {
        tuple(int(x) for x in counts(option.tiles.elements())): (option.value, option.joker_worth)
        for option in fitting(rules, as_counter(available))
    }


def dealt(seed: int):
    rng = random.Random(seed)
    rules = RULES[seed % len(RULES)]
    position = deal_position(rng, rng.choice([0, 10, 30, 60, 90]), rng.choice([5, 14, 20]), rules)
    return rules, position, counts(position.table_tiles) + counts(position.rack)


@pytest.mark.parametrize("seed", range(20))
def test_the_catalogue_is_every_meld_the_tiles_can_form(seed: int) -> None:
    rules, _, available = dealt(seed)
    assert rows(catalogue_for(rules, available)) == reference(rules, available)


@pytest.mark.parametrize("seed", range(0, 20, 4))
def test_with_a_few_free_melds_the_catalogue_is_what_their_tiles_and_the_rack_form(seed: int) -> None:
    rules, position, _ = dealt(seed)
    rng = random.Random(seed)
    free = rng.sample(list(position.table), len(position.table) // 3)
    tiles = counts([t for meld in free for t in meld]) + counts(position.rack)
    assert rows(catalogue_for(rules, tiles)) == reference(rules, tiles)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.name}-{r.jokers}j-min{r.min_meld_size}")
def test_the_reference_enumeration_follows_the_oracles_meld_rules(rules: RuleSet) -> None:
    melds = all_melds(rules)
    assert len({tuple(sorted(m.tiles.items(), key=str)) for m in melds}) == len(melds)
    rng = random.Random(1)
    for option in rng.sample(melds, 300):
        tiles = tuple(option.tiles.elements())
        assert is_valid_tiles(tiles, rules)
        assert option.value == best_value(tiles, rules)


@lru_cache(maxsize=None)
def _splits(reals: frozenset[int], jokers: int, rules: RuleSet) -> bool:
    """Whether a run's physical tiles (real numbers of one colour, jokers) split into base
    runs, each holding a real tile: the lowest real number starts one."""
    if not reals:
        return jokers == 0
    lowest = min(reals)
    for size in range(rules.min_meld_size, base_run_limit(rules) + 1):
        window = sorted(n for n in reals if lowest < n < lowest + size)
        for mask in range(1 << len(window)):
            numbers = {lowest} | {n for i, n in enumerate(window) if mask >> i & 1}
            needed = size - len(numbers)  # jokers filling the run's other numbers
            if 0 <= needed <= jokers and _splits(frozenset(reals - numbers), jokers - needed, rules):
                return True
    return False


@pytest.mark.parametrize(
    "rules",
    [STANDARD, PRESETS["four-jokers"], RuleSet(jokers=0), RuleSet(jokers=3), RuleSet(min_meld_size=4),
     RuleSet(jokers=4, min_meld_size=4)],
    ids=lambda r: f"{r.jokers}j-min{r.min_meld_size}",
)
def test_every_longer_run_splits_into_base_runs(rules: RuleSet) -> None:
    # Why a relaxation over the base catalogue bounds every move (candidates' docstring).
    everything = counts([t for c in Colour for t in [Tile(c, n) for n in range(1, MAX_NUMBER + 1)]] + [JOKER] * rules.jokers)
    long = long_runs_for(rules, everything)
    assert len(long.melds) > 0
    for k in range(len(long.melds)):
        meld = long.melds[k]
        assert len(meld) > base_run_limit(rules)
        reals = frozenset(int(t.number) for t in meld.tiles if not t.is_joker)
        assert _splits(reals, sum(meld.joker_mask), rules), meld


def test_the_base_catalogue_holds_runs_up_to_its_limit_and_groups() -> None:
    sizes = Counter((m.kind, len(m)) for m in base_catalogue(STANDARD).melds)
    assert {n for kind, n in sizes if kind is MeldKind.RUN} == {3, 4, 5}
    assert {n for kind, n in sizes if kind is MeldKind.GROUP} == {3, 4}
    assert base_run_limit(RuleSet(min_meld_size=4)) == 7


def test_a_long_run_is_a_candidate() -> None:
    # The smallest case: r2 r3 r4 r5 r6 r7 is a candidate, so r4..r7 can stay.
    available = usage_of(run_meld(Colour.RED, 2, 9))
    melds = list(catalogue_for(STANDARD, available).melds)
    assert run_meld(Colour.RED, 2, 6) in melds and run_meld(Colour.RED, 4, 7) in melds


def test_a_row_reads_its_jokers_the_way_worth_most() -> None:
    # j k5 k6: k5 k6 k7 (18), not k4 k5 k6 (15), however an old meld of those tiles lies.
    catalogue = catalogue_for(STANDARD, usage_of(run_meld(Colour.BLACK, 4, 3, [0])))
    assert list(catalogue.melds) == [run_meld(Colour.BLACK, 5, 3, [2])]
    assert (int(catalogue.values[0]), int(catalogue.joker_values[0])) == (18, 7)


def test_long_runs_stay_shapes_until_looked_at() -> None:
    available = counts([Tile(Colour.ORANGE, n) for n in range(1, 9)] + [JOKER])
    long = long_runs_for(STANDARD, available)
    shapes = [long.melds.item(k) for k in range(len(long.melds))]
    assert shapes and all(isinstance(s, RunShape) for s in shapes)
    assert [run_meld(s.colour, s.start, s.length, s.jokers) for s in shapes] == list(long.melds)
    taken = long.melds.take([1, 0])
    assert list(taken) == [long.melds[1], long.melds[0]]
    assert all(isinstance(m, Meld) and m.kind is MeldKind.RUN for m in long.melds)


def test_no_tiles_no_candidates() -> None:
    assert len(catalogue_for(STANDARD, np.zeros(NUM_KINDS, np.int16)).melds) == 0
