"""The game clock's arithmetic with made-up readings: Bronstein delay, Fischer increment, flag fall."""

from __future__ import annotations

import pytest

from app.clock import (
    MSO_2019,
    ClockError,
    ClockSettings,
    PerMove,
    configure,
    credit,
    end_move,
    move_time,
    new_clock,
    out_of_time,
    pause,
    start,
    time_left,
)

PLAYERS = ("Ann", "Bob")


def fischer(main: float = 300, increment: float = 5) -> ClockSettings:
    return ClockSettings(main, increment, PerMove.FISCHER)


def test_a_new_clock_is_paused_with_every_players_main_time():
    clock = new_clock(PLAYERS, MSO_2019)
    assert not clock.running and clock.player == "Ann"
    assert [time_left(clock, seat, 50.0) for seat in (0, 1)] == [600, 600]


def test_only_the_player_to_move_loses_time():
    clock = start(new_clock(PLAYERS, MSO_2019), 100.0)
    assert time_left(clock, 0, 130.0) == 570 and time_left(clock, 1, 130.0) == 600
    assert move_time(clock, 130.0) == 30


def test_bronstein_gives_back_the_time_used_up_to_the_delay():
    clock = start(new_clock(PLAYERS, MSO_2019), 0.0)
    quick = end_move(clock, 4.0)  # a 4 s move under a 10 s delay costs nothing
    assert quick.left == (600, 600) and quick.player == "Bob" and quick.running
    slow = end_move(quick, 4.0 + 25.0)  # Bob's 25 s move costs 25 - 10 = 15 s
    assert slow.left == (600, 585) and slow.player == "Ann" and slow.moves == 2


def test_bronstein_never_raises_a_players_time_above_its_start():
    clock = start(new_clock(PLAYERS, ClockSettings(60, 10, PerMove.BRONSTEIN)), 0.0)
    for moment in range(1, 20):  # twenty instant moves
        clock = end_move(clock, float(moment))
    assert clock.left == (60, 60)


def test_fischer_adds_the_whole_increment_however_long_the_move():
    clock = start(new_clock(PLAYERS, fischer(300, 5)), 0.0)
    clock = end_move(clock, 2.0)  # Ann: 300 - 2 + 5
    clock = end_move(clock, 2.0 + 40.0)  # Bob: 300 - 40 + 5
    assert clock.left == (303, 265)
    clock = end_move(clock, 42.0 + 1.0)  # Ann again: 303 - 1 + 5, time piles up above the main time
    assert clock.left == (307, 265)


def test_credit_per_kind():
    assert credit(MSO_2019, 3.5) == 3.5 and credit(MSO_2019, 30) == 10
    assert credit(fischer(increment=5), 0.2) == 5 and credit(fischer(increment=5), 99) == 5


def test_a_pause_keeps_what_the_move_used():
    clock = start(new_clock(PLAYERS, MSO_2019), 0.0)
    paused = pause(clock, 12.0)
    assert not paused.running and time_left(paused, 0, 999.0) == 588  # no time passes while paused
    resumed = start(paused, 1000.0)
    assert time_left(resumed, 0, 1003.0) == 585
    assert end_move(resumed, 1003.0).left == (600 - 15 + 10, 600)  # the delay covers the whole move


def test_start_and_pause_are_idempotent():
    clock = start(new_clock(PLAYERS, MSO_2019), 5.0)
    assert start(clock, 9.0) is clock
    paused = pause(clock, 7.0)
    assert pause(paused, 8.0) is paused


def test_the_flag_falls_at_zero_even_within_the_delay():
    clock = start(new_clock(PLAYERS, ClockSettings(5, 10, PerMove.BRONSTEIN)), 0.0)
    assert not out_of_time(clock, 4.9)
    assert out_of_time(clock, 5.0) and time_left(clock, 0, 8.0) == 0
    with pytest.raises(ClockError, match="Ann's time ran out"):
        end_move(clock, 6.0)


def test_configure_keeps_a_running_clock_and_resets_on_new_settings():
    clock = start(new_clock(PLAYERS, MSO_2019), 0.0)
    assert configure(clock, PLAYERS, MSO_2019) is clock
    changed = configure(clock, PLAYERS, fischer())
    assert not changed.running and changed.left == (300, 300)
    assert configure(clock, ("Bob", "Ann"), MSO_2019).player == "Bob"


@pytest.mark.parametrize("main", [0, -1])
def test_a_clock_set_to_zero_is_refused(main):
    with pytest.raises(ClockError, match="main time above zero"):
        ClockSettings(main, 10)


def test_bad_clocks_are_refused():
    with pytest.raises(ClockError, match="cannot be negative"):
        ClockSettings(60, -1)
    with pytest.raises(ClockError, match="at least two players"):
        new_clock(("Ann",), MSO_2019)
    with pytest.raises(ClockError, match="before the move started"):
        move_time(start(new_clock(PLAYERS, MSO_2019), 10.0), 9.0)
