"""A chess-style game clock as a value: each player's own time, a delay or increment per move.

Tournament Rummikub (the Mind Sports Olympiad's event, two players) is timed like chess: each
player has a main time for the whole game, and their clock runs only during their own moves.
Two ways to give time back per move are common:

* **Bronstein delay** (MSO 2019: 10 minutes + 10 s a move): the clock counts down from the
  start of the move; when the player ends the move, the time it took is given back, up to the
  delay. A move never leaves more time than the player had when it started.
* **Fischer increment**: when the player ends a move, the increment is added, however long the
  move took; time can pile up above the main time.

Either way the time is added only when a move is ended: a player whose clock reaches zero
during a move has run out of time ("flag fall"), whatever the delay.

Like :mod:`app.timer`, nothing here counts: the value stores each player's time at the start
of the running move and the moment it started (``time.monotonic()`` readings passed in), and
every answer is computed from those, so a rerun can neither drift nor reset the clock.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from solver.i18n import TranslatableError


class ClockError(TranslatableError, ValueError):
    """A clock that cannot exist (zero time, fewer than two players), read backwards, or
    a move ended after the player's time ran out."""


class PerMove(enum.Enum):
    """How time is given back for each move."""

    BRONSTEIN = "bronstein"
    FISCHER = "fischer"


@dataclass(frozen=True)
class ClockSettings:
    """Main time per player and the per-move delay or increment, in seconds."""

    main_seconds: float
    per_move_seconds: float = 0.0
    per_move: PerMove = PerMove.BRONSTEIN

    def __post_init__(self) -> None:
        if not self.main_seconds > 0:
            raise ClockError("a game clock needs a main time above zero")
        if self.per_move_seconds < 0:
            raise ClockError("the time per move cannot be negative ({seconds} s)", seconds=self.per_move_seconds)


#: The Mind Sports Olympiad's 2019 Rummikub event: 10 minutes each, Bronstein 10 s a move.
MSO_2019 = ClockSettings(600.0, 10.0, PerMove.BRONSTEIN)


@dataclass(frozen=True)
class GameClock:
    """Players in seat order, each one's time left, whose move it is, and that move's start.

    ``left[i]`` is player ``i``'s time when their current or next move starts (the running
    move's time is subtracted on reading). ``started_at`` is the monotonic reading when the
    running move's clock last started, ``None`` while the clock is paused; ``used_before_pause``
    is what the current move used before a pause.
    """

    players: tuple[str, ...]
    settings: ClockSettings
    left: tuple[float, ...]
    current: int = 0
    started_at: float | None = None
    used_before_pause: float = 0.0
    moves: int = 0

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise ClockError("a game clock is for at least two players")
        if len(self.left) != len(self.players):
            raise ClockError("each player needs their own time")
        if not 0 <= self.current < len(self.players):
            raise ClockError("seat {seat} does not exist among {count} players", seat=self.current, count=len(self.players))
        if self.used_before_pause < 0 or any(t < 0 for t in self.left):
            raise ClockError("time used or left cannot be negative")

    @property
    def running(self) -> bool:
        return self.started_at is not None

    @property
    def player(self) -> str:
        """The player whose move it is."""
        return self.players[self.current]


def new_clock(players: Sequence[str], settings: ClockSettings) -> GameClock:
    """A paused clock with every player's full main time, the first seat to move."""
    players = tuple(players)
    return GameClock(players, settings, tuple(settings.main_seconds for _ in players))


def configure(clock: GameClock | None, players: Sequence[str], settings: ClockSettings) -> GameClock:
    """``clock`` itself when the players and settings are unchanged (a rerun keeps it running),
    else a fresh clock for them."""
    if clock is not None and clock.players == tuple(players) and clock.settings == settings:
        return clock
    return new_clock(players, settings)


def move_time(clock: GameClock, now: float) -> float:
    """Seconds the current move has used at monotonic time ``now``."""
    if clock.started_at is None:
        return clock.used_before_pause
    if now < clock.started_at:
        raise ClockError("the clock reads {now}, before the move started at {start}", now=now, start=clock.started_at)
    return clock.used_before_pause + (now - clock.started_at)


def time_left(clock: GameClock, seat: int, now: float) -> float:
    """Player ``seat``'s time at ``now`` (never below 0): the running move counts down at once."""
    if seat != clock.current:
        return clock.left[seat]
    return max(0.0, clock.left[seat] - move_time(clock, now))


def out_of_time(clock: GameClock, now: float) -> bool:
    """Whether the player to move has no time left (their flag has fallen)."""
    return time_left(clock, clock.current, now) <= 0


def credit(settings: ClockSettings, used: float) -> float:
    """Time given back for a move that took ``used`` seconds: up to the delay (Bronstein),
    or the whole increment (Fischer)."""
    if settings.per_move is PerMove.BRONSTEIN:
        return min(used, settings.per_move_seconds)
    return settings.per_move_seconds


def start(clock: GameClock, now: float) -> GameClock:
    """Run the current player's clock from ``now``; a running clock is left as it is."""
    return clock if clock.running else replace(clock, started_at=now)


def pause(clock: GameClock, now: float) -> GameClock:
    """Stop the clock, keeping what the current move has used; a paused clock is left as it is."""
    if not clock.running:
        return clock
    return replace(clock, started_at=None, used_before_pause=move_time(clock, now))


def end_move(clock: GameClock, now: float) -> GameClock:
    """The player to move ends their move at ``now`` (presses the clock): their time loses
    what the move used and gains the delay or increment, and the next player's clock runs.

    Raises :class:`ClockError` when their time ran out first: that is a loss on time, and no
    later credit undoes it.
    """
    if out_of_time(clock, now):
        raise ClockError("{player}'s time ran out before the move was ended", player=clock.player)
    used = move_time(clock, now)
    left = list(clock.left)
    left[clock.current] = left[clock.current] - used + credit(clock.settings, used)
    return replace(
        clock, left=tuple(left), current=(clock.current + 1) % len(clock.players),
        started_at=now, used_before_pause=0.0, moves=clock.moves + 1,
    )
