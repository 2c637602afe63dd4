"""The one rule for player names and player counts (solver.players)."""

from __future__ import annotations

import pytest

from solver.players import MAX_PLAYERS, MIN_PLAYERS, name_key, player_name, player_names
from solver.scoring import ScoringError

NFC, NFD = "Jos\u00e9", "Jose\u0301"


@pytest.mark.parametrize(
    ("typed", "name"),
    [(" Ann", "Ann"), ("Ann \t", "Ann"), ("Cy   Lee", "Cy Lee"), ("Cy\nLee", "Cy Lee"), (NFD, NFC), ("  ", "")],
)
def test_a_name_is_trimmed_single_spaced_and_nfc(typed: str, name: str) -> None:
    assert player_name(typed) == name


def test_names_keep_their_case_but_case_does_not_make_another_player() -> None:
    assert player_names(["ann", " Bob"]) == ("ann", "Bob")
    assert name_key("ANN ") == name_key("ann") == name_key("Ann")
    assert name_key(NFD) == name_key(NFC.upper())


@pytest.mark.parametrize(
    ("names", "says"),
    [
        (["Ann", "Ann"], "duplicate player names: Ann"),
        (["Ann", " ann", "Bob"], "duplicate player names: Ann"),
        ([NFC, NFD], f"duplicate player names: {NFC}"),
        (["Ann", "ann", "Bob", "BOB"], "duplicate player names: Ann, Bob"),
        (["Ann", " "], "every player needs a name"),
        (["Ann"], "a game has 2 to 4 players, not 1"),
        ([], "a game has 2 to 4 players, not 0"),
        (["A", "B", "C", "D", "E"], "a game has 2 to 4 players, not 5"),
    ],
)
def test_bad_names_and_counts_are_refused(names: list[str], says: str) -> None:
    with pytest.raises(ScoringError) as err:
        player_names(names)
    assert str(err.value) == says


def test_two_to_four_players() -> None:
    assert (MIN_PLAYERS, MAX_PLAYERS) == (2, 4)
    for count in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        assert len(player_names([f"P{i}" for i in range(count)])) == count
