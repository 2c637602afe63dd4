"""Steps of a move in words a player follows at the table, in the player's language."""

from __future__ import annotations

from typing import Sequence

from .i18n import DEFAULT_LANGUAGE, colour_name, tile_label, tr
from .melds import Meld, MeldKind, Problem
from .suggestion import RACK, Action, Step, StepKind, Suggestion
from .tiles import Tile


def meld_label(meld: Meld, lang: str = DEFAULT_LANGUAGE) -> str:
    """``[red 4 5 6]`` for a run, ``[black 5, blue 5, joker (orange 5)]`` for a group."""
    if meld.kind is MeldKind.RUN and not any(meld.joker_mask):
        first = meld.represented[0]
        numbers = " ".join(str(t.number) for t in meld.represented)
        return f"[{colour_name(first, lang, plural=True)} {numbers}]"
    parts = []
    for tile, is_joker in zip(meld.represented, meld.joker_mask):
        if is_joker:
            parts.append(tr("joker ({tile})", lang, tile=tile_label(tile, lang)))
        else:
            parts.append(tile_label(tile, lang))
    return "[" + ", ".join(parts) + "]"


def tiles_label(tiles: Sequence[Tile], lang: str = DEFAULT_LANGUAGE) -> str:
    return ", ".join(tile_label(t, lang) for t in tiles)


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
        return [tr("No legal move: draw a tile.", lang)]
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
