"""From the old table to the new one: one step per changed or new meld, in a playable order."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from .melds import Meld
from .suggestion import RACK, NewMeld, Step, StepKind
from .tiles import Tile


def _parts(nm: NewMeld) -> tuple[tuple[int, tuple[Tile, ...]], ...]:
    """Tiles of ``nm`` grouped by where they come from: its own old meld first, the rack last."""
    by_source: dict[int, list[Tile]] = {}
    for tile, source in zip(nm.meld.tiles, nm.sources):
        by_source.setdefault(source, []).append(tile)
    order = sorted(by_source, key=lambda s: (s != nm.continues, s == RACK, s))
    return tuple((s, tuple(by_source[s])) for s in order)


def _kind(nm: NewMeld, old: Meld | None) -> StepKind:
    sources = set(nm.sources)
    if nm.continues is None:
        return StepKind.LAY_DOWN if sources == {RACK} else StepKind.REARRANGE
    assert old is not None
    kept = Counter(t for t, s in zip(nm.meld.tiles, nm.sources) if s == nm.continues)
    lost = Counter(old.tiles) - kept
    if sources <= {nm.continues, RACK} and not lost:
        return StepKind.ADD
    if sources == {nm.continues}:
        return StepKind.SPLIT
    lost_real = {t for t in lost if not t.is_joker}
    if lost and not lost_real and set(old.jokers) & set(nm.meld.tiles):
        return StepKind.REPLACE_JOKER
    return StepKind.REARRANGE


def build_steps(table: Sequence[NewMeld], old_melds: Sequence[Meld]) -> tuple[Step, ...]:
    """Steps for every meld that is not an untouched old meld.

    Order: first the melds that give tiles away or free a joker (so the tiles are in hand),
    then the melds that only take tiles, then melds laid fresh from the rack.
    """
    steps = []
    for index, nm in enumerate(table):
        if nm.unchanged:
            continue
        old = old_melds[nm.continues] if nm.continues is not None else None
        steps.append(Step(_kind(nm, old), index, nm.continues, _parts(nm)))
    rank = {
        StepKind.SPLIT: 0, StepKind.REPLACE_JOKER: 1, StepKind.REARRANGE: 2, StepKind.ADD: 3, StepKind.LAY_DOWN: 4,
    }
    steps.sort(key=lambda s: (rank[s.kind], s.target))
    return tuple(steps)
