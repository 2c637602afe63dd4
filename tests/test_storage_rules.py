"""Stored games keep their rules: rulebook presets and custom rules round-trip, files written
before the new settings existed still read back (standard defaults), errors translate."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.codec import CodecError, rules_from_dict, rules_to_dict
from app.storage import SCHEMA_VERSION, NotFoundError, ScoreStore, StorageError
from solver.i18n import error_text
from solver.rules import PRESETS, STANDARD, PoolOutScoring, UnmeldedScoring
from solver.scoring import PlayerRack, WentOut, score_round
from solver.tiles import parse_tiles

PLAYERS = ("Ann", "Bob", "Cy")
RACKS = (PlayerRack("Ann", ()), PlayerRack("Bob", parse_tiles("r5 k7")), PlayerRack("Cy", parse_tiles("j"), False))


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_round_trips_with_its_name(name: str) -> None:
    rules = rules_from_dict(json.loads(json.dumps(rules_to_dict(PRESETS[name]))))
    assert rules == PRESETS[name] and rules.name == name


def test_a_custom_rule_set_round_trips(tmp_path: Path) -> None:
    custom = STANDARD.with_(
        initial_meld_threshold=40, jokers=4, starting_tiles=16, jokers_in_initial_meld=False,
        group_colours_distinct=False, joker_penalty=50, pool_out_scoring=PoolOutScoring.LOWEST_TOTAL_OWN_RACK,
        unmelded_scoring=UnmeldedScoring.PAYS_EACH_PLAYER,
    ).named("custom")
    store = ScoreStore(tmp_path / "scores.sqlite3")
    game = store.create_game(PLAYERS, custom)
    store.add_round(game.id, RACKS, score_round(RACKS, WentOut("Ann"), custom))
    again = ScoreStore(tmp_path / "scores.sqlite3")
    assert again.game(game.id).rules == custom and again.game(game.id).rules.name == "custom"
    (saved,) = again.rounds(game.id)
    assert saved.result.rules == custom
    assert {s.name: s.score for s in saved.result.scores} == {"Ann": 12 + 50, "Bob": -12 + 50, "Cy": -100}


def test_a_file_written_before_the_unmelded_setting_reads_as_the_standard_game(tmp_path: Path) -> None:
    """A schema-1 file whose stored rules lack the newer fields (as the first release wrote them)."""
    path = tmp_path / "scores.sqlite3"
    ScoreStore(path)  # creates the current schema: the rule fields live in JSON, not in columns
    assert SCHEMA_VERSION == 1
    old_rules = {"copies": 2, "jokers": 2, "min_meld_size": 3, "initial_meld_threshold": 50,
                 "joker_penalty": 30, "wrap_around": False, "name": "opening-50"}
    old_round = {
        "outcome": {"kind": "went-out", "player": "Ann"},
        "players": [
            {"name": "Ann", "tiles": "", "made_initial_meld": True, "rack_total": 0, "score": 42, "winner": True},
            {"name": "Bob", "tiles": "red-5 black-7", "made_initial_meld": True, "rack_total": 12, "score": -12,
             "winner": False},
            {"name": "Cy", "tiles": "joker", "made_initial_meld": False, "rack_total": 30, "score": -30,
             "winner": False},
        ],
    }
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO games (created, players, rules) VALUES ('2026-01-01', ?, ?)",
                     (json.dumps(PLAYERS), json.dumps(old_rules)))
        conn.execute("INSERT INTO rounds (game_id, created, updated, data) VALUES (1, 'x', 'x', ?)",
                     (json.dumps(old_round),))
    store = ScoreStore(path)
    rules = store.game(1).rules
    assert rules == PRESETS["opening-50"] and rules.unmelded_scoring is UnmeldedScoring.LIKE_OTHERS
    (saved,) = store.rounds(1)
    # Stored scores are never re-scored, and the flag is kept for a later edit.
    assert store.sheet(1).totals() == {"Ann": 42, "Bob": -12, "Cy": -30}
    assert [r.made_initial_meld for r in saved.racks] == [True, True, False]


def test_an_unknown_unmelded_variant_is_a_damaged_game_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(CodecError):
        rules_from_dict({"unmelded_scoring": "pays-double"})
    path = tmp_path / "scores.sqlite3"
    ScoreStore(path)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO games (created, players, rules) VALUES ('x', ?, ?)",
                     (json.dumps(PLAYERS), json.dumps({"unmelded_scoring": "pays-double"})))
    with pytest.raises(StorageError) as info:
        ScoreStore(path).game(1)
    assert str(info.value).startswith("game 1 is damaged in the database: stored rules are not a rule set")
    assert error_text(info.value, "uk").startswith("гру 1 у базі пошкоджено: збережені правила не є набором правил")


def test_storage_errors_translate(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.sqlite3")
    with pytest.raises(NotFoundError) as info:
        store.game(7)
    assert str(info.value) == "no game 7"
    assert error_text(info.value, "ru") == "нет игры 7"
    assert error_text(info.value, "ro") == "nu există jocul 7"
