"""Was a turn legal? Two readings of the table, at the start and at the end of the turn, compared.

A turn is legal when every tile that lay on the table at its start is still there at its end
(tiles may move between melds, never back to a rack), the tiles added are tiles the player
had on their rack, every meld at the end is valid, and, when the turn is the player's initial
meld, the melds already on the table were left alone and the new melds, all from the rack,
reach the threshold. Tiles are matched by kind: two red 7s are interchangeable, so a problem
points at the copies in melds that changed when it can.

Every problem names the tiles it is about as :class:`Spot` values (which reading, which meld,
which position), so that a page can circle them on the photo they were read from.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from .explain import problem_text
from .i18n import DEFAULT_LANGUAGE, TranslatableError, tile_label, tr
from .melds import Problem
from .rules import STANDARD, RuleSet
from .table import check_table, interpret_as_laid
from .tiles import Tile, sorted_tiles

Melds = Sequence[Sequence[Tile]]


class TurnCheckError(TranslatableError, ValueError):
    """The two readings cannot be of one table a turn apart (e.g. photos of two tables)."""


class Side(enum.Enum):
    """Which reading a tile is in."""

    START = "start"
    END = "end"
    RACK = "rack"


@dataclass(frozen=True, order=True)
class Spot:
    """A tile's place in a reading: meld ``meld`` (``0`` for the rack), position ``index``."""

    side: Side
    meld: int
    index: int


class TurnProblemKind(enum.Enum):
    TILE_REMOVED = "tile-removed"
    NOT_ON_RACK = "not-on-rack"
    INVALID_MELD = "invalid-meld"
    COPY_LIMIT = "copy-limit"
    INITIAL_MELD_TOUCHED_TABLE = "initial-meld-touched-table"
    INITIAL_MELD_TOO_LOW = "initial-meld-too-low"
    INITIAL_MELD_JOKER = "initial-meld-joker"
    START_INVALID = "start-invalid"


@dataclass(frozen=True)
class TurnProblem:
    """One thing wrong with the turn, the tiles it is about, and what its message needs."""

    kind: TurnProblemKind
    spots: tuple[Spot, ...]
    tiles: tuple[Tile, ...] = ()
    #: The meld concerned (invalid melds), 0-based in its reading.
    meld: int | None = None
    reasons: tuple[Problem, ...] = ()
    #: What the initial meld is worth, and what it needed.
    points: int = 0
    threshold: int = 0

    def message(self, lang: str = DEFAULT_LANGUAGE) -> str:
        """The problem in words, in ``lang``."""
        tiles = ", ".join(tile_label(t, lang) for t in self.tiles)
        reasons = "; ".join(problem_text(p, lang) for p in self.reasons)
        number = (self.meld or 0) + 1
        texts = {
            TurnProblemKind.TILE_REMOVED: lambda: tr(
                "Taken off the table: {tiles}. Every tile on the table at the start of the turn must still "
                "be there at its end.", lang, tiles=tiles,
            ),
            TurnProblemKind.NOT_ON_RACK: lambda: tr(
                "Added to the table but not on the player's rack: {tiles}.", lang, tiles=tiles,
            ),
            TurnProblemKind.INVALID_MELD: lambda: tr(
                "Meld {number} at the end of the turn is not valid: {reasons}.", lang, number=number, reasons=reasons,
            ),
            TurnProblemKind.COPY_LIMIT: lambda: tr(
                "More copies than the game has at the end of the turn: {tiles}.", lang, tiles=tiles,
            ),
            TurnProblemKind.INITIAL_MELD_TOUCHED_TABLE: lambda: tr(
                "Melds on the table were changed in the turn of the initial meld; the initial meld is made "
                "from the rack alone: {tiles}.", lang, tiles=tiles,
            ),
            TurnProblemKind.INITIAL_MELD_TOO_LOW: lambda: tr(
                "The initial meld is worth {points} points; it needs at least {threshold}.", lang,
                points=self.points, threshold=self.threshold,
            ),
            TurnProblemKind.INITIAL_MELD_JOKER: lambda: tr(
                "These rules allow no joker in the initial meld.", lang,
            ),
            TurnProblemKind.START_INVALID: lambda: tr(
                "Meld {number} at the start of the turn is not valid ({reasons}): check that reading.", lang,
                number=number, reasons=reasons,
            ),
        }
        return texts[self.kind]()

    def __str__(self) -> str:
        return self.message()


@dataclass(frozen=True)
class TurnCheck:
    """What the turn did and what is wrong with it (nothing, when it was legal).

    ``played`` are the tiles added to the table; ``initial_meld_value`` is what the new melds
    are worth when the turn was an initial meld (``None`` otherwise).
    """

    played: tuple[Tile, ...]
    problems: tuple[TurnProblem, ...]
    initial_meld_value: int | None = None

    @property
    def legal(self) -> bool:
        return not self.problems


#: Below this share of the start table's tiles found again at the end, the two readings are
#: taken to be of different tables rather than a turn apart.
SAME_TABLE_SHARE = 0.5


