"""Assembling the answer: the optimiser's new melds turned into the new table, the source of
every tile, the steps and the figures a :class:`Suggestion` reports; or drawing."""

from __future__ import annotations

from collections import Counter

from .candidates import joker_value
from .melds import Meld
from .mip import SolverError
from .problem import Outcome, Problem, value_placed
from .position import Objective, Position
from .steps import build_steps
from .suggestion import RACK, Action, NewMeld, Suggestion
from .tiles import NUM_KINDS, kind_counts


def draw(
    position: Position, objective: Objective, old_melds: tuple[Meld, ...], optimal: bool = True
) -> Suggestion:
    """Nothing to play (or nothing worth playing): the table stays, every meld untouched."""
    table = tuple(NewMeld(m, (i,) * len(m), i, unchanged=True) for i, m in enumerate(old_melds))
    return Suggestion(position, objective, Action.DRAW, (), table, (), len(old_melds), 0, 0, optimal, old_melds)


def assemble(position: Position, objective: Objective, problem: Problem, outcome: Outcome) -> Suggestion:
    """Turn the optimiser's new melds into the new table with the source of every tile."""
    old_melds = problem.old_melds
    instances: list[tuple[Meld, int | None]] = [(m, owner) for owner, m in sorted(outcome.continued, key=lambda p: p[0])]
    instances += [(m, None) for m in outcome.fresh]
    # Tile counts are lists indexed by Tile.index (kind_counts): Counters hashed every tile.
    # Tiles each free old meld still has to give away after its continuation keeps its share.
    leftovers: dict[int, list[int]] = {i: kind_counts(old_melds[i].tiles) for i in problem.free}
    staying: list[list[int]] = []
    for meld, owner in instances:
        keep = [0] * NUM_KINDS
        if owner is not None:
            left = leftovers[owner]
            for tile in meld.tiles:
                if left[tile.index] > 0:
                    left[tile.index] -= 1
                    keep[tile.index] += 1
        staying.append(keep)
    rack_left = kind_counts(position.rack)
    free = set(problem.free)
    new_table = [
        NewMeld(m, (i,) * len(m), i, unchanged=True) for i, m in enumerate(old_melds) if i not in free
    ]
    for (meld, owner), keep in zip(instances, staying):
        unchanged = owner is not None and kind_counts(meld.tiles) == kind_counts(old_melds[owner].tiles)
        if unchanged:
            assert owner is not None
            meld = old_melds[owner]  # untouched: keep its own order and joker values
        sources = []
        for tile in meld.tiles:
            kind = tile.index
            if keep[kind] > 0:
                keep[kind] -= 1
                sources.append(owner)
                continue
            donor = next((i for i, left in leftovers.items() if left[kind] > 0), None)
            if donor is not None:
                leftovers[donor][kind] -= 1
                sources.append(donor)
            elif rack_left[kind] > 0:
                rack_left[kind] -= 1
                sources.append(RACK)
            else:
                raise SolverError(f"no source for {tile.name}")
        new_table.append(NewMeld(meld, tuple(int(s) for s in sources), owner, unchanged))
    if any(any(left) for left in leftovers.values()):
        raise SolverError("a table tile was left off the new table")
    played = tuple(t for nm in new_table for t, s in zip(nm.meld.tiles, nm.sources) if s == RACK)
    new_table.sort(key=_table_order)
    table = tuple(new_table)
    untouched = sum(1 for nm in table if nm.unchanged)
    moved = sum(1 for nm in table for s in nm.sources if s != RACK and s != nm.continues)
    joker_gain = sum(joker_value(nm.meld) for nm in table) - sum(joker_value(m) for m in old_melds)
    value = value_placed(dict(Counter(t.index for t in played)), joker_gain)
    return Suggestion(
        position, objective, Action.PLAY, played, table, build_steps(table, old_melds),
        untouched, moved, value, outcome.optimal, old_melds,
    )


def _table_order(nm: NewMeld) -> tuple[int, int, int]:
    """Old melds first in their old order, then new melds by their first tile."""
    if nm.continues is not None:
        return (0, nm.continues, 0)
    return (1, nm.meld.represented[0].index, len(nm.meld))
