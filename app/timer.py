"""The table-side turn timer as a value: whose turn it is and how long they have left.

Streamlit reruns the page on every tap and once a second while the clock runs, so the timer
never counts anything itself: it stores the moment the clock was started (a
``time.monotonic()`` reading passed in by the caller) and the time used before the last
pause, and every answer is computed from those timestamps. A rerun, however frequent or
late, can neither drift the clock nor reset it. No Streamlit here: the page only calls these
functions with ``time.monotonic()``, the tests call them with made-up readings.
"""

from __future__ import annotations

import io
import math
import wave
from collections.abc import Sequence
from dataclasses import dataclass, replace

#: The turn lengths the app offers, in seconds; 0 means the timer is off.
TURN_LENGTHS: tuple[int, ...] = (0, 60, 120)


class TimerError(ValueError):
    """A timer that cannot exist (no players, a bad seat or length) or a clock read backwards."""


@dataclass(frozen=True)
class TurnTimer:
    """Players in seat order, whose turn it is, and the turn's clock.

    ``turn_seconds`` is ``None`` when the timer is off (the seat is still tracked).
    ``started_at`` is the monotonic reading when the clock last started, ``None`` while it is
    paused; ``elapsed_before_pause`` is the time the current turn used before that.
    """

    players: tuple[str, ...]
    current: int = 0
    turn_seconds: float | None = 60
    started_at: float | None = None
    elapsed_before_pause: float = 0.0

    def __post_init__(self) -> None:
        if not self.players:
            raise TimerError("A turn timer needs at least one player.")
        if not 0 <= self.current < len(self.players):
            raise TimerError(f"Seat {self.current} does not exist among {len(self.players)} players.")
        if self.turn_seconds is not None and not self.turn_seconds > 0:
            raise TimerError(f"A turn must last a positive time, not {self.turn_seconds} s.")
        if self.elapsed_before_pause < 0:
            raise TimerError(f"Time used cannot be negative ({self.elapsed_before_pause} s).")

    @property
    def running(self) -> bool:
        return self.started_at is not None

    @property
    def player(self) -> str:
        """The player whose turn it is."""
        return self.players[self.current]


def configure(timer: TurnTimer | None, players: Sequence[str], turn_seconds: float | None) -> TurnTimer:
    """The timer for these settings: ``timer`` itself when they are unchanged (so a rerun keeps
    the running clock), else a paused timer at a fresh turn (same seat if the players are the same)."""
    players = tuple(players)
    if timer is not None and timer.players == players and timer.turn_seconds == turn_seconds:
        return timer
    seat = timer.current if timer is not None and timer.players == players else 0
    return TurnTimer(players, seat, turn_seconds)


def elapsed(timer: TurnTimer, now: float) -> float:
    """Seconds the current turn has used at monotonic time ``now``."""
    if timer.started_at is None:
        return timer.elapsed_before_pause
    if now < timer.started_at:
        raise TimerError(f"The clock reads {now}, before the turn started at {timer.started_at}.")
    return timer.elapsed_before_pause + (now - timer.started_at)


def start(timer: TurnTimer, now: float) -> TurnTimer:
    """Run the clock from ``now`` (resuming after a pause); a running timer is left as it is."""
    return timer if timer.running else replace(timer, started_at=now)


def pause(timer: TurnTimer, now: float) -> TurnTimer:
    """Stop the clock, keeping the time the turn has used; a paused timer is left as it is."""
    if not timer.running:
        return timer
    return replace(timer, started_at=None, elapsed_before_pause=elapsed(timer, now))


def next_turn(timer: TurnTimer, now: float) -> TurnTimer:
    """The next player in seat order, with a full turn whose clock runs from ``now``."""
    return replace(timer, current=(timer.current + 1) % len(timer.players), started_at=now, elapsed_before_pause=0.0)


def remaining(timer: TurnTimer, now: float) -> float:
    """Seconds left in the turn (never below 0); infinite when the timer is off."""
    if timer.turn_seconds is None:
        return math.inf
    return max(0.0, timer.turn_seconds - elapsed(timer, now))


def expired(timer: TurnTimer, now: float) -> bool:
    """Whether the turn's time is up (never, when the timer is off)."""
    return timer.turn_seconds is not None and elapsed(timer, now) >= timer.turn_seconds


def clock_text(seconds: float) -> str:
    """``m:ss`` as a countdown shows it: whole seconds rounded up, so ``0:00`` means time is up."""
    if math.isinf(seconds) or seconds < 0:
        raise TimerError(f"No clock shows {seconds} s.")
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def beep_wav(frequency_hz: float = 880.0, duration_s: float = 0.4, rate_hz: int = 8000) -> bytes:
    """A short sine beep as a mono 8-bit WAV file, made here so the app ships no sound files.

    The volume fades in and out over 20 ms so the speaker does not click.
    """
    if frequency_hz <= 0 or duration_s <= 0 or rate_hz <= 2 * frequency_hz:
        raise TimerError(f"No beep of {frequency_hz} Hz for {duration_s} s at {rate_hz} samples/s.")
    count = int(duration_s * rate_hz)
    fade = max(1, int(0.02 * rate_hz))
    samples = bytearray()
    for i in range(count):
        envelope = min(1.0, i / fade, (count - 1 - i) / fade)
        samples.append(128 + round(100 * envelope * math.sin(2 * math.pi * frequency_hz * i / rate_hz)))
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(1)
        wav.setframerate(rate_hz)
        wav.writeframes(bytes(samples))
    return out.getvalue()
