"""The solver runs numpy's BLAS on one thread during a move, and gives the threads back after."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import solver.search
from solver import Position, solve
from solver.blas_threads import one_blas_thread
from solver.tiles import parse_melds, parse_tiles


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


@pytest.fixture
def two_blas_threads():
    """BLAS set to two threads (a multi-core machine's default), as the caller's process has it."""
    if not blas_threads():
        pytest.skip("numpy here uses no BLAS library that threadpoolctl can see")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_one_thread_inside_and_the_callers_setting_after(two_blas_threads):
    before = blas_threads()
    with one_blas_thread():
        assert set(blas_threads()) == {1}
    assert blas_threads() == before


def test_the_setting_comes_back_when_the_block_raises(two_blas_threads):
    before = blas_threads()
    with pytest.raises(RuntimeError), one_blas_thread():
        raise RuntimeError("a solver error")
    assert blas_threads() == before


def test_a_move_is_solved_on_one_blas_thread(two_blas_threads, monkeypatch):
    seen: list[list[int]] = []
    inner = solver.search._solve

    def recording(*args):
        seen.append(blas_threads())
        return inner(*args)

    monkeypatch.setattr(solver.search, "_solve", recording)
    before = blas_threads()
    position = Position(parse_melds("r4 r5 r6"), parse_tiles("r7 k1"))
    suggestion = solve(position)
    assert [set(s) for s in seen] == [{1}]
    assert blas_threads() == before
    assert suggestion.tiles_placed == 1
