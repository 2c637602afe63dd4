"""The turn timer's logic with made-up clock readings: start, pause, resume, next, expiry, off."""

from __future__ import annotations

import io
import math
import wave

import pytest

from app.timer import (
    TimerError,
    TurnTimer,
    beep_wav,
    clock_text,
    configure,
    elapsed,
    expired,
    next_turn,
    pause,
    remaining,
    start,
)

SEATS = ("Ann", "Bob", "Cy")


def fresh(seconds: float | None = 60) -> TurnTimer:
    return TurnTimer(SEATS, turn_seconds=seconds)


def test_a_new_timer_waits_paused_with_a_full_turn():
    timer = fresh()
    assert not timer.running and timer.player == "Ann"
    assert remaining(timer, 1000.0) == 60 and not expired(timer, 1000.0)


def test_the_clock_counts_from_the_start_timestamp():
    timer = start(fresh(), 100.0)
    assert timer.running and timer.started_at == 100.0
    assert remaining(timer, 100.0) == 60
    assert remaining(timer, 112.5) == pytest.approx(47.5)
    assert elapsed(timer, 112.5) == pytest.approx(12.5)


def test_reading_the_clock_often_or_late_never_changes_it():
    """Reruns only read the clock: the answer depends on ``now`` alone, not on how often it is asked."""
    timer = start(fresh(), 100.0)
    for now in (100.3, 101.0, 104.9, 130.0, 130.0):
        remaining(timer, now)
    assert remaining(timer, 130.0) == pytest.approx(30.0)
    assert timer == start(fresh(), 100.0)


def test_start_on_a_running_timer_does_not_restart_it():
    timer = start(fresh(), 100.0)
    assert start(timer, 140.0) is timer
    assert remaining(start(timer, 140.0), 140.0) == pytest.approx(20.0)


def test_pause_keeps_the_time_used_and_resume_continues_from_it():
    timer = pause(start(fresh(), 100.0), 115.0)
    assert not timer.running and timer.elapsed_before_pause == pytest.approx(15.0)
    for now in (115.0, 200.0, 5000.0):  # paused: time passing changes nothing
        assert remaining(timer, now) == pytest.approx(45.0)
    resumed = start(timer, 300.0)
    assert remaining(resumed, 310.0) == pytest.approx(35.0)
    again = pause(resumed, 320.0)
    assert again.elapsed_before_pause == pytest.approx(35.0)
    assert pause(again, 400.0) is again  # pausing twice does nothing


def test_next_turn_moves_round_the_table_and_restarts_the_clock():
    timer = pause(start(fresh(), 100.0), 150.0)
    timer = next_turn(timer, 200.0)
    assert timer.player == "Bob" and timer.running
    assert remaining(timer, 210.0) == pytest.approx(50.0)
    timer = next_turn(next_turn(timer, 220.0), 230.0)
    assert timer.player == "Ann" and timer.current == 0  # after the last seat, the first
    assert remaining(timer, 230.0) == 60


def test_the_turn_expires_at_its_length_and_remaining_stops_at_zero():
    timer = start(fresh(60), 100.0)
    assert not expired(timer, 159.9)
    assert expired(timer, 160.0) and remaining(timer, 160.0) == 0
    assert expired(timer, 500.0) and remaining(timer, 500.0) == 0
    assert not expired(next_turn(timer, 500.0), 500.0)


def test_a_two_minute_turn():
    timer = start(fresh(120), 0.0)
    assert not expired(timer, 119.0) and expired(timer, 120.0)


def test_off_tracks_seats_but_never_expires():
    timer = start(fresh(None), 0.0)
    assert remaining(timer, 10_000.0) == math.inf and not expired(timer, 10_000.0)
    assert next_turn(timer, 5.0).player == "Bob"


def test_configure_keeps_a_running_timer_when_nothing_changed():
    timer = start(fresh(), 100.0)
    assert configure(timer, list(SEATS), 60) is timer


def test_configure_starts_a_fresh_paused_turn_when_settings_change():
    timer = next_turn(start(fresh(), 100.0), 110.0)  # Bob's turn, running
    longer = configure(timer, SEATS, 120)
    assert longer == TurnTimer(SEATS, current=1, turn_seconds=120)  # same seat, clock reset
    others = configure(timer, ("Dee", "Eve"), 60)
    assert others == TurnTimer(("Dee", "Eve"), current=0, turn_seconds=60)
    assert configure(None, SEATS, None) == TurnTimer(SEATS, turn_seconds=None)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"players": ()}, "at least one player"),
        ({"players": SEATS, "current": 3}, "Seat 3 does not exist"),
        ({"players": SEATS, "current": -1}, "Seat -1 does not exist"),
        ({"players": SEATS, "turn_seconds": 0}, "positive time"),
        ({"players": SEATS, "elapsed_before_pause": -1.0}, "cannot be negative"),
    ],
)
def test_impossible_timers_are_refused(fields, message):
    with pytest.raises(TimerError, match=message):
        TurnTimer(**fields)


def test_a_clock_read_before_the_start_is_refused():
    with pytest.raises(TimerError, match="before the turn started"):
        remaining(start(fresh(), 100.0), 99.0)


@pytest.mark.parametrize(("seconds", "text"), [(60, "1:00"), (59.01, "1:00"), (59.0, "0:59"), (0.2, "0:01"), (0, "0:00"), (120, "2:00")])
def test_clock_text_rounds_up_to_whole_seconds(seconds, text):
    assert clock_text(seconds) == text


@pytest.mark.parametrize("seconds", [math.inf, -1.0])
def test_clock_text_refuses_what_no_clock_shows(seconds):
    with pytest.raises(TimerError, match="No clock shows"):
        clock_text(seconds)


def test_the_beep_is_a_short_playable_wav():
    data = beep_wav(880.0, 0.4, 8000)
    with wave.open(io.BytesIO(data)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 1, 8000)
        frames = wav.readframes(wav.getnframes())
    assert len(frames) == 3200
    assert frames[0] == 128 and frames[-1] == 128  # faded in and out: no click
    assert max(frames) > 220 and min(frames) < 36  # loud enough in the middle


@pytest.mark.parametrize(("frequency", "duration", "rate"), [(0, 0.4, 8000), (880, 0, 8000), (5000, 0.4, 8000)])
def test_impossible_beeps_are_refused(frequency, duration, rate):
    with pytest.raises(TimerError, match="No beep"):
        beep_wav(frequency, duration, rate)
