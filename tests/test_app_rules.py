"""The rules in the app through AppTest: presets fill the switches, switches make custom rules,
every move names its rules, games keep theirs, the unmelded checkbox, and the sidebar's language."""

from __future__ import annotations

import pytest

from app.session import RULE_SWITCHES
from app.storage import ScoreStore
from solver.rules import PRESETS, UnmeldedScoring
from tests.app_helpers import start_app, texts
from tests.test_app_play import solve, type_position
from tests.test_app_score import by_suffix, new_game, play_round, totals

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py


def switch(at, name: str):
    """The sidebar widget of one rule setting."""
    key = RULE_SWITCHES[name]
    for kind in (at.number_input, at.radio, at.toggle, at.selectbox):
        found = [w for w in kind if w.key == key]
        if found:
            return found[0]
    raise AssertionError(f"no switch {key}")


def switch_values(at) -> dict[str, object]:
    return {name: switch(at, name).value for name in RULE_SWITCHES}


def test_the_switches_start_at_the_standard_game_and_every_setting_has_one():
    at = start_app()
    assert at.selectbox(key="rules_preset").value == "standard"
    assert switch_values(at) == {
        "initial_meld_threshold": 30, "jokers": 2, "starting_tiles": 14, "jokers_in_initial_meld": True,
        "group_colours_distinct": True, "pool_out_scoring": "lowest-total-difference",
        "unmelded_scoring": "like-others", "joker_penalty": 30, "players": 0, "starting_jokers": 0,
    }
    assert at.selectbox(key="rules_preset").options[:3] == [
        "Standard", "Pressman 1998 (American rules)", "European box rules",
    ]
    assert at.selectbox(key="rules_preset").options[-1] == "Custom"


def test_picking_a_preset_fills_the_switches():
    at = start_app()
    at.selectbox(key="rules_preset").set_value("european").run()
    assert switch(at, "jokers_in_initial_meld").value is False
    at.selectbox(key="rules_preset").set_value("pressman-1998").run()
    assert switch(at, "jokers_in_initial_meld").value is True
    assert switch(at, "unmelded_scoring").value == UnmeldedScoring.PAYS_EACH_PLAYER.value
    at.selectbox(key="rules_preset").set_value("four-jokers").run()
    assert switch(at, "jokers").value == 4 and switch(at, "unmelded_scoring").value == "like-others"


def test_changing_a_switch_makes_the_rules_custom_or_the_preset_they_match():
    at = type_position(start_app(), "", "r1")  # the Play page shows the rules once it has tiles
    switch(at, "initial_meld_threshold").set_value(40).run()
    assert at.selectbox(key="rules_preset").value == "custom"
    assert "Rules: Custom · initial meld 40 · 2 jokers" in texts(at.caption)
    switch(at, "initial_meld_threshold").set_value(50).run()
    assert at.selectbox(key="rules_preset").value == "opening-50"
    switch(at, "group_colours_distinct").set_value(False).run()
    assert at.selectbox(key="rules_preset").value == "custom"
    assert any("repeated colours allowed in groups" in c for c in texts(at.caption))
    # "Custom" chosen by hand keeps the switches as they are.
    at.selectbox(key="rules_preset").set_value("custom").run()
    assert switch(at, "initial_meld_threshold").value == 50


def test_the_rules_change_the_move_and_are_shown_with_it():
    # black 10, 11 and a joker (12) make 33: an initial meld only where jokers may open.
    at = type_position(start_app(), "", "k10 k11 j")
    at.toggle(key="play_initial_meld_done").set_value(False).run()
    at.selectbox(key="rules_preset").set_value("european").run()
    solve(at)
    assert "No legal move: draw a tile." in texts(at.warning)
    european = "Rules: European box rules · initial meld 30 · 2 jokers · no jokers in the initial meld"
    assert texts(at.caption).count(european) == 2  # above the button, and with the answer
    switch(at, "jokers_in_initial_meld").set_value(True).run()
    assert at.selectbox(key="rules_preset").value == "standard"
    solve(at)
    assert texts(at.success) == ["Play 3 tile(s) worth 33 points: black 10, black 11, joker"]
    assert texts(at.caption).count("Rules: Standard · initial meld 30 · 2 jokers") == 2


