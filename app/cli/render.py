"""What the command line prints: each answer as text (in ``--lang``) or JSON, and errors in words.

Pure functions from library values to strings or JSON-ready dicts, except :func:`emit` and
:func:`emit_json`, which print.
"""

from __future__ import annotations

import json
from typing import Sequence

from solver.explain import (
    impossible_tiles_text,
    new_meld_label,
    no_move_text,
    notation_error_text,
    play_summary,
    problem_text,
    tiles_label,
    time_limit_note,
)
from solver.i18n import DEFAULT_LANGUAGE, error_text, tile_label, tr
from solver.melds import MeldCheck
from solver.rules import ImpossibleStateError, RulesError, UnmeldedScoring
from solver.scoring import PlayerRack, RoundResult, ScoringError, WentOut
from solver.suggestion import RACK, Action, NewMeld, Suggestion
from solver.table import InvalidTableError, TableCheck
from solver.tiles import NotationError, Tile
from vision.reading import Reading

from ..rules_text import pool_label, rules_summary


def emit(text: str) -> None:
    print(text)


def emit_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def describe_error(err: Exception, lang: str = DEFAULT_LANGUAGE) -> str:
    """One line for the user about what is wrong with the input."""
    if isinstance(err, NotationError):
        return notation_error_text(err, lang)
    if isinstance(err, ImpossibleStateError):
        return impossible_tiles_text(err.tiles, lang)
    if isinstance(err, ScoringError) and isinstance(err.__cause__, ImpossibleStateError):
        return impossible_tiles_text(err.__cause__.tiles, lang)
    if isinstance(err, InvalidTableError):
        return _invalid_table(err.check, lang)
    if isinstance(err, RulesError):
        return tr("invalid rules: {reason}", lang, reason=error_text(err, lang))
    if isinstance(err, ScoringError):
        return tr("cannot score this round: {reason}", lang, reason=error_text(err, lang))
    return error_text(err, lang)


def _invalid_table(check: TableCheck, lang: str) -> str:
    melds = "; ".join(
        tr(
            "meld {index} [{tiles}]: {reasons}", lang,
            index=i + 1, tiles=tiles_label(check.melds[i].tiles, lang),
            reasons=", ".join(problem_text(p, lang) for p in check.melds[i].problems),
        )
        for i in check.invalid
    )
    return tr("the table has invalid melds (see rummikub check): {melds}", lang, melds=melds)


def solve_json(suggestion: Suggestion, steps: Sequence[str]) -> dict[str, object]:
    return {
        "action": suggestion.action.value,
        "played": [t.name for t in suggestion.played],
        "table": [_new_meld_json(m) for m in suggestion.new_table],
        "steps": list(steps),
        "tiles_placed": suggestion.tiles_placed,
        "value_placed": suggestion.value_placed,
        "melds_untouched": suggestion.melds_untouched,
        "tiles_moved": suggestion.tiles_moved,
        "optimal": suggestion.optimal,
    }


def _new_meld_json(new: NewMeld) -> dict[str, object]:
    return {
        "kind": new.meld.kind.value,
        "tiles": [t.name for t in new.meld.tiles],
        "represents": [t.name for t in new.meld.represented],
        "sources": ["rack" if s == RACK else s for s in new.sources],
    }


def solve_text(suggestion: Suggestion, steps: Sequence[str], lang: str) -> str:
    rules = rules_summary(suggestion.position.rules, lang)
    if suggestion.action is Action.DRAW:
        return "\n".join([no_move_text(lang), rules])
    lines = [
        play_summary(suggestion, lang),
        "",
        tr("Steps:", lang),
    ]
    lines += [f"  {i}. {step}" for i, step in enumerate(steps, 1)]
    lines += ["", tr("New table (* = from your rack):", lang)]
    lines += [f"  {i}. {new_meld_label(m, lang)}" for i, m in enumerate(suggestion.new_table, 1)]
    lines += [
        "",
        tr(
            "{untouched} meld(s) left untouched, {moved} table tile(s) moved.",
            lang,
            untouched=suggestion.melds_untouched,
            moved=suggestion.tiles_moved,
        ),
    ]
    if not suggestion.optimal:
        lines.append(time_limit_note(lang))
    lines.append(rules)
    return "\n".join(lines)


def check_json(checks: Sequence[MeldCheck], lang: str) -> dict[str, object]:
    return {
        "valid": all(c.valid for c in checks),
        "melds": [
            {
                "tiles": [t.name for t in c.tiles],
                "valid": c.valid,
                "kinds": list(dict.fromkeys(m.kind.value for m in c.interpretations)),
                "problems": [p.value for p in c.problems],
                "reasons": [problem_text(p, lang) for p in c.problems],
                "jokers": [[t.name for t in _sorted(choices)] for choices in c.joker_choices()],
                "joker_options": [[t.name for t in combo] for combo in _joker_options(c)],
            }
            for c in checks
        ],
    }


