"""The integer program of an initial meld, and the reading of its answer: new melds from the
rack only (every meld the rack can form, :mod:`solver.search` drops those with jokers when
the rules say so), together worth at least the rules' threshold."""

from __future__ import annotations

import numpy as np

from .mip import IntegerProgram, Rows
from .move_program import copies_bound
from .problem import Outcome, Problem
from .position import Objective
from .tiles import MAX_NUMBER


def program(problem: Problem, objective: Objective) -> IntegerProgram:
    """Most tiles placed (then most value) or most value, over the problem's catalogue.

    Columns: copies of each candidate, then ``play``; value >= threshold * play, and nothing
    is laid unless play.
    """
    cat = problem.catalogue
    rack = problem.rack_counts
    n_x = len(cat.melds)
    play = n_x
    kinds = np.nonzero(rack)[0]
    usage = cat.usage[:, kinds]
    cols, rows = np.nonzero(usage.T)[::-1]
    uses = Rows(rows, cols, usage[cols, rows].astype(np.float64), rack[kinds].astype(np.float64))
    everything = np.arange(n_x)
    threshold = Rows(
        np.zeros(n_x + 1, np.int64), np.r_[everything, play],
        np.r_[-cat.values.astype(np.float64), float(problem.rules.initial_meld_threshold)], np.zeros(1),
    )
    laid = Rows(np.zeros(n_x + 1, np.int64), np.r_[everything, play], np.r_[np.ones(n_x), -float(rack.sum())], np.zeros(1))
    # Tile objective: among openings with the most tiles, the most valuable one.
    tiebreak = int(rack.sum()) * MAX_NUMBER + 1 if objective is Objective.TILES else 0
    scores = _primary(problem, objective) * max(tiebreak, 1) + (cat.values if tiebreak else 0)
    return IntegerProgram(
        np.r_[scores.astype(np.float64), 0.0],
        np.r_[copies_bound(cat.usage, rack).astype(np.float64), 1.0],
        Rows.empty(),
        uses.stacked(threshold).stacked(laid),
        np.zeros(n_x + 1, dtype=bool),
    )


def read(problem: Problem, objective: Objective, values: np.ndarray, optimal: bool) -> Outcome:
    """The opening a solution of :func:`program` stands for."""
    cat = problem.catalogue
    primary = _primary(problem, objective)
    counts = {k: int(n) for k, n in enumerate(np.round(values[:len(cat.melds)]).astype(np.int64)) if n}
    laid = tuple(cat.melds[k] for k, n in counts.items() for _ in range(n))
    return Outcome(laid, (), sum(int(primary[k]) * n for k, n in counts.items()), optimal)


def _primary(problem: Problem, objective: Objective) -> np.ndarray:
    """Per candidate, what laying it adds to the primary criterion: tiles or points."""
    cat = problem.catalogue
    return cat.usage.sum(axis=1) if objective is Objective.TILES else cat.values
