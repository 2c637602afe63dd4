"""Every sentence about a move, a meld or a tile that both front ends show (the CLI and the app),
in the player's language: written once here, so each has one message id and one translation.

The steps of a move in words a player follows at the table; the move's headline; what makes a
meld invalid; melds and tiles as text.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Protocol, Sequence

from .i18n import DEFAULT_LANGUAGE, colour_name, tile_label, tr
from .melds import Meld, MeldKind, Problem
from .suggestion import RACK, Action, NewMeld, Step, StepKind, Suggestion
from .tiles import NotationError, Tile


def joker_label(stands_for: Tile, lang: str = DEFAULT_LANGUAGE) -> str:
    """A joker with the tile it stands for: ``joker (red 11)``."""
    return tr("joker ({tile})", lang, tile=tile_label(stands_for, lang))


def meld_tiles_label(meld: Meld, lang: str = DEFAULT_LANGUAGE, marked: Sequence[bool] = ()) -> str:
    """Every tile of the meld in order, jokers with what they stand for, a ``*`` after each
    ``marked`` one: ``[red 9*, red 10*, joker (red 11)]``."""
    parts = []
    for i, (tile, is_joker) in enumerate(zip(meld.represented, meld.joker_mask)):
        label = joker_label(tile, lang) if is_joker else tile_label(tile, lang)
        parts.append(label + ("*" if i < len(marked) and marked[i] else ""))
    return "[" + ", ".join(parts) + "]"


def meld_label(meld: Meld, lang: str = DEFAULT_LANGUAGE) -> str:
    """``[red 4 5 6]`` for a run, ``[black 5, blue 5, joker (orange 5)]`` for a group."""
    if meld.kind is MeldKind.RUN and not any(meld.joker_mask):
        first = meld.represented[0]
        numbers = " ".join(str(t.number) for t in meld.represented)
        return f"[{colour_name(first, lang, plural=True)} {numbers}]"
    return meld_tiles_label(meld, lang)


def new_meld_label(new: NewMeld, lang: str = DEFAULT_LANGUAGE) -> str:
    """A meld of the new table, a ``*`` after each tile that comes from the rack."""
    return meld_tiles_label(new.meld, lang, [source == RACK for source in new.sources])


def tiles_label(tiles: Sequence[Tile], lang: str = DEFAULT_LANGUAGE) -> str:
    return ", ".join(tile_label(t, lang) for t in tiles)


def play_summary(suggestion: Suggestion, lang: str = DEFAULT_LANGUAGE) -> str:
    """The move's headline: ``Play 3 tile(s) worth 24 points: red 9, red 10, blue 5``."""
    return tr(
        "Play {count} tile(s) worth {points} points: {tiles}", lang,
        count=suggestion.tiles_placed, points=suggestion.value_placed, tiles=tiles_label(suggestion.played, lang),
    )


class ReadAs(Protocol):
    """A tile as a photo was read: what it is taken for, and whether the reader was unsure."""

    tile: Tile
    uncertain: bool


def unsure_tiles_in_move(
    melds: Sequence[Sequence[ReadAs]], rack: Sequence[ReadAs], suggestion: Suggestion
) -> tuple[Tile, ...]:
    """The tiles marked unsure that ``suggestion`` relies on, so the player checks them first.

    ``melds`` are the table's melds as read (the suggestion's old melds, in order), ``rack`` the
    rack. A move relies on every tile of the melds it changes (:attr:`Suggestion.touched_melds`)
    and on the rack tiles it plays; of a rack tile it plays ``k`` copies of, the unsure copies
    count only beyond the sure ones (two red 5s, one unsure: a move playing one red 5 can play
    the sure one). Table tiles first, in meld order, then the rack's.
    """
    table = [t.tile for m in suggestion.touched_melds for t in melds[m] if t.uncertain]
    wanted = Counter(suggestion.played)
    sure = Counter(t.tile for t in rack if not t.uncertain)
    unsure = Counter(t.tile for t in rack if t.uncertain)
    relied = [tile for tile in unsure for _ in range(min(max(wanted[tile] - sure[tile], 0), unsure[tile]))]
    return tuple(table + relied)


def unsure_move_text(tiles: Iterable[Tile], lang: str = DEFAULT_LANGUAGE) -> str:
    """The warning that a move relies on tiles the reader was unsure of."""
    return tr(
        "This move relies on tiles marked unsure: {tiles}. Check them on the table before you play.", lang,
        tiles=", ".join(tile_label(t, lang) for t in tiles),
    )


