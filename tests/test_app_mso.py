"""The tournament (Mind Sports Olympiad) preset in the app: the sidebar switches, a game of two,
and the scorekeeper's "could have melded" checkbox charging 200 instead of 100."""

from __future__ import annotations

import pytest

from app.storage import ScoreStore
from tests.app_helpers import error_lines, start_app, texts
from tests.test_app_rules import switch
from tests.test_app_score import by_suffix, new_game, totals

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py


def mso_score_page():
    at = start_app()
    at.selectbox(key="rules_preset").set_value("mso").run()
    at.switch_page("views/score.py").run()
    assert not at.exception, at.exception
    return at


def test_the_preset_fills_the_tournament_switches():
    at = start_app()
    at.selectbox(key="rules_preset").set_value("mso").run()
    assert switch(at, "players").value == 2 and switch(at, "starting_jokers").value == 1
    assert switch(at, "joker_penalty").value == 50 and switch(at, "unmelded_scoring").value == "fixed-charge"
    switch(at, "players").set_value(0).run()  # one switch off the preset: custom rules
    assert at.selectbox(key="rules_preset").value == "custom"
    switch(at, "players").set_value(2).run()
    assert at.selectbox(key="rules_preset").value == "mso"


def test_a_tournament_game_of_three_is_a_message(private_database):
    at = new_game(mso_score_page(), "Ann", "Bob", "Cy")
    assert "Cannot start this game: these rules are for 2 players, this game has 3" in error_lines(at)
    assert ScoreStore(private_database).games() == ()


@pytest.mark.parametrize("could, charge", [(False, 100), (True, 200)])
def test_a_player_who_never_melded_is_charged_as_the_scorekeeper_says(private_database, could, charge):
    at = new_game(mso_score_page(), "Ann", "Bob")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.text_input, "_rack_1").input("r13 j")
    by_suffix(at.checkbox, "_unmelded_1").check().run()
    by_suffix(at.checkbox, "_could_meld_1").set_value(could).run()
    by_suffix(at.button, "_score").click().run()
    assert not at.exception, at.exception
    assert f"never melded: pays {charge}" in "\n".join(m.value for m in at.markdown)
    by_suffix(at.button, "_save").click().run()
    assert totals(at) == {"Ann": charge, "Bob": -charge}
    (saved,) = ScoreStore(private_database).rounds(1)
    assert saved.racks[1].could_have_melded is could and saved.racks[1].made_initial_meld is False
    assert any("2 players" in c for c in texts(at.caption))
