"""The legality oracle must reject broken suggestions, or the property tests prove nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from solver import Action, Objective, Position, parse_melds, parse_tiles, solve
from solver.melds import Meld, MeldKind
from solver.suggestion import RACK, NewMeld, StepKind
from solver.tiles import JOKER
from tests.brute import brute_optimum, least_disruption
from tests.oracle import violations


@pytest.fixture(scope="module")
def case():
    position = Position(parse_melds("r4 r5 r6 | k7 b7 o7"), parse_tiles("r7 k1"))
    suggestion = solve(position, Objective.TILES)
    assert violations(position, suggestion) == []
    return position, suggestion


def grown_index(suggestion) -> int:
    return next(i for i, new in enumerate(suggestion.new_table) if not new.unchanged)


def with_meld(suggestion, index: int, new: NewMeld):
    table = list(suggestion.new_table)
    table[index] = new
    return replace(suggestion, new_table=tuple(table))


def test_a_lost_table_tile_is_caught(case) -> None:
    position, suggestion = case
    dropped = tuple(new for new in suggestion.new_table if not new.unchanged)
    assert any("not old table + played" in p for p in violations(position, replace(suggestion, new_table=dropped)))


def test_a_tile_not_on_the_rack_is_caught(case) -> None:
    position, suggestion = case
    forged = replace(suggestion, played=parse_tiles("r8"))
    assert any("not on the rack" in p for p in violations(position, forged))


def test_an_invalid_meld_is_caught(case) -> None:
    position, suggestion = case
    i = grown_index(suggestion)
    new = suggestion.new_table[i]
    bent = Meld(MeldKind.RUN, parse_tiles("r4 r5 r6 b7"), (False,) * 4)
    assert any("not a legal run or group" in p for p in violations(position, with_meld(suggestion, i, replace(new, meld=bent))))


def test_a_joker_standing_for_the_wrong_tile_is_caught() -> None:
    position = Position(parse_melds("k5 b5 o5"), (JOKER,))
    suggestion = solve(position)
    new = suggestion.new_table[0]
    wrong = Meld(MeldKind.GROUP, parse_tiles("k5 b5 o5 o5"), (False, False, False, True))
    problems = violations(position, with_meld(suggestion, 0, replace(new, meld=wrong)))
    assert any("not a legal run or group" in p for p in problems)


def test_wrong_bookkeeping_is_caught(case) -> None:
    position, suggestion = case
    assert any("tiles_moved" in p for p in violations(position, replace(suggestion, tiles_moved=3)))
    assert any("melds_untouched" in p for p in violations(position, replace(suggestion, melds_untouched=2)))
    assert any("value_placed" in p for p in violations(position, replace(suggestion, value_placed=8)))
    i = grown_index(suggestion)
    new = suggestion.new_table[i]
    from_rack = replace(new, sources=(RACK,) * len(new.sources))
    assert violations(position, with_meld(suggestion, i, from_rack))


def test_a_draw_that_plays_or_a_play_with_nothing_is_caught(case) -> None:
    position, suggestion = case
    assert violations(position, replace(suggestion, action=Action.DRAW))
    assert violations(position, replace(suggestion, played=()))


def test_initial_meld_rules_are_checked() -> None:
    position = Position((), parse_tiles("k9 k10 j"), initial_meld_done=False)
    suggestion = solve(position)
    assert violations(position, suggestion) == []
    low = Meld(MeldKind.RUN, parse_tiles("k8 k9 k10"), (True, False, False))
    problems = violations(position, with_meld(suggestion, 0, replace(suggestion.new_table[0], meld=low)))
    assert any("threshold" in p for p in problems)


def test_brute_force_knows_the_reference_weaknesses() -> None:
    assert brute_optimum(Position(parse_melds("k5 b5 o5"), (JOKER,))).tiles == 1
    assert brute_optimum(Position(parse_melds("r4 r5 r6 j"), parse_tiles("r7"))).tiles == 1
    assert brute_optimum(Position(parse_melds("r1 r2 r3"), parse_tiles("k9 b2"))).tiles == 0
    opening = brute_optimum(Position((), parse_tiles("b2 b3 b4 k5 b5 o5 r5"), initial_meld_done=False))
    assert opening.tiles == 0


def test_least_disruption_counts_kept_tiles() -> None:
    old = (parse_tiles("r4 r5 r6"), parse_tiles("k7 b7 o7"))
    new = [parse_tiles("r4 r5 r6 r7"), parse_tiles("k7 b7 o7")]
    assert least_disruption(old, new, None) == (1, 6)
    split = [parse_tiles("r4 r5 r6"), parse_tiles("k7 b7 o7 r7")]
    assert least_disruption(old, split, None) == (1, 6)
    scattered = [parse_tiles("r4 k7 b7"), parse_tiles("r5 r6 r7")]
    assert least_disruption((parse_tiles("r4 r5 r6"),), scattered, None) == (0, 2)


def test_a_step_of_the_wrong_kind_is_caught(case) -> None:
    position, suggestion = case
    (step,) = suggestion.steps
    for kind in (StepKind.LAY_DOWN, StepKind.ADD):
        wrong = replace(step, kind=kind, old=None) if kind is StepKind.ADD else replace(step, kind=kind)
        problems = violations(position, replace(suggestion, steps=(wrong,)))
        assert any("step for meld" in p for p in problems), kind