def check_turn(
    start: Melds,
    end: Melds,
    rack: Sequence[Tile] | None = None,
    initial_meld_done: bool = True,
    rules: RuleSet = STANDARD,
) -> TurnCheck:
    """Compare the table at the start of a turn with the table at its end.

    ``rack`` is the player's rack at the start of the turn, when known (then every tile added
    must come from it). ``initial_meld_done`` says whether the player had made the initial meld
    before this turn. Raises :class:`TurnCheckError` when the readings look like two tables.
    """
    start = tuple(tuple(m) for m in start)
    end = tuple(tuple(m) for m in end)
    before, after = Counter(t for m in start for t in m), Counter(t for m in end for t in m)
    _check_same_table(before, after)
    kept_start, kept_end = _unchanged_melds(start, end)
    removed, added = before - after, after - before
    problems: list[TurnProblem] = []
    problems += _start_problems(start, rules)
    if removed:
        tiles = sorted_tiles(removed.elements())
        problems.append(TurnProblem(TurnProblemKind.TILE_REMOVED, _spots(start, Side.START, tiles, kept_start), tiles))
    if rack is not None:
        foreign = sorted_tiles((added - Counter(rack)).elements())
        if foreign:
            problems.append(TurnProblem(TurnProblemKind.NOT_ON_RACK, _spots(end, Side.END, foreign, kept_end), foreign))
    problems += _end_problems(end, kept_end, rules)
    value = None
    if not initial_meld_done and added:
        value, opening = _initial_meld(start, end, kept_start, kept_end, rules)
        problems += opening
    return TurnCheck(sorted_tiles(added.elements()), tuple(problems), value)


def _check_same_table(before: Counter[Tile], after: Counter[Tile]) -> None:
    total = sum(before.values())
    found = sum((before & after).values())
    if total >= 3 and found < SAME_TABLE_SHARE * total:
        raise TurnCheckError(
            "the two readings look like different tables: only {found} of the {total} tiles on the table "
            "at the start of the turn are on it at the end",
            found=found, total=total,
        )


def _unchanged_melds(start: Melds, end: Melds) -> tuple[frozenset[int], frozenset[int]]:
    """Start and end melds paired as the same tiles (in any order): the melds the turn left alone."""
    waiting: dict[tuple[Tile, ...], list[int]] = {}
    for i, meld in enumerate(end):
        waiting.setdefault(sorted_tiles(meld), []).append(i)
    kept_start, kept_end = set(), set()
    for i, meld in enumerate(start):
        match = waiting.get(sorted_tiles(meld))
        if match:
            kept_start.add(i)
            kept_end.add(match.pop(0))
    return frozenset(kept_start), frozenset(kept_end)


def _spots(melds: Melds, side: Side, tiles: Sequence[Tile], prefer_not: frozenset[int]) -> tuple[Spot, ...]:
    """Where copies of ``tiles`` lie in ``melds``, taken first from melds outside ``prefer_not``
    (the ones the turn changed), so a problem points at the likeliest copies."""
    wanted = Counter(tiles)
    found = []
    for m in sorted(range(len(melds)), key=lambda m: m in prefer_not):
        for i, tile in enumerate(melds[m]):
            if wanted[tile] > 0:
                wanted[tile] -= 1
                found.append(Spot(side, m, i))
    return tuple(sorted(found))


def _meld_spots(melds: Melds, side: Side, indices: Sequence[int]) -> tuple[Spot, ...]:
    return tuple(Spot(side, m, i) for m in indices for i in range(len(melds[m])))


def _start_problems(start: Melds, rules: RuleSet) -> list[TurnProblem]:
    """Invalid melds in the first reading: the turn cannot be judged fairly on a misread table."""
    check = check_table(start, rules)
    return [
        TurnProblem(
            TurnProblemKind.START_INVALID, _meld_spots(start, Side.START, [m]), start[m], m, check.melds[m].problems,
        )
        for m in check.invalid
    ]


def _end_problems(end: Melds, kept_end: frozenset[int], rules: RuleSet) -> list[TurnProblem]:
    """Invalid melds and copy limits at the end; an invalid meld left as it was at the start
    is reported once, as the start's."""
    check = check_table(end, rules)
    problems = [
        TurnProblem(TurnProblemKind.INVALID_MELD, _meld_spots(end, Side.END, [m]), end[m], m, check.melds[m].problems)
        for m in check.invalid
        if m not in kept_end
    ]
    if check.over_limit:
        over = set(check.over_limit)
        spots = tuple(Spot(Side.END, m, i) for m, meld in enumerate(end) for i, t in enumerate(meld) if t in over)
        problems.append(TurnProblem(TurnProblemKind.COPY_LIMIT, spots, tuple(check.over_limit)))
    return problems


def _initial_meld(
    start: Melds, end: Melds, kept_start: frozenset[int], kept_end: frozenset[int], rules: RuleSet
) -> tuple[int, list[TurnProblem]]:
    """The initial meld's value (its valid new melds) and what breaks the initial-meld rules."""
    problems = []
    touched = [m for m in range(len(start)) if m not in kept_start]
    if touched:
        tiles = tuple(t for m in touched for t in start[m])
        problems.append(
            TurnProblem(TurnProblemKind.INITIAL_MELD_TOUCHED_TABLE, _meld_spots(start, Side.START, touched), tiles)
        )
    new = [m for m in range(len(end)) if m not in kept_end]
    checks = check_table([end[m] for m in new], rules).melds
    value = sum(interpret_as_laid(end[m], c).value for m, c in zip(new, checks) if c.valid)
    if value < rules.initial_meld_threshold:
        problems.append(
            TurnProblem(
                TurnProblemKind.INITIAL_MELD_TOO_LOW, _meld_spots(end, Side.END, new),
                points=value, threshold=rules.initial_meld_threshold,
            )
        )
    if not rules.jokers_in_initial_meld:
        jokers = tuple(Spot(Side.END, m, i) for m in new for i, t in enumerate(end[m]) if t.is_joker)
        if jokers:
            problems.append(TurnProblem(TurnProblemKind.INITIAL_MELD_JOKER, jokers))
    return value, problems


__all__ = ["Side", "Spot", "TurnCheck", "TurnCheckError", "TurnProblem", "TurnProblemKind", "check_turn"]
