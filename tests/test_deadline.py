"""The move's time budget (:mod:`solver.deadline`)."""

from __future__ import annotations

import math
import time

import pytest

from solver.deadline import MIN_CALL_S, Deadline


@pytest.mark.parametrize("seconds", [0.0, -1.0, math.nan])
def test_a_time_limit_must_be_positive(seconds: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        Deadline.after(seconds)


def test_time_left_shrinks_and_never_exceeds_the_limit() -> None:
    deadline = Deadline.after(60.0)
    first = deadline.left()
    assert MIN_CALL_S < first <= 60.0
    assert deadline.left() <= first


def test_past_the_deadline_a_call_still_gets_the_least_time() -> None:
    # Solvers read a zero limit as none at all, so a late call must still be bounded.
    assert Deadline(time.monotonic() - 10.0).left() == MIN_CALL_S
