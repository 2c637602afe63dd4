"""Plain-data forms of rule sets, rounds and score sheets, for the database and CSV export.

Kept apart from :mod:`app.storage` so the SQLite code only moves text, and so old rows keep
reading back as the same values: unknown rule fields are ignored and missing ones take the
standard default, which lets :class:`solver.rules.RuleSet` grow without a data migration.
"""

from __future__ import annotations

import csv
import dataclasses
import enum
import io
from typing import Any

from solver.i18n import DEFAULT_LANGUAGE, TranslatableError, tr
from solver.rules import STANDARD, RuleSet
from solver.scoring import PlayerRack, PlayerScore, PoolExhausted, RoundResult, ScoreSheet, WentOut
from solver.tiles import format_tiles, parse_tiles


class CodecError(TranslatableError, ValueError):
    """Stored data that does not describe a rule set or a round (a damaged or foreign row)."""


def rules_to_dict(rules: RuleSet) -> dict[str, Any]:
    """Every rule field by name; enums as their values."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        out[f.name] = value.value if isinstance(value, enum.Enum) else value
    return out


def rules_from_dict(data: dict[str, Any]) -> RuleSet:
    """The rule set ``data`` describes; unknown keys ignored, missing keys standard."""
    kwargs: dict[str, Any] = {}
    try:
        for f in dataclasses.fields(RuleSet):
            if f.name not in data:
                continue
            default = getattr(STANDARD, f.name)
            value = data[f.name]
            kwargs[f.name] = type(default)(value) if isinstance(default, enum.Enum) else value
        return RuleSet(**kwargs)
    except (TypeError, ValueError) as err:
        raise CodecError("stored rules are not a rule set: {reason}", reason=err) from err


def outcome_to_dict(outcome: WentOut | PoolExhausted) -> dict[str, Any]:
    if isinstance(outcome, WentOut):
        return {"kind": "went-out", "player": outcome.player}
    return {"kind": "pool-exhausted"}


def outcome_from_dict(data: dict[str, Any]) -> WentOut | PoolExhausted:
    kind = data.get("kind")
    if kind == "went-out":
        return WentOut(str(data["player"]))
    if kind == "pool-exhausted":
        return PoolExhausted()
    raise CodecError("unknown round outcome: {kind!r}", kind=kind)


def round_to_dict(racks: tuple[PlayerRack, ...], result: RoundResult) -> dict[str, Any]:
    """A scored round with the racks it was scored from (needed to edit it later)."""
    opened = {r.name: r.made_initial_meld for r in racks}
    could = {r.name: r.could_have_melded for r in racks}
    return {
        "outcome": outcome_to_dict(result.outcome),
        "players": [
            {
                "name": s.name,
                "tiles": format_tiles(s.tiles),
                "made_initial_meld": opened.get(s.name, True),
                "could_have_melded": could.get(s.name, False),
                "rack_total": s.rack_total,
                "score": s.score,
                "winner": s.winner,
            }
            for s in result.scores
        ],
    }


def round_from_dict(data: dict[str, Any], rules: RuleSet) -> tuple[tuple[PlayerRack, ...], RoundResult]:
    """The racks and the stored result, exactly as saved (never re-scored)."""
    try:
        players = data["players"]
        racks = tuple(
            PlayerRack(
                p["name"], parse_tiles(p["tiles"]), bool(p["made_initial_meld"]), bool(p.get("could_have_melded", False))
            )
            for p in players
        )
        scores = tuple(
            PlayerScore(p["name"], rack.tiles, int(p["rack_total"]), int(p["score"]), bool(p["winner"]))
            for p, rack in zip(players, racks)
        )
        return racks, RoundResult(outcome_from_dict(data["outcome"]), scores, rules)
    except (KeyError, TypeError, ValueError) as err:
        raise CodecError("stored round is damaged: {reason}", reason=err) from err


def describe_outcome(outcome: WentOut | PoolExhausted, lang: str = DEFAULT_LANGUAGE) -> str:
    if isinstance(outcome, WentOut):
        return tr("{player} went out", lang, player=outcome.player)
    return tr("pool exhausted", lang)


def _cell(text: str) -> str:
    """A text cell a spreadsheet will not run as a formula (a player named "=SUM(...)")."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def score_sheet_csv(sheet: ScoreSheet, lang: str = DEFAULT_LANGUAGE) -> str:
    """One row per round: how it ended, each player's round score, then the running totals."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [_cell(tr("Round", lang)), _cell(tr("Outcome", lang))]
        + [_cell(tr("{player} score", lang, player=p)) for p in sheet.players]
        + [_cell(tr("{player} total", lang, player=p)) for p in sheet.players]
    )
    for number, (result, totals) in enumerate(zip(sheet.rounds, sheet.running_totals()), start=1):
        outcome = _cell(describe_outcome(result.outcome, lang))
        scores = result.by_name
        writer.writerow(
            [number, outcome] + [scores[p].score for p in sheet.players] + [totals[p] for p in sheet.players]
        )
    return buffer.getvalue()
