"""One time limit for a whole move: every optimiser call of a move shares it, and a move the
limit cut short is still legal, marked not optimal, and comes without a second search."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from benchmarks.positions import deal_position
from benchmarks.solver_benchmark import position_seed
from solver import Action, Position, mip, parse_melds, parse_tiles, solve
from solver import search
from tests.oracle import assert_legal

#: Seven melds: more than SMALL_TABLE_MELDS, so the relaxation path runs.
LARGE_TABLE = "k1 k2 k3 | b5 b6 b7 | o9 o10 o11 | r2 r3 r4 | k7 b7 o7 | b11 b12 b13 | o1 o2 o3 o4"


class Calls:
    """Stands in for ``mip.solve`` (and ``mip.solve_descending``, one call each, whatever
    programs it solves inside): records each call's time limit, raises OutOfTime on the first
    ``out_of_time`` calls, and marks the first ``stopped`` answers not optimal (a search the
    limit stopped after finding a move)."""

    def __init__(self, out_of_time: int = 0, stopped: int = 0, out_of_time_at: tuple[int, ...] = ()) -> None:
        self.limits: list[float] = []
        self.out_of_time = out_of_time
        self.out_of_time_at = out_of_time_at  # call numbers (from 1) that raise OutOfTime too
        self.stopped = stopped
        self.solve = mip.solve
        self.solve_descending = mip.solve_descending

    def __call__(self, program: mip.IntegerProgram, time_limit_s: float, start=None, stop=None) -> mip.Solution | None:
        return self._answer(lambda: self.solve(program, time_limit_s, start, stop), time_limit_s)

    def descending(
        self, program: mip.IntegerProgram, step: float, time_limit_s: float, start, hand_over=None,
    ) -> mip.Solution | None:
        return self._answer(lambda: self.solve_descending(program, step, time_limit_s, start, hand_over), time_limit_s)

    def _answer(self, solving, time_limit_s: float) -> mip.Solution | None:
        self.limits.append(time_limit_s)
        if len(self.limits) <= self.out_of_time or len(self.limits) in self.out_of_time_at:
            raise mip.OutOfTime("stopped for the test")
        solution = solving()
        if solution is not None and len(self.limits) <= self.stopped:
            return replace(solution, optimal=False)
        return solution


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Calls:
    recorder = Calls(**getattr(request, "param", {}))
    monkeypatch.setattr(mip, "solve", recorder)
    monkeypatch.setattr(mip, "solve_descending", recorder.descending)
    return recorder


def test_every_call_of_a_move_gets_what_is_left_of_one_limit(calls: Calls) -> None:
    # This position needs three integer programs (the bound and the next score down are
    # out of reach); each may use only what the earlier ones left.
    position = deal_position(random.Random(position_seed(5, 30, 14)), 30, 14)
    suggestion = solve(position, time_limit_s=3.0)
    assert suggestion.optimal
    assert len(calls.limits) >= 3
    assert all(limit <= 3.0 for limit in calls.limits)
    assert calls.limits == sorted(calls.limits, reverse=True)


@pytest.mark.parametrize("calls", [{"out_of_time": 1}], indirect=True)
@pytest.mark.parametrize("table", [LARGE_TABLE, "r2 r3 r4"])
def test_out_of_time_before_any_move_plays_from_the_rack_alone(calls: Calls, table: str) -> None:
    # The best move adds r5 to r2 r3 r4 as well; with no time for it, the rack's own meld.
    position = Position(parse_melds(table), parse_tiles("r5 k9 k10 k11"))
    suggestion = solve(position)
    assert_legal(position, suggestion)
    assert not suggestion.optimal
    assert Counter(suggestion.played) == Counter(parse_tiles("k9 k10 k11"))
    assert suggestion.melds_untouched == len(position.table)


@pytest.mark.parametrize("calls", [{"out_of_time": 2}], indirect=True)
def test_out_of_time_even_for_the_rack_alone_draws_not_optimal(calls: Calls) -> None:
    position = Position(parse_melds(LARGE_TABLE), parse_tiles("r5 k9 k10 k11"))
    suggestion = solve(position)
    assert suggestion.action is Action.DRAW and not suggestion.optimal
    assert len(calls.limits) == 2


@pytest.mark.parametrize("calls", [{"out_of_time": 1}], indirect=True)
def test_out_of_time_for_an_opening_draws_not_optimal(calls: Calls) -> None:
    position = Position((), parse_tiles("k10 k11 k12"), initial_meld_done=False)
    suggestion = solve(position)
    assert suggestion.action is Action.DRAW and not suggestion.optimal


@pytest.mark.parametrize("calls", [{"stopped": 1}], indirect=True)
def test_a_search_stopped_with_a_move_gives_that_move_without_another_search(calls: Calls) -> None:
    position = Position(parse_melds(LARGE_TABLE), parse_tiles("r5"))
    assert len(position.table) > search.SMALL_TABLE_MELDS
    suggestion = solve(position)
    assert_legal(position, suggestion)
    assert not suggestion.optimal
    assert suggestion.tiles_placed == 1
    assert len(calls.limits) == 1  # not followed by a search of the whole table



@pytest.mark.parametrize("calls", [{"out_of_time_at": (4,)}], indirect=True)
def test_out_of_time_in_the_last_search_keeps_the_move_that_proved_the_best_score(
    calls: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This position takes four programs: the bound and the next score down out of reach, the
    # best score found, then the whole tie-break at that score, which here finds no move in time.
    position = deal_position(random.Random(position_seed(5, 30, 14)), 30, 14)
    suggestion = solve(position)
    assert len(calls.limits) == 4
    assert_legal(position, suggestion)
    assert not suggestion.optimal
    monkeypatch.setattr(mip, "solve", calls.solve)
    monkeypatch.setattr(mip, "solve_descending", calls.solve_descending)
    exact = solve(position)
    assert exact.optimal
    # The most tiles placed and melds kept are the exact move's, which the rack alone is not.
    assert (suggestion.tiles_placed, suggestion.melds_untouched) == (exact.tiles_placed, exact.melds_untouched)
    monkeypatch.setattr(mip, "solve", Calls(out_of_time=1))
    assert solve(position).tiles_placed < exact.tiles_placed
