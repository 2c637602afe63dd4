"""An independent legality checker for solver suggestions.

It re-implements the meld rules in a few plain lines instead of importing
:mod:`solver.melds` or :mod:`solver.search`, so a bug in the solver's own meld logic shows
up here as a disagreement rather than being checked against itself.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Iterable, Sequence

from solver.rules import RuleSet
from solver.position import Position
from solver.suggestion import RACK, Action, NewMeld, StepKind, Suggestion
from solver.tiles import JOKER, Colour, Tile

COLOURS = tuple(Colour)
LOWEST, HIGHEST = 1, 13


def is_run(represented: Sequence[Tile]) -> bool:
    """Same colour, consecutive ascending numbers in table order, inside 1-13."""
    numbers = [t.number for t in represented]
    return (
        len({t.colour for t in represented}) == 1
        and None not in numbers
        and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        and LOWEST <= numbers[0]
        and numbers[-1] <= HIGHEST
    )


def is_group(represented: Sequence[Tile], rules: RuleSet) -> bool:
    """Same number, at most one tile per colour (unless the rules allow repeats), at most 4."""
    colours = [t.colour for t in represented]
    distinct_ok = len(set(colours)) == len(colours) or not rules.group_colours_distinct
    return (
        len({t.number for t in represented}) == 1
        and None not in colours
        and len(represented) <= len(COLOURS)
        and distinct_ok
    )


def is_valid_interpretation(represented: Sequence[Tile], joker_mask: Sequence[bool], rules: RuleSet) -> bool:
    """A fully declared meld is legal: long enough, not all jokers, and a run or a group."""
    return (
        len(represented) >= rules.min_meld_size
        and not all(joker_mask)
        and (is_run(represented) or is_group(represented, rules))
    )


def interpretations(tiles: Sequence[Tile], rules: RuleSet) -> list[tuple[Tile, ...]]:
    """Every sorted tuple of tiles that ``tiles`` (any order, jokers free) can stand for."""
    real = [t for t in tiles if not t.is_joker]
    jokers = len(tiles) - len(real)
    if len(tiles) < rules.min_meld_size or not real:
        return []
    found: set[tuple[Tile, ...]] = set()
    colour = real[0].colour
    for start in range(LOWEST, HIGHEST - len(tiles) + 2):
        run = tuple(Tile(colour, n) for n in range(start, start + len(tiles)))
        if not Counter(real) - Counter(run) and is_run(run):
            found.add(run)
    number = real[0].number
    for fill in product(COLOURS, repeat=jokers):
        group = tuple(sorted((*(t.colour for t in real), *fill), key=lambda c: c.index))
        candidate = tuple(Tile(c, number) for c in group)
        if all(t.number == number for t in real) and is_group(candidate, rules):
            found.add(candidate)
    return sorted(found, key=lambda m: [t.index for t in m])


def is_valid_tiles(tiles: Sequence[Tile], rules: RuleSet) -> bool:
    return bool(interpretations(tiles, rules))


def best_value(tiles: Sequence[Tile], rules: RuleSet) -> int:
    """Points of the meld under its most valuable interpretation (jokers count as what they stand for)."""
    return max((sum(int(t.number or 0) for t in m) for m in interpretations(tiles, rules)), default=0)


def tile_counts(tiles: Iterable[Tile]) -> Counter[Tile]:
    return Counter(tiles)


def _meld_tiles(new: NewMeld) -> tuple[Tile, ...]:
    return tuple(JOKER if j else t for t, j in zip(new.meld.represented, new.meld.joker_mask))


def _rack_value(new: NewMeld) -> int:
    return sum(int(t.number or 0) for t, s in zip(new.meld.represented, new.sources) if s == RACK)


def violations(position: Position, suggestion: Suggestion) -> list[str]:
    """Everything illegal or inconsistent about ``suggestion`` for ``position``; empty when legal."""
    rules = position.rules
    old = position.table
    problems: list[str] = []
    if suggestion.position != position:
        problems.append("suggestion answers a different position")
    rack = Counter(position.rack)
    played = Counter(suggestion.played)
    if played - rack:
        problems.append(f"plays tiles not on the rack: {sorted(t.name for t in (played - rack).elements())}")

    if suggestion.action is Action.DRAW:
        if suggestion.played:
            problems.append("a draw plays no tiles")
        new_tiles = Counter(t for m in suggestion.new_table for t in _meld_tiles(m))
        if suggestion.new_table and new_tiles != Counter(position.table_tiles):
            problems.append("a draw changes the table")
        return problems
    if not suggestion.played:
        problems.append("a play with no tiles played")

    new_tiles: Counter[Tile] = Counter()
    from_old: list[Counter[Tile]] = [Counter() for _ in old]
    from_rack: Counter[Tile] = Counter()
    continued: Counter[int] = Counter()
    moved = 0
    for k, new in enumerate(suggestion.new_table):
        meld = new.meld
        tiles = _meld_tiles(new)
        new_tiles.update(tiles)
        if len(new.sources) != len(tiles):
            problems.append(f"meld {k}: {len(new.sources)} sources for {len(tiles)} tiles")
            continue
        if not is_valid_interpretation(meld.represented, meld.joker_mask, rules):
            problems.append(f"meld {k} is not a legal run or group: {[t.name for t in meld.represented]}")
        for t, j in zip(meld.represented, meld.joker_mask):
            if t.is_joker:
                problems.append(f"meld {k}: a joker must state the tile it stands for")
        if new.continues is not None:
            if not 0 <= new.continues < len(old):
                problems.append(f"meld {k} continues a meld that does not exist: {new.continues}")
            continued[new.continues] += 1
        for tile, source in zip(tiles, new.sources):
            if source == RACK:
                from_rack[tile] += 1
            elif 0 <= source < len(old):
                from_old[source][tile] += 1
                if source != new.continues:
                    moved += 1
            else:
                problems.append(f"meld {k}: unknown source {source}")

    over = sorted(t.name for t, n in new_tiles.items() if n > rules.max_count(t))
    if over:
        problems.append(f"more copies on the table than the game has: {over}")
    if new_tiles != Counter(position.table_tiles) + played:
        lost = Counter(position.table_tiles) + played - new_tiles
        extra = new_tiles - (Counter(position.table_tiles) + played)
        problems.append(
            f"new table is not old table + played: missing {sorted(t.name for t in lost.elements())}, "
            f"extra {sorted(t.name for t in extra.elements())}"
        )
    if from_rack != played:
        problems.append("tiles sourced from the rack differ from the tiles played")
    for i, meld in enumerate(old):
        if from_old[i] != Counter(meld):
            problems.append(f"old meld {i}: its tiles are not all accounted for in the new table")
    for i, n in continued.items():
        if n > 1:
            problems.append(f"old meld {i} is continued by {n} new melds")
    if moved != suggestion.tiles_moved:
        problems.append(f"tiles_moved says {suggestion.tiles_moved}, the sources say {moved}")
    untouched = sum(
        1
        for new in suggestion.new_table
        if new.continues is not None
        and all(s == new.continues for s in new.sources)
        and 0 <= new.continues < len(old)
        and Counter(_meld_tiles(new)) == Counter(old[new.continues])
    )
    if untouched != suggestion.melds_untouched:
        problems.append(f"melds_untouched says {suggestion.melds_untouched}, the table says {untouched}")
    problems.extend(_value_violations(position, suggestion))
    if not position.initial_meld_done:
        problems.extend(_initial_meld_violations(position, suggestion))
    problems.extend(_step_violations(position, suggestion))
    return problems


def _joker_worth(represented: Sequence[Tile], joker_mask: Sequence[bool]) -> int:
    return sum(int(t.number or 0) for t, j in zip(represented, joker_mask) if j)


def _old_joker_worth_range(meld: Sequence[Tile], rules: RuleSet) -> tuple[int, int]:
    """Least and most the jokers of an old meld can stand for (the laid order picks one)."""
    real = Counter(t for t in meld if not t.is_joker)
    worths = [sum(int(t.number or 0) for t in (Counter(rep) - real).elements()) for rep in interpretations(meld, rules)]
    return min(worths, default=0), max(worths, default=0)


def _value_violations(position: Position, suggestion: Suggestion) -> list[str]:
    """``value_placed``: the rack's numbered tiles at face value, plus what the rack jokers stand for.

    A rack joker is credited with the growth of the jokers' worth on the table, at most 13 per
    rack joker, so re-reading a table joker is never value placed. Exact without table jokers
    (or without rack jokers); with both, the old jokers' laid values are only known as a range.
    """
    rules = position.rules
    played = Counter(suggestion.played)
    numbered = sum(int(t.number or 0) * n for t, n in played.items() if not t.is_joker)
    cap = 13 * played[JOKER]
    new_worth = sum(_joker_worth(new.meld.represented, new.meld.joker_mask) for new in suggestion.new_table)
    ranges = [_old_joker_worth_range(meld, rules) for meld in position.table]
    low = numbered + max(0, min(cap, new_worth - sum(hi for _, hi in ranges)))
    high = numbered + max(0, min(cap, new_worth - sum(lo for lo, _ in ranges)))
    if not low <= suggestion.value_placed <= high:
        return [f"value_placed says {suggestion.value_placed}, the rack tiles are worth {low}..{high}"]
    return []


def _initial_meld_violations(position: Position, suggestion: Suggestion) -> list[str]:
    """Opening: old melds untouched, new melds from the rack only, worth the threshold."""
    problems = []
    rules = position.rules
    worth = 0
    for k, new in enumerate(suggestion.new_table):
        if all(s == RACK for s in new.sources):
            worth += sum(int(t.number or 0) for t in new.meld.represented)
            if not rules.jokers_in_initial_meld and any(new.meld.joker_mask):
                problems.append(f"meld {k}: jokers are not allowed in the initial meld under these rules")
        elif RACK in new.sources or len(set(new.sources)) != 1:
            problems.append(f"meld {k}: the initial meld may not touch the table")
    if worth < rules.initial_meld_threshold:
        problems.append(f"initial meld worth {worth} < threshold {rules.initial_meld_threshold}")
    if suggestion.melds_untouched != len(position.table):
        problems.append("the initial meld must leave every table meld untouched")
    return problems


def _step_violations(position: Position, suggestion: Suggestion) -> list[str]:
    """Every changed or new meld has a step whose parts are exactly its tiles by source."""
    problems = []
    steps_by_target: dict[int, list] = {}
    for step in suggestion.steps:
        steps_by_target.setdefault(step.target, []).append(step)
        if not 0 <= step.target < len(suggestion.new_table):
            problems.append(f"step targets a meld that does not exist: {step.target}")
    for k, new in enumerate(suggestion.new_table):
        if new.unchanged and Counter(_meld_tiles(new)) == Counter(position.table[new.continues]):
            continue
        steps = steps_by_target.get(k, [])
        if len(steps) != 1:
            problems.append(f"new meld {k} has {len(steps)} steps, expected 1")
            continue
        parts: Counter[tuple[int, Tile]] = Counter()
        for source, tiles in steps[0].parts:
            parts.update((source, t) for t in tiles)
        expected = Counter(zip(new.sources, _meld_tiles(new)))
        if parts != expected:
            problems.append(f"step for meld {k} lists other tiles than the meld's sources")
        problems.extend(_step_kind_violations(position, new, steps[0], k))
    return problems


def _step_kind_violations(position: Position, new: NewMeld, step, k: int) -> list[str]:
    """The step's kind and old meld agree with where the meld's tiles come from."""
    sources = set(new.sources)
    if step.old != new.continues:
        return [f"step for meld {k} names old meld {step.old}, the meld continues {new.continues}"]
    if step.kind is StepKind.LAY_DOWN and sources != {RACK}:
        return [f"step for meld {k} says lay down, but not every tile comes from the rack"]
    if step.kind is StepKind.ADD:
        kept = Counter(t for t, s in zip(_meld_tiles(new), new.sources) if s == new.continues)
        whole = new.continues is not None and kept == Counter(position.table[new.continues])
        if not whole or not sources <= {new.continues, RACK} or RACK not in sources:
            return [f"step for meld {k} says add, but it is not a whole old meld plus rack tiles"]
    return []


def assert_legal(position: Position, suggestion: Suggestion) -> None:
    problems = violations(position, suggestion)
    assert not problems, "illegal suggestion:\n  " + "\n  ".join(problems)