def no_move_text(lang: str = DEFAULT_LANGUAGE) -> str:
    return tr("No legal move: draw a tile.", lang)


def time_limit_note(lang: str = DEFAULT_LANGUAGE) -> str:
    """Said under a move the solver could not prove best in its time (``optimal`` false)."""
    return tr("The search stopped at its time limit: this move is legal but may not be the best.", lang)


def impossible_tiles_text(tiles: Sequence[Tile], lang: str = DEFAULT_LANGUAGE) -> str:
    """Tiles of which a position holds more copies than the game has."""
    return tr("Impossible tiles: more copies of {tiles} than the game has.", lang, tiles=tiles_label(tiles, lang))


def notation_error_text(err: NotationError, lang: str = DEFAULT_LANGUAGE) -> str:
    """A typed tile that is not notation, quoted: ``cannot read tile 'x9' (unknown colour)``."""
    return tr("cannot read tile {token!r} ({reason})", lang, token=err.token, reason=tr(err.reason, lang))


def _source_label(source: int, old_melds: Sequence[Meld], lang: str) -> str:
    if source == RACK:
        return tr("your rack", lang)
    return meld_label(old_melds[source], lang)


def describe_step(step: Step, suggestion: Suggestion, lang: str = DEFAULT_LANGUAGE) -> str:
    old_melds = suggestion.old_melds
    target = meld_label(suggestion.new_table[step.target].meld, lang)
    rack_tiles = tuple(t for s, ts in step.parts if s == RACK for t in ts)
    if step.kind is StepKind.LAY_DOWN:
        return tr("Lay down {meld} from your rack.", lang, meld=target)
    assert step.kind is StepKind.REARRANGE or step.old is not None
    if step.kind is StepKind.ADD:
        return tr(
            "Add your {tiles} to {old}: {new}.", lang,
            tiles=tiles_label(rack_tiles, lang), old=meld_label(old_melds[step.old], lang), new=target,
        )
    if step.kind is StepKind.SPLIT:
        return tr(
            "Split {old}: leave {new} in place; its other tiles go to the melds below.", lang,
            old=meld_label(old_melds[step.old], lang), new=target,
        )
    others = [
        tr("{tiles} from {source}", lang, tiles=tiles_label(ts, lang), source=_source_label(s, old_melds, lang))
        for s, ts in step.parts
        if s != step.old
    ]
    if step.kind is StepKind.REPLACE_JOKER:
        return tr(
            "Replace the joker in {old} with {parts}: {new}. Play the freed joker as shown in the other steps.",
            lang, old=meld_label(old_melds[step.old], lang), parts="; ".join(others), new=target,
        )
    if step.old is not None:
        return tr(
            "Change {old} into {new}, bringing in {parts}.", lang,
            old=meld_label(old_melds[step.old], lang), new=target, parts="; ".join(others) or tr("nothing", lang),
        )
    return tr("Make {new} from {parts}.", lang, new=target, parts="; ".join(others))


def describe_steps(suggestion: Suggestion, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """Every step of the move in order, or the single instruction to draw."""
    if suggestion.action is Action.DRAW:
        return [no_move_text(lang)]
    return [describe_step(s, suggestion, lang) for s in suggestion.steps]


def problem_text(problem: Problem, lang: str = DEFAULT_LANGUAGE) -> str:
    """Why a meld is invalid, in words."""
    texts = {
        Problem.TOO_FEW_TILES: tr("a meld needs at least 3 tiles", lang),
        Problem.ONLY_JOKERS: tr("a meld needs at least one tile that is not a joker", lang),
        Problem.MIXED: tr("neither a run (one colour) nor a group (one number)", lang),
        Problem.RUN_TOO_LONG: tr("a run has at most 13 tiles", lang),
        Problem.RUN_DUPLICATE_NUMBER: tr("a run cannot hold the same number twice", lang),
        Problem.RUN_GAP: tr("the run has a gap that its jokers cannot fill", lang),
        Problem.RUN_OFF_THE_END: tr("the run would go below 1 or above 13", lang),
        Problem.GROUP_REPEATED_COLOUR: tr("a group cannot hold the same colour twice", lang),
        Problem.GROUP_TOO_BIG: tr("a group has at most 4 tiles", lang),
    }
    return texts[problem]
