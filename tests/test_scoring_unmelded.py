"""The Pressman variant for a player who never made the initial meld: their rack total goes
to each other player; every round still sums to zero; the default answers are unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.i18n import error_text
from solver.rules import PRESETS, STANDARD, PoolOutScoring, RuleSet, UnmeldedScoring
from solver.scoring import PlayerRack, PoolExhausted, RoundResult, ScoringError, WentOut, rack_total, score_round
from solver.tiles import ALL_NUMBERED, JOKER, parse_tiles

PRESSMAN = RuleSet(unmelded_scoring=UnmeldedScoring.PAYS_EACH_PLAYER)


def rack(name: str, text: str = "", melded: bool = True) -> PlayerRack:
    return PlayerRack(name, parse_tiles(text), melded)


def scores(result: RoundResult) -> dict[str, int]:
    return {s.name: s.score for s in result.scores}


# Ann goes out; Bob melded and holds 12; Cy never melded and holds a joker (30).
WENT_OUT = [rack("Ann"), rack("Bob", "r5 k7"), rack("Cy", "j", melded=False)]


def test_went_out_default_scores_the_unmelded_player_like_the_others() -> None:
    assert scores(score_round(WENT_OUT, WentOut("Ann"))) == {"Ann": 42, "Bob": -12, "Cy": -30}


def test_went_out_pressman_adds_the_unmelded_rack_to_each_other_player() -> None:
    result = score_round(WENT_OUT, WentOut("Ann"), PRESSMAN)
    # Cy's 30 goes to Ann and to Bob; Bob still pays Ann his own 12.
    assert scores(result) == {"Ann": 42, "Bob": 18, "Cy": -60}
    assert result.winners == ("Ann",)


def test_the_pressman_preset_scores_this_way() -> None:
    assert PRESETS["pressman-1998"].unmelded_scoring is UnmeldedScoring.PAYS_EACH_PLAYER
    assert scores(score_round(WENT_OUT, WentOut("Ann"), PRESETS["pressman-1998"])) == {"Ann": 42, "Bob": 18, "Cy": -60}


def test_two_unmelded_players_pay_each_other_too() -> None:
    racks = [rack("Ann"), rack("Bob", "r5", melded=False), rack("Cy", "k3", melded=False), rack("Di", "b1")]
    result = score_round(racks, WentOut("Ann"), PRESSMAN)
    # Bob pays 5 to Ann, Cy and Di; Cy pays 3 to Ann, Bob and Di; Di pays 1 to Ann.
    assert scores(result) == {"Ann": 9, "Bob": -15 + 3, "Cy": -9 + 5, "Di": 5 + 3 - 1}
    assert sum(scores(result).values()) == 0


def test_the_player_who_went_out_has_melded_whatever_the_flag_says() -> None:
    racks = [rack("Ann", melded=False), rack("Bob", "r5")]
    assert scores(score_round(racks, WentOut("Ann"), PRESSMAN)) == {"Ann": 5, "Bob": -5}


def test_pool_exhausted_an_unmelded_player_cannot_win() -> None:
    # Cy has the lowest rack (2) but never melded: Ann (9) wins among those who melded.
    racks = [rack("Ann", "r9"), rack("Bob", "k12"), rack("Cy", "o2", melded=False)]
    assert scores(score_round(racks, PoolExhausted())) == {"Ann": -7, "Bob": -10, "Cy": 17}
    result = score_round(racks, PoolExhausted(), PRESSMAN)
    # Bob pays Ann 12 - 9 = 3; Cy pays 2 to Ann and to Bob.
    assert scores(result) == {"Ann": 5, "Bob": -1, "Cy": -4}
    assert result.winners == ("Ann",)


@pytest.mark.parametrize("variant", list(PoolOutScoring))
def test_pool_exhausted_nobody_melded_nobody_wins(variant: PoolOutScoring) -> None:
    racks = [rack("Ann", "r9", melded=False), rack("Bob", "k2", melded=False)]
    result = score_round(racks, PoolExhausted(), PRESSMAN.with_(pool_out_scoring=variant))
    assert scores(result) == {"Ann": -7, "Bob": 7}
    assert result.winners == ()


def test_everyone_melded_scores_as_by_default() -> None:
    racks = [rack("Ann"), rack("Bob", "r5 k7"), rack("Cy", "j")]
    assert scores(score_round(racks, WentOut("Ann"), PRESSMAN)) == scores(score_round(racks, WentOut("Ann")))


# --- zero sum, every variant together ---------------------------------------------------------

TILE_DECK = [t for t in ALL_NUMBERED for _ in range(2)] + [JOKER] * 2
NAMES = ("Ann", "Bob", "Cid", "Dee")


@st.composite
def rounds(draw: st.DrawFn) -> tuple[list[PlayerRack], object, RuleSet]:
    players = draw(st.integers(2, len(NAMES)))
    rules = RuleSet(
        pool_out_scoring=draw(st.sampled_from(list(PoolOutScoring))),
        unmelded_scoring=draw(st.sampled_from(list(UnmeldedScoring))),
        joker_penalty=draw(st.integers(0, 50)),
    )
    order = draw(st.permutations(TILE_DECK))
    racks, start = [], 0
    for name in NAMES[:players]:
        size = draw(st.integers(0, 12))
        racks.append(PlayerRack(name, tuple(order[start : start + size]), draw(st.booleans())))
        start += size
    if draw(st.booleans()):
        out = draw(st.integers(0, players - 1))
        racks[out] = PlayerRack(racks[out].name, (), draw(st.booleans()))
        return racks, WentOut(racks[out].name), rules
    return racks, PoolExhausted(), rules


@settings(max_examples=200, deadline=None, derandomize=True)
@given(rounds())
def test_every_round_sums_to_zero_and_unmelded_players_pay_each_other_player(case) -> None:
    racks, outcome, rules = case
    result = score_round(racks, outcome, rules)
    assert sum(s.score for s in result.scores) == 0
    if rules.unmelded_scoring is UnmeldedScoring.PAYS_EACH_PLAYER:
        out = outcome.player if isinstance(outcome, WentOut) else None
        unmelded = [r for r in racks if not r.made_initial_meld and r.name != out]
        assert not {r.name for r in unmelded} & set(result.winners)
        for r in unmelded:  # pays n-1 times their total, receives the other unmelded totals
            others = sum(rack_total(o.tiles, rules) for o in unmelded if o is not r)
            total = rack_total(r.tiles, rules)
            assert result.by_name[r.name].score == others - (len(racks) - 1) * total


# --- errors are translatable ------------------------------------------------------------------


def test_scoring_errors_keep_english_text_and_translate() -> None:
    with pytest.raises(ScoringError) as info:
        score_round([rack("Ann")], WentOut("Ann"), STANDARD)
    assert str(info.value) == "a round needs at least 2 players, got 1"
    assert error_text(info.value, "en") == "a round needs at least 2 players, got 1"
    assert error_text(info.value, "uk") != str(info.value) and "1" in error_text(info.value, "uk")


def test_an_impossible_rack_names_its_tiles_in_the_players_language() -> None:
    with pytest.raises(ScoringError) as info:
        score_round([rack("Ann"), rack("Bob", "r7 r7 r7")], WentOut("Ann"))
    assert str(info.value) == "Bob's rack is impossible: more copies than the game has: 3x red-7 (max 2)"
    assert "червона 7" in error_text(info.value, "uk")
    assert "красная 7" in error_text(info.value, "ru")
