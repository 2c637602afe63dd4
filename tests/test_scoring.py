"""Round scoring and the score sheet: rulebook examples, every variant, zero sum, errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.rules import STANDARD, PoolOutScoring, RuleSet
from solver.scoring import (
    PlayerRack,
    PlayerScore,
    PoolExhausted,
    RoundResult,
    ScoreSheet,
    ScoringError,
    WentOut,
    rack_total,
    score_round,
)
from solver.tiles import ALL_NUMBERED, JOKER, parse_tiles


def rack(name: str, text: str = "", melded: bool = True) -> PlayerRack:
    return PlayerRack(name, parse_tiles(text), melded)


def scores(result: RoundResult) -> dict[str, int]:
    return {s.name: s.score for s in result.scores}


DIFFERENCE = STANDARD
FEWEST = RuleSet(pool_out_scoring=PoolOutScoring.FEWEST_TILES)
OWN_RACK = RuleSet(pool_out_scoring=PoolOutScoring.LOWEST_TOTAL_OWN_RACK)


# --- rack totals -------------------------------------------------------------------------


def test_rack_total_adds_face_values() -> None:
    assert rack_total(parse_tiles("r5 k13 b1")) == 19
    assert rack_total(()) == 0


def test_joker_costs_the_penalty() -> None:
    assert rack_total((JOKER,)) == 30
    assert rack_total(parse_tiles("j r2")) == 32
    assert rack_total((JOKER,), RuleSet(joker_penalty=50)) == 50


# --- a player goes out -------------------------------------------------------------------


def test_rulebook_example_went_out() -> None:
    """A goes out, B holds 5, C 10, D 3 -> A +18, B -5, C -10, D -3."""
    result = score_round(
        [rack("A"), rack("B", "r5"), rack("C", "k4 o6"), rack("D", "b1 b2")], WentOut("A")
    )
    assert scores(result) == {"A": 18, "B": -5, "C": -10, "D": -3}
    assert result.winners == ("A",)
    assert [s.rack_total for s in result.scores] == [0, 5, 10, 3]
    assert result.by_name["C"].tiles == parse_tiles("k4 o6")
    assert result.by_name["A"].winner and not result.by_name["B"].winner
    assert result.outcome == WentOut("A") and result.rules == STANDARD


def test_joker_left_on_rack_costs_thirty() -> None:
    result = score_round([rack("Ann", "j"), rack("Bob"), rack("Cid", "r5 k3")], WentOut("Bob"))
    assert scores(result) == {"Ann": -30, "Bob": 38, "Cid": -8}


def test_scores_keep_seating_order() -> None:
    result = score_round([rack("Zed", "r1"), rack("Amy")], WentOut("Amy"))
    assert [s.name for s in result.scores] == ["Zed", "Amy"]


def test_player_without_initial_meld_is_scored_like_the_others() -> None:
    melded = score_round([rack("A"), rack("B", "r9 k9")], WentOut("A"))
    unmelded = score_round([rack("A"), rack("B", "r9 k9", melded=False)], WentOut("A"))
    assert scores(melded) == scores(unmelded) == {"A": 18, "B": -18}


def test_going_out_ignores_the_pool_variant() -> None:
    racks = [rack("A"), rack("B", "r1 r2 r3 r4"), rack("C", "k13")]
    for rules in (DIFFERENCE, FEWEST, OWN_RACK):
        assert scores(score_round(racks, WentOut("A"), rules)) == {"A": 23, "B": -10, "C": -13}


# --- pool exhausted ----------------------------------------------------------------------


def test_pool_exhausted_lowest_total_pays_difference() -> None:
    # totals: A 12, B 5, C 40 (joker + 10) -> B wins; A pays 7, C pays 35.
    racks = [rack("A", "r12"), rack("B", "k2 k3"), rack("C", "j o10")]
    result = score_round(racks, PoolExhausted())
    assert scores(result) == {"A": -7, "B": 42, "C": -35}
    assert result.winners == ("B",)


def test_pool_exhausted_fewest_tiles_scores_as_if_gone_out() -> None:
    # tile counts: A 1, B 2, C 2 -> A wins with a 12 on the rack; others pay own totals.
    racks = [rack("A", "r12"), rack("B", "k2 k3"), rack("C", "j o10")]
    result = score_round(racks, PoolExhausted(), FEWEST)
    assert scores(result) == {"A": 45, "B": -5, "C": -40}
    assert result.by_name["A"].rack_total == 12


def test_fewest_tiles_tie_is_broken_by_lower_total() -> None:
    racks = [rack("A", "r12 r13"), rack("B", "k2 k3"), rack("C", "o1 o2 o3")]
    result = score_round(racks, PoolExhausted(), FEWEST)
    assert result.winners == ("B",)
    assert scores(result) == {"A": -25, "B": 31, "C": -6}


def test_pool_exhausted_lowest_total_own_rack() -> None:
    racks = [rack("A", "r12"), rack("B", "k2 k3"), rack("C", "j o10")]
    result = score_round(racks, PoolExhausted(), OWN_RACK)
    assert scores(result) == {"A": -12, "B": 52, "C": -40}


def test_tied_winners_split_the_pot_remainder_in_seating_order() -> None:
    # A and C tie on 5; B pays 10 - 5 = 5 and D pays 8 - 5 = 3 -> pot 8, no remainder.
    racks = [rack("A", "r5"), rack("B", "k10"), rack("C", "o2 o3"), rack("D", "b8")]
    result = score_round(racks, PoolExhausted())
    assert result.winners == ("A", "C")
    assert scores(result) == {"A": 4, "B": -5, "C": 4, "D": -3}
    # own-rack variant: pot 10 + 8 = 18 -> 9 each.
    assert scores(score_round(racks, PoolExhausted(), OWN_RACK)) == {"A": 9, "B": -10, "C": 9, "D": -8}


def test_tied_winners_odd_pot_gives_remainder_to_earliest_seats() -> None:
    # A, B and C tie on 5; D pays own rack 8 -> 8 = 3 + 3 + 2 in seating order.
    racks = [rack("A", "r5"), rack("B", "k5"), rack("C", "o5"), rack("D", "b4 b4")]
    assert scores(score_round(racks, PoolExhausted(), OWN_RACK)) == {"A": 3, "B": 3, "C": 2, "D": -8}
    reseated = [racks[2], racks[3], racks[0], racks[1]]
    assert scores(score_round(reseated, PoolExhausted(), OWN_RACK)) == {"C": 3, "D": -8, "A": 3, "B": 2}


def test_everyone_tied_scores_zero() -> None:
    racks = [rack("A", "r5"), rack("B", "k5")]
    for rules in (DIFFERENCE, FEWEST, OWN_RACK):
        result = score_round(racks, PoolExhausted(), rules)
        assert scores(result) == {"A": 0, "B": 0}
        assert result.winners == ("A", "B")


# --- zero sum ----------------------------------------------------------------------------

TILE = st.sampled_from(ALL_NUMBERED + (JOKER,))
NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")


@st.composite
def rounds(draw: st.DrawFn) -> tuple[list[PlayerRack], object, RuleSet]:
    players = draw(st.integers(2, len(NAMES)))
    rules = RuleSet(pool_out_scoring=draw(st.sampled_from(list(PoolOutScoring))), joker_penalty=draw(st.integers(0, 50)))
    # Deal without replacement from one full set so the racks are always possible.
    deck = [t for t in ALL_NUMBERED for _ in range(rules.copies)] + [JOKER] * rules.jokers
    order = draw(st.permutations(deck))
    sizes = [draw(st.integers(0, 14)) for _ in range(players)]
    racks, start = [], 0
    for name, size in zip(NAMES, sizes):
        racks.append(PlayerRack(name, tuple(order[start : start + size]), draw(st.booleans())))
        start += size
    if draw(st.booleans()):
        out = draw(st.integers(0, players - 1))
        racks[out] = PlayerRack(racks[out].name, ())
        return racks, WentOut(racks[out].name), rules
    return racks, PoolExhausted(), rules


@settings(max_examples=200, deadline=None, derandomize=True)
@given(rounds())
def test_every_round_sums_to_zero(case: tuple[list[PlayerRack], object, RuleSet]) -> None:
    racks, outcome, rules = case
    result = score_round(racks, outcome, rules)  # type: ignore[arg-type]
    assert sum(s.score for s in result.scores) == 0
    assert result.winners
    for s in result.scores:
        assert s.rack_total == rack_total(s.tiles, rules)
        assert (s.score >= 0) if s.winner else (s.score <= 0)
    if isinstance(outcome, WentOut):
        assert result.winners == (outcome.player,)
        assert all(s.score == -s.rack_total for s in result.scores if not s.winner)


def test_round_result_refuses_scores_that_do_not_sum_to_zero() -> None:
    bad = (PlayerScore("A", (), 0, 10, True), PlayerScore("B", parse_tiles("r9"), 9, -9, False))
    with pytest.raises(ScoringError, match="sum to zero.*1"):
        RoundResult(WentOut("A"), bad)


# --- errors ------------------------------------------------------------------------------


def test_fewer_than_two_players() -> None:
    with pytest.raises(ScoringError, match="at least 2 players"):
        score_round([rack("A")], WentOut("A"))
    with pytest.raises(ScoringError, match="at least 2 players"):
        score_round([], PoolExhausted())


def test_duplicate_names() -> None:
    with pytest.raises(ScoringError, match="duplicate player names: A"):
        score_round([rack("A"), rack("A", "r1"), rack("B", "r2")], PoolExhausted())


def test_empty_name() -> None:
    with pytest.raises(ScoringError, match="needs a name"):
        score_round([rack("A"), rack("  ", "r1")], WentOut("A"))


def test_unknown_winner() -> None:
    with pytest.raises(ScoringError, match="'Zed' went out but is not a player"):
        score_round([rack("A", "r1"), rack("B", "r2")], WentOut("Zed"))


def test_winner_with_tiles_left() -> None:
    with pytest.raises(ScoringError, match="A went out but still holds 2 tile"):
        score_round([rack("A", "r1 r2"), rack("B", "r3")], WentOut("A"))


def test_impossible_single_rack() -> None:
    with pytest.raises(ScoringError, match="B's rack is impossible.*3x red-7") as info:
        score_round([rack("A"), rack("B", "r7 r7 r7")], WentOut("A"))
    assert info.value.__cause__ is not None


def test_impossible_racks_together() -> None:
    with pytest.raises(ScoringError, match="racks together are impossible.*3x joker"):
        score_round([rack("A", "j"), rack("B", "j"), rack("C", "j r1")], PoolExhausted())


def test_more_jokers_allowed_by_rules() -> None:
    racks = [rack("A", "j j"), rack("B", "j j")]
    assert scores(score_round(racks, PoolExhausted(), RuleSet(jokers=4))) == {"A": 0, "B": 0}
    with pytest.raises(ScoringError, match="impossible"):
        score_round(racks, PoolExhausted())


def test_unknown_outcome() -> None:
    with pytest.raises(ScoringError, match="unknown round outcome"):
        score_round([rack("A"), rack("B")], "A went out")  # type: ignore[arg-type]


# --- score sheet -------------------------------------------------------------------------

PLAYERS = ("Ann", "Bob", "Cid")


def round_out(winner: str, **held: str) -> RoundResult:
    return score_round([rack(p, held.get(p, "")) for p in PLAYERS], WentOut(winner))


R1 = round_out("Ann", Bob="r5", Cid="k10")  # Ann +15, Bob -5, Cid -10
R2 = round_out("Bob", Ann="j", Cid="o2")  # Ann -30, Bob +32, Cid -2
R3 = round_out("Cid", Ann="r1", Bob="r2")  # Ann -1, Bob -2, Cid +3


def test_empty_sheet_totals_are_zero() -> None:
    sheet = ScoreSheet(PLAYERS)
    assert sheet.totals() == {"Ann": 0, "Bob": 0, "Cid": 0}
    assert sheet.running_totals() == []


def test_sheet_totals_and_running_totals() -> None:
    sheet = ScoreSheet(PLAYERS).add(R1).add(R2).add(R3)
    assert sheet.rounds == (R1, R2, R3)
    assert sheet.running_totals() == [
        {"Ann": 15, "Bob": -5, "Cid": -10},
        {"Ann": -15, "Bob": 27, "Cid": -12},
        {"Ann": -16, "Bob": 25, "Cid": -9},
    ]
    assert sheet.totals() == {"Ann": -16, "Bob": 25, "Cid": -9}
    assert sum(sheet.totals().values()) == 0


def test_sheet_is_immutable_edits_return_new_sheets() -> None:
    sheet = ScoreSheet(PLAYERS).add(R1)
    grown = sheet.add(R2)
    assert sheet.rounds == (R1,) and grown.rounds == (R1, R2)


def test_replace_round_recomputes_totals() -> None:
    sheet = ScoreSheet(PLAYERS).add(R1).add(R2)
    edited = sheet.replace(0, R3)
    assert edited.rounds == (R3, R2)
    assert edited.totals() == {"Ann": -31, "Bob": 30, "Cid": 1}


def test_remove_round_recomputes_totals() -> None:
    sheet = ScoreSheet(PLAYERS).add(R1).add(R2).add(R3)
    assert sheet.remove(1).totals() == {"Ann": 14, "Bob": -7, "Cid": -7}
    assert sheet.remove(1).running_totals()[0] == {"Ann": 15, "Bob": -5, "Cid": -10}
    assert sheet.remove(0).remove(0).remove(0).totals() == {"Ann": 0, "Bob": 0, "Cid": 0}


def test_round_players_may_sit_in_another_order() -> None:
    other = score_round([rack("Cid", "r4"), rack("Ann"), rack("Bob", "k1")], WentOut("Ann"))
    assert ScoreSheet(PLAYERS).add(other).totals() == {"Ann": 5, "Bob": -1, "Cid": -4}


def test_sheet_refuses_round_of_other_players() -> None:
    stranger = score_round([rack("Ann"), rack("Bob", "r1")], WentOut("Ann"))
    sheet = ScoreSheet(PLAYERS).add(R1)
    with pytest.raises(ScoringError, match="differ from the sheet"):
        sheet.add(stranger)
    with pytest.raises(ScoringError, match="differ from the sheet"):
        sheet.replace(0, stranger)
    with pytest.raises(ScoringError, match="differ from the sheet"):
        ScoreSheet(PLAYERS, (stranger,))


def test_sheet_refuses_bad_round_index() -> None:
    sheet = ScoreSheet(PLAYERS).add(R1)
    for index in (1, -1):
        with pytest.raises(ScoringError, match=f"no round {index}"):
            sheet.replace(index, R2)
        with pytest.raises(ScoringError, match=f"no round {index}"):
            sheet.remove(index)


def test_sheet_refuses_bad_players() -> None:
    with pytest.raises(ScoringError, match="at least 2"):
        ScoreSheet(("Ann",))
    with pytest.raises(ScoringError, match="duplicate"):
        ScoreSheet(("Ann", "Ann"))
