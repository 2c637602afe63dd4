"""One time budget for all the optimiser calls of a move.

A move takes a relaxation and up to a few integer programs; each used to get the whole time
limit, so a hard position could keep a player waiting several limits long. They now share
one deadline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: The least time handed to a solver call, even past the deadline: solvers read a zero (or
#: negative) limit as "no limit" or reject it, and a call this short still returns at once.
MIN_CALL_S = 0.001


@dataclass(frozen=True)
class Deadline:
    """A point in time (``time.monotonic`` seconds) by which a move should be settled."""

    at: float

    @staticmethod
    def after(seconds: float) -> Deadline:
        if not seconds > 0:
            raise ValueError(f"a time limit must be positive, not {seconds!r}")
        return Deadline(time.monotonic() + seconds)

    def left(self) -> float:
        """Seconds left for the next solver call (at least :data:`MIN_CALL_S`)."""
        return max(self.at - time.monotonic(), MIN_CALL_S)
