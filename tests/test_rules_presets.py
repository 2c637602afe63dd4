"""Rulebook presets, free combination of settings, and the solver honouring each variant."""

from __future__ import annotations

import pickle

import pytest

from app.rules_text import preset_label, rules_summary
from solver import solve
from solver.i18n import LANGUAGES, error_text
from solver.rules import (
    CUSTOM,
    PRESETS,
    STANDARD,
    ImpossibleStateError,
    PoolOutScoring,
    RuleSet,
    RulesError,
    UnmeldedScoring,
    check_tile_limits,
    preset,
    preset_for,
)
from solver.position import Position
from solver.table import check_table
from solver.tiles import parse_melds, parse_tiles


def test_the_old_preset_keys_still_work() -> None:
    # Stored games and `--rules` use these names: they must never disappear.
    for name in ("standard", "opening-50", "four-jokers", "sixteen-tiles", "no-joker-opening"):
        assert PRESETS[name].name == name


def test_rulebook_presets() -> None:
    pressman, european = PRESETS["pressman-1998"], PRESETS["european"]
    assert pressman == STANDARD.with_(unmelded_scoring=UnmeldedScoring.PAYS_EACH_PLAYER)
    assert pressman.jokers_in_initial_meld and pressman.initial_meld_threshold == 30
    assert european == STANDARD.with_(jokers_in_initial_meld=False)
    assert not PRESETS["repeated-colours"].group_colours_distinct


def test_every_preset_has_a_label_in_every_language() -> None:
    for name in (*PRESETS, CUSTOM):
        for lang in LANGUAGES:
            label = preset_label(name, lang)
            assert label and label != name


def test_preset_for_names_what_the_settings_match() -> None:
    assert preset_for(STANDARD.with_(initial_meld_threshold=50)) == "opening-50"
    assert preset_for(PRESETS["opening-50"].with_(initial_meld_threshold=30)) == "standard"
    assert preset_for(STANDARD.with_(initial_meld_threshold=40)) == CUSTOM
    # Changed rules carry the name of the preset they match, so every caller names them alike.
    assert STANDARD.with_(initial_meld_threshold=50).name == "opening-50"
    assert PRESETS["opening-50"].with_(initial_meld_threshold=30).name == "standard"
    assert STANDARD.with_(initial_meld_threshold=40).name == CUSTOM
    # A setting no preset has, on top of a rulebook preset.
    assert preset_for(PRESETS["european"].with_(jokers=4)) == CUSTOM
    # european and no-joker-opening play alike: the name given wins.
    assert preset_for(PRESETS["no-joker-opening"]) == "no-joker-opening"
    assert preset_for(PRESETS["european"]) == "european"


def test_an_unknown_preset_is_a_clear_error() -> None:
    with pytest.raises(RulesError) as info:
        preset("house")
    assert "unknown rule preset 'house'" in str(info.value) and "standard" in str(info.value)
    assert preset("european") is PRESETS["european"]


def test_a_negative_joker_penalty_is_refused() -> None:
    with pytest.raises(RulesError, match="negative"):
        RuleSet(joker_penalty=-1)


def test_summary_lists_every_setting_that_is_not_standard() -> None:
    assert rules_summary(STANDARD) == "Rules: Standard · initial meld 30 · 2 jokers"
    custom = RuleSet(
        initial_meld_threshold=40, jokers=4, starting_tiles=16, jokers_in_initial_meld=False,
        group_colours_distinct=False, joker_penalty=50, pool_out_scoring=PoolOutScoring.FEWEST_TILES,
        unmelded_scoring=UnmeldedScoring.PAYS_EACH_PLAYER,
    )
    custom = custom.named(preset_for(custom))
    assert rules_summary(custom).split(" · ") == [
        "Rules: Custom", "initial meld 40", "4 jokers", "16 starting tiles", "no jokers in the initial meld",
        "repeated colours allowed in groups", "a joker left on a rack costs 50",
        "pool exhausted: fewest tiles wins, the others pay their rack",
        "a player who never melded pays their rack total to each other player",
    ]
    assert rules_summary(custom, "uk").startswith("Правила: Власні")


# --- each variant changes the solver's answer; the default stays -------------------------------


def test_jokers_in_the_initial_meld() -> None:
    # 10 + 11 + joker(12) = 33: opens only where jokers may be used in the initial meld.
    rack = parse_tiles("k10 k11 j")
    for name, plays in (("standard", True), ("pressman-1998", True), ("european", False), ("no-joker-opening", False)):
        answer = solve(Position((), rack, initial_meld_done=False, rules=PRESETS[name]))
        assert (answer.tiles_placed == 3) is plays, name


def test_repeated_colours_in_groups() -> None:
    table = parse_melds("r5 r5 k5")
    assert not check_table(table).valid
    assert check_table(table, PRESETS["repeated-colours"]).valid
    rack = parse_tiles("r9 r9 k9")
    assert solve(Position((), rack)).tiles_placed == 0
    assert solve(Position((), rack, rules=PRESETS["repeated-colours"])).tiles_placed == 3


def test_four_jokers_and_the_threshold() -> None:
    with pytest.raises(ImpossibleStateError):
        Position((), parse_tiles("j j j r1"))
    assert solve(Position((), parse_tiles("j j j r1"), rules=PRESETS["four-jokers"])).tiles_placed == 4
    rack = parse_tiles("k10 k11 k12")
    assert solve(Position((), rack, initial_meld_done=False)).tiles_placed == 3
    assert solve(Position((), rack, initial_meld_done=False, rules=PRESETS["opening-50"])).tiles_placed == 0


# --- impossible tiles: English text, translated on demand ---------------------------------------


def test_impossible_tiles_error_carries_its_tiles_and_translates() -> None:
    with pytest.raises(ImpossibleStateError) as info:
        check_tile_limits(parse_tiles("r7 r7 r7 j j j"))
    err = info.value
    assert str(err) == "more copies than the game has: 3x red-7 (max 2), 3x joker (max 2)"
    assert error_text(err, "uk") == "більше копій, ніж є в грі: 3× червона 7 (макс. 2), 3× джокер (макс. 2)"
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == str(err) and copy.tiles == err.tiles and error_text(copy, "uk") == error_text(err, "uk")
