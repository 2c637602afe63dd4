"""Adapter to the reference implementation, the PyPI package ``rummikub-solver`` 1.0.

That package (Martijn Pieters' implementation of den Hertog & Hulshof's ILP on cvxpy) numbers
tiles 1..53: colour-major in the order black, blue, orange, red, numbers 1-13, then the joker
as 53. Our :attr:`solver.tiles.Tile.index` is the same order from 0, so the reference's tile is
``ruleset.tiles[tile.index]``. A game state only holds tile counts (table and rack), not the
melds as laid, so the table's arrangement is the reference's own business.

What it cannot represent (documented in ``benchmarks/README.md``): its catalogue has runs of
3-5 tiles with jokers only *inside* runs of 4-5, and groups of 4 without jokers. A table such
as ``[red 4, red 5, red 6, joker]`` or ``[black 5, blue 5, orange 5, joker]`` therefore has no
arrangement in its model, and it answers "no move" for every rack on such a table.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass
from typing import Iterator

from solver.position import Position


@dataclass(frozen=True)
class ReferenceResult:
    seconds: float
    tiles_placed: int


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silence C-level prints (HiGHS prints a banner on its first solve)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def available_backends() -> list[str]:
    """The MILP backends of rummikub-solver that are installed here, its default first."""
    from rummikub_solver import MILPSolver
    from rummikub_solver._types import DEFAULT_MILP_BACKENDS

    supported = MILPSolver.supported()
    default = next(b for b in DEFAULT_MILP_BACKENDS if b in supported)
    ordered = [default] + [b for b in (MILPSolver.SCIPY, MILPSolver.HIGHS, MILPSolver.GLPK_MI, MILPSolver.CBC,
                                       MILPSolver.SCIP) if b in supported and b != default]
    return [str(b) for b in ordered]


def default_backend() -> str:
    return available_backends()[0]


class ReferenceSolver:
    """One rummikub-solver rule set (standard rules) bound to one MILP backend."""

    def __init__(self, backend: str) -> None:
        from rummikub_solver import MILPSolver, RuleSet

        self.backend = backend
        self.ruleset = RuleSet(solver_backend=MILPSolver(backend))
        self._tiles = self.ruleset.tiles

    def state(self, position: Position):
        """The reference's game state for ``position`` (tile counts only)."""
        state = self.ruleset.new_game()
        state.add_table(*(self._tiles[t.index] for t in position.table_tiles))
        state.add_rack(*(self._tiles[t.index] for t in position.rack))
        state.initial = not position.initial_meld_done
        return state

    def can_arrange_table(self, position: Position) -> bool:
        """Whether the reference's model has any arrangement of all table tiles, jokers included.

        Its public ``arrange_table`` leaves jokers "free" when the rest can be arranged
        without them, so this asks its solver directly (an internal call, diagnostics only).
        """
        from rummikub_solver import SolverMode

        if not position.table:
            return True
        table_only = self.state(position).table_only()
        with quiet_stdout():
            solution = self.ruleset._solver(SolverMode.TILE_COUNT, table_only)
        return bool(solution.set_indices)

    def solve(self, position: Position) -> ReferenceResult:
        """Time one tile-count solve; a ``None`` answer counts as no tile placed."""
        state = self.state(position)
        with quiet_stdout():
            start = time.perf_counter()
            proposal = self.ruleset.solve(state)
            seconds = time.perf_counter() - start
        return ReferenceResult(seconds, len(proposal.tiles) if proposal else 0)
