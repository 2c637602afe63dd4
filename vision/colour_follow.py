"""When the player changes a tile's colour, the tiles of the same photo that look as much like that colour follow it.

    colour_followers(probs, labels, changed, new, fixed) -> ((index, tile), ...)

Why: a reader that takes a set's dark navy blue for black, or its yellow-orange for red, does so
for most tiles of that colour in the photo, so a player who corrects a blue 7 read as black 7 would
go on to correct the blue 3, 9 and 11 read as black one by one. The player's correction says how
much blue evidence a tile of this photo can show and still be read black: the corrected tile's
odds of blue against black under the reader (its probabilities for the same number in the two
colours). Every other tile of the photo read in the old colour whose odds for its own number in
the new colour are at least as good changes with it: it looks at least as blue as the tile the
player called blue. Nothing else is read again (decoding the whole photo again let the rules
"repair" melds around the corrected tile and turned right tiles wrong), the copy limits hold (the
likeliest followers first), and a tile the player already set is never changed, nor one that
followed before (the caller passes both as ``fixed``: correcting a follower back would otherwise
move the right followers back with it). On photos whose tiles are small the reader's colour
evidence is mostly noise, so nothing follows there (:data:`vision.reading.SMALL_TILE_NOTE_PX`, the
length below which a reading already says its tiles are too small).

Measured by a simulated player who corrects a photo's first wrong tile, lets the others follow,
and so on until nothing is wrong (``python -m training.colour_follow_study``; ``models/reader.md``,
"A colour change followed").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

import numpy as np

from solver.rules import STANDARD, RuleSet
from solver.tiles import NUM_KINDS, Tile
from vision.reading import SMALL_TILE_NOTE_PX

__all__ = ["colour_followers", "is_colour_change"]

#: Probabilities below this count as this (a ratio of two zeros says nothing).
_FLOOR = 1e-12


def is_colour_change(read: Tile, new: Tile) -> bool:
    """Whether setting a tile read as ``read`` to ``new`` changes its colour only (same number, no joker)."""
    return not read.is_joker and not new.is_joker and read.number == new.number and read.colour != new.colour


def colour_followers(
    probs: np.ndarray,
    labels: Sequence[int],
    changed: int,
    new: Tile,
    fixed: Collection[int] = (),
    tile_px: float | None = None,
    rules: RuleSet = STANDARD,
) -> tuple[tuple[int, Tile], ...]:
    """The tiles of one photo that follow the player's change of tile ``changed`` to ``new``.

    ``probs`` (n, 53) are the reader's probabilities of the photo's tiles as decoding saw them,
    ``labels`` (n,) the tile indices they are shown as now (``changed``'s: as it was read, before
    the change); ``fixed`` are tiles the player has set, which never follow; ``tile_px`` is how long
    the photo's tiles are (none followed when under :data:`SMALL_TILE_NOTE_PX`). Returns (index,
    tile) per follower, likeliest first; none when the change is not one of colour alone.
    """
    probs = np.asarray(probs, np.float64)
    if probs.ndim != 2 or probs.shape[1] != NUM_KINDS:
        raise ValueError(f"expected (tiles, {NUM_KINDS}) probabilities, got shape {probs.shape}")
    if len(labels) != len(probs):
        raise ValueError(f"{len(labels)} labels for {len(probs)} tiles")
    if not 0 <= changed < len(probs):
        raise ValueError(f"tile {changed} is not on a photo of {len(probs)} tiles")
    read = Tile.from_index(int(labels[changed]))
    if not is_colour_change(read, new) or (tile_px is not None and tile_px < SMALL_TILE_NOTE_PX):
        return ()
    anchor = probs[changed, new.index] / max(probs[changed, read.index], _FLOOR)
    candidates = []
    for i, label in enumerate(labels):
        shown = Tile.from_index(int(label))
        if i == changed or i in fixed or shown.is_joker or shown.colour != read.colour:
            continue
        follow = Tile(new.colour, shown.number)
        odds = probs[i, follow.index] / max(probs[i, shown.index], _FLOOR)
        if odds >= anchor:
            candidates.append((odds, i, follow))
    counts = Counter(int(label) for label in labels)
    counts[read.index] -= 1
    counts[new.index] += 1
    followers = []
    for _, i, follow in sorted(candidates, key=lambda c: -c[0]):
        if counts[follow.index] >= rules.max_count(follow):
            continue
        counts[int(labels[i])] -= 1
        counts[follow.index] += 1
        followers.append((i, follow))
    return tuple(followers)