def test_a_game_keeps_its_rules_and_asks_who_never_melded_only_when_it_matters(private_database):
    at = start_app("score")
    new_game(at, "Ann", "Bob", "Cy")  # standard rules: no question about the initial meld
    by_suffix(at.radio, "_end").set_value("Ann").run()
    assert not [c for c in at.checkbox if c.key and "_unmelded_" in c.key]

    at.selectbox(key="rules_preset").set_value("pressman-1998").run()
    new_game(at, "Di", "Ed", "Flo")
    assert any(c.startswith("Rules: Pressman 1998 (American rules)") for c in texts(at.caption))
    by_suffix(at.radio, "_end").set_value("Di").run()
    boxes = [c for c in at.checkbox if c.key and "_unmelded_" in c.key]
    assert [b.label for b in boxes] == ["Has not made the initial meld"] * 2  # Ed and Flo, not Di
    by_suffix(at.checkbox, "_unmelded_2").check().run()
    play_round(at, "Di", {1: "r5 k7", 2: "j"}, save=False)
    assert "never melded: pays 30 to each other player" in "\n".join(m.value for m in at.markdown)
    by_suffix(at.button, "_save").click().run()
    assert totals(at) == {"Di": 42, "Ed": 18, "Flo": -60}

    store = ScoreStore(private_database)
    game = store.game(2)
    assert game.rules == PRESETS["pressman-1998"] and game.rules.name == "pressman-1998"
    (saved,) = store.rounds(2)
    assert [r.made_initial_meld for r in saved.racks] == [True, True, False]

    # The first game still scores by its own (standard) rules, whatever the sidebar says now.
    at.selectbox(key="score_game").set_value(1).run()
    play_round(at, "Ann", {1: "r5 k7", 2: "j"})
    assert totals(at) == {"Ann": 42, "Bob": -12, "Cy": -30}


def test_editing_a_round_keeps_who_never_melded():
    at = start_app("score")
    at.selectbox(key="rules_preset").set_value("pressman-1998").run()
    new_game(at, "Ann", "Bob", "Cy")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.checkbox, "_unmelded_2").check().run()
    play_round(at, "Ann", {1: "r5", 2: "k3"})
    assert totals(at) == {"Ann": 8, "Bob": -2, "Cy": -6}
    at.button(key="score_edit").click().run()
    assert by_suffix(at.checkbox, "_unmelded_2").value is True
    assert by_suffix(at.checkbox, "_unmelded_1").value is False
    by_suffix(at.checkbox, "_unmelded_2").uncheck().run()
    play_round(at, "Ann", {1: "r5", 2: "k3"})
    assert totals(at) == {"Ann": 8, "Bob": -5, "Cy": -3}


@pytest.mark.parametrize(
    ("lang", "settings", "european"),
    [
        ("uk", "Налаштування правил", "Європейські правила з коробки"),
        ("ru", "Настройки правил", "Европейские правила из коробки"),
        ("ro", "Setările regulilor", "Regulile europene din cutie"),
    ],
)
def test_the_rules_sidebar_speaks_the_chosen_language(lang: str, settings: str, european: str):
    at = start_app()
    at.selectbox(key="lang").set_value(lang).run()
    assert not at.exception, at.exception
    assert settings in [e.label for e in at.expander]
    assert european in at.selectbox(key="rules_preset").options
    at.selectbox(key="rules_preset").set_value("european").run()
    assert switch(at, "jokers_in_initial_meld").value is False
    type_position(at, "", "r1")
    assert any(european in c for c in texts(at.caption))