def check_text(checks: Sequence[MeldCheck], lang: str) -> str:
    if not checks:
        return tr("The table is empty.", lang)
    lines = []
    for i, check in enumerate(checks, 1):
        tiles = "[" + tiles_label(check.tiles, lang) + "]"
        if check.valid:
            line = tr("{index}. {tiles}: valid", lang, index=i, tiles=tiles)
            options = tr(" or ", lang).join(
                tiles_label(combo, lang) if len(combo) == 1 else "(" + tiles_label(combo, lang) + ")"
                for combo in _joker_options(check)
            )
            if options:
                line += "; " + tr("the joker(s) stand for {options}", lang, options=options)
        else:
            reasons = "; ".join(problem_text(p, lang) for p in check.problems)
            line = tr("{index}. {tiles}: INVALID - {reasons}", lang, index=i, tiles=tiles, reasons=reasons)
        lines.append(line)
    invalid = sum(not c.valid for c in checks)
    lines.append("")
    if invalid:
        lines.append(tr("{invalid} of {total} meld(s) invalid.", lang, invalid=invalid, total=len(checks)))
    else:
        lines.append(tr("All {total} meld(s) valid.", lang, total=len(checks)))
    return "\n".join(lines)


def _joker_options(check: MeldCheck) -> list[tuple[Tile, ...]]:
    """Each legal combination of what the meld's jokers stand for (none without jokers)."""
    combos = {tuple(sorted(m.jokers, key=lambda t: t.index)) for m in check.interpretations if m.jokers}
    return sorted(combos, key=lambda combo: [t.index for t in combo])


def _sorted(tiles: frozenset[Tile]) -> list[Tile]:
    return sorted(tiles, key=lambda t: t.index)


def score_json(result: RoundResult, racks: Sequence[PlayerRack] = ()) -> dict[str, object]:
    outcome = result.outcome
    melded = {r.name: r.made_initial_meld for r in racks}
    return {
        "outcome": "went-out" if isinstance(outcome, WentOut) else "pool-exhausted",
        "went_out": outcome.player if isinstance(outcome, WentOut) else None,
        "pool_scoring": result.rules.pool_out_scoring.value,
        "unmelded_scoring": result.rules.unmelded_scoring.value,
        "rules": result.rules.name,
        "winners": list(result.winners),
        "players": [
            {
                "name": s.name,
                "rack": [t.name for t in s.tiles],
                "rack_total": s.rack_total,
                "score": s.score,
                "winner": s.winner,
                "made_initial_meld": melded.get(s.name, True),
            }
            for s in result.scores
        ],
    }


def score_text(result: RoundResult, lang: str, racks: Sequence[PlayerRack] = ()) -> str:
    outcome = result.outcome
    if isinstance(outcome, WentOut):
        header = tr("{name} went out.", lang, name=outcome.player)
    else:
        header = tr("Pool exhausted ({variant}).", lang, variant=pool_label(result.rules.pool_out_scoring, lang))
    titles = (tr("Player", lang), tr("Rack", lang), tr("Total", lang), tr("Score", lang))
    rows = [
        (s.name, tiles_label(s.tiles, lang) or "-", str(s.rack_total), f"{s.score:+d}")
        for s in result.scores
    ]
    widths = [max(len(r[c]) for r in (titles, *rows)) for c in range(4)]
    lines = [header, ""]
    for row in (titles, *rows):
        lines.append(
            "  ".join(
                cell.rjust(width) if col >= 2 else cell.ljust(width)
                for col, (cell, width) in enumerate(zip(row, widths))
            ).rstrip()
        )
    lines += [""]
    if result.rules.unmelded_scoring is UnmeldedScoring.PAYS_EACH_PLAYER:
        lines += [
            tr("{name} never made the initial meld: pays {points} to each other player.", lang,
               name=r.name, points=result.by_name[r.name].rack_total)
            for r in racks
            if not r.made_initial_meld and r.name not in result.winners
        ]
    winners = ", ".join(result.winners) if result.winners else tr("nobody", lang)
    lines += [tr("Winner(s): {names}", lang, names=winners), rules_summary(result.rules, lang)]
    return "\n".join(lines)


def reading_text(reading: Reading, lang: str) -> str:
    """Melds (table) or tiles (rack) in words; ``?`` marks a tile to check, ``*`` one the rules corrected."""

    def label(i: int) -> str:
        read = reading.tiles[i]
        return tile_label(read.tile, lang) + ("?" if read.uncertain else "*" if read.corrected else "")

    if reading.melds:
        lines = [tr("{count} tile(s) in {melds} meld(s):", lang, count=len(reading.tiles), melds=len(reading.melds))]
        lines += [f"  {n}. [" + ", ".join(label(i) for i in meld) + "]" for n, meld in enumerate(reading.melds, 1)]
    else:
        lines = [tr("{count} tile(s):", lang, count=len(reading.tiles)), "  " + ", ".join(label(i) for i in range(len(reading.tiles)))]
    lines += ["  - " + message for message in reading.messages(lang)]
    return "\n".join(lines)

