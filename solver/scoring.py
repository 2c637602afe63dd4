"""End-of-round scoring and the game's score sheet.

A round ends in one of two ways: a player goes out (:class:`WentOut`), or the pool is
exhausted and nobody can move (:class:`PoolExhausted`). :func:`score_round` turns the racks
left over into signed scores; every round sums to zero, and :class:`RoundResult` refuses to
exist otherwise. :class:`ScoreSheet` adds rounds up into a game.

Scoring, per rule set (see :class:`solver.rules.PoolOutScoring`):

* **Went out** - each other player scores minus their rack total (a joker costs
  ``rules.joker_penalty``); the player who went out scores plus the sum.
* **Pool exhausted, LOWEST_TOTAL_PAYS_DIFFERENCE** (default) - the lowest rack total wins;
  each other player pays the difference between their total and the winner's.
* **Pool exhausted, FEWEST_TILES** - the fewest tiles wins (ties broken by the lower rack
  total), scored as if that player had gone out: each other player pays their own total.
* **Pool exhausted, LOWEST_TOTAL_OWN_RACK** - the lowest total wins; each other player pays
  their own rack total.

Ties for the win (pool exhausted only): every player tied on the winning key wins and pays
nothing; the pot (what the losers pay) is split evenly between the tied winners, and the
integer remainder goes one point each to the tied winners in seating order (the order the
racks were given). So scores stay integers and the round still sums to zero. When every
player ties, nobody pays and everyone scores 0.

Players who never made the initial meld are scored like the others
(:data:`UnmeldedScoring.LIKE_OTHERS`, the only variant so far).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from .rules import STANDARD, ImpossibleStateError, PoolOutScoring, RuleSet, UnmeldedScoring, check_tile_limits
from .tiles import Tile


class ScoringError(ValueError):
    """A round or score sheet that cannot be scored as described (the message says why)."""


@dataclass(frozen=True)
class PlayerRack:
    """A player's name and the tiles left on their rack when the round ended."""

    name: str
    tiles: tuple[Tile, ...]
    made_initial_meld: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", tuple(self.tiles))


@dataclass(frozen=True)
class WentOut:
    """The round ended because ``player`` played their last tile."""

    player: str


@dataclass(frozen=True)
class PoolExhausted:
    """The round ended because the pool is empty and nobody can move."""


Outcome = WentOut | PoolExhausted


@dataclass(frozen=True)
class PlayerScore:
    """One player's result: rack left, its total, the signed score for the round."""

    name: str
    tiles: tuple[Tile, ...]
    rack_total: int
    score: int
    winner: bool


@dataclass(frozen=True)
class RoundResult:
    """A scored round. Construction checks that the scores sum to zero."""

    outcome: Outcome
    scores: tuple[PlayerScore, ...]
    rules: RuleSet = field(default=STANDARD)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", tuple(self.scores))
        balance = sum(s.score for s in self.scores)
        if balance != 0:
            raise ScoringError(f"a round must sum to zero, these scores sum to {balance}")

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.scores if s.winner)

    @property
    def by_name(self) -> dict[str, PlayerScore]:
        return {s.name: s for s in self.scores}

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.scores)


def rack_total(tiles: Iterable[Tile], rules: RuleSet = STANDARD) -> int:
    """Points left on a rack: face values, a joker costs ``rules.joker_penalty``."""
    return sum(rules.penalty(t) for t in tiles)


def score_round(
    racks: Sequence[PlayerRack], outcome: Outcome, rules: RuleSet = STANDARD
) -> RoundResult:
    """Score one round from the racks left over (in seating order) and how it ended.

    Raises :class:`ScoringError` for fewer than two players, duplicate or empty names, an
    unknown winner, a player who went out with tiles left, or racks holding more copies of a
    tile than the game has (per rack and all racks together).
    """
    racks = tuple(racks)
    _check_players([r.name for r in racks])
    _check_racks(racks, rules)
    if rules.unmelded_scoring is not UnmeldedScoring.LIKE_OTHERS:  # pragma: no cover - one variant today
        raise ScoringError(f"unsupported unmelded scoring: {rules.unmelded_scoring}")
    totals = [rack_total(r.tiles, rules) for r in racks]
    if isinstance(outcome, WentOut):
        winners, payments = _went_out(racks, totals, outcome)
    elif isinstance(outcome, PoolExhausted):
        winners, payments = _pool_exhausted(racks, totals, rules.pool_out_scoring)
    else:
        raise ScoringError(f"unknown round outcome: {outcome!r}")
    gains = _split_pot(sum(payments), winners, len(racks))
    scores = tuple(
        PlayerScore(r.name, r.tiles, total, gains[i] - payments[i], i in winners)
        for i, (r, total) in enumerate(zip(racks, totals))
    )
    return RoundResult(outcome, scores, rules)


def _check_players(names: Sequence[str]) -> None:
    if len(names) < 2:
        raise ScoringError(f"a round needs at least 2 players, got {len(names)}")
    if any(not n.strip() for n in names):
        raise ScoringError("every player needs a name")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ScoringError(f"duplicate player names: {', '.join(duplicates)}")


def _check_racks(racks: Sequence[PlayerRack], rules: RuleSet) -> None:
    for rack in racks:
        try:
            check_tile_limits(rack.tiles, rules)
        except ImpossibleStateError as err:
            raise ScoringError(f"{rack.name}'s rack is impossible: {err}") from err
    try:
        check_tile_limits((t for r in racks for t in r.tiles), rules)
    except ImpossibleStateError as err:
        raise ScoringError(f"the racks together are impossible: {err}") from err


def _went_out(
    racks: Sequence[PlayerRack], totals: Sequence[int], outcome: WentOut
) -> tuple[frozenset[int], list[int]]:
    names = [r.name for r in racks]
    if outcome.player not in names:
        raise ScoringError(f"{outcome.player!r} went out but is not a player of this round")
    winner = names.index(outcome.player)
    if racks[winner].tiles:
        raise ScoringError(
            f"{outcome.player} went out but still holds {len(racks[winner].tiles)} tile(s)"
        )
    return frozenset({winner}), [0 if i == winner else t for i, t in enumerate(totals)]


def _pool_exhausted(
    racks: Sequence[PlayerRack], totals: Sequence[int], variant: PoolOutScoring
) -> tuple[frozenset[int], list[int]]:
    key: Callable[[int], object]
    if variant is PoolOutScoring.FEWEST_TILES:
        key = lambda i: (len(racks[i].tiles), totals[i])  # noqa: E731
    else:
        key = lambda i: totals[i]  # noqa: E731
    best = min(key(i) for i in range(len(racks)))
    winners = frozenset(i for i in range(len(racks)) if key(i) == best)
    if variant is PoolOutScoring.LOWEST_TOTAL_PAYS_DIFFERENCE:
        floor = min(totals)
        payments = [0 if i in winners else t - floor for i, t in enumerate(totals)]
    else:
        payments = [0 if i in winners else t for i, t in enumerate(totals)]
    return winners, payments


def _split_pot(pot: int, winners: frozenset[int], players: int) -> list[int]:
    """Each winner's share of ``pot``: even split, remainder one each in seating order."""
    share, remainder = divmod(pot, len(winners))
    gains = [0] * players
    for rank, i in enumerate(sorted(winners)):
        gains[i] = share + (1 if rank < remainder else 0)
    return gains


@dataclass(frozen=True)
class ScoreSheet:
    """The game so far: the players (seating order) and each scored round.

    Edits return a new sheet; totals are always recomputed from the rounds.
    """

    players: tuple[str, ...]
    rounds: tuple[RoundResult, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "rounds", tuple(self.rounds))
        _check_players(self.players)
        for result in self.rounds:
            self._check_round(result)

    def add(self, result: RoundResult) -> "ScoreSheet":
        self._check_round(result)
        return ScoreSheet(self.players, self.rounds + (result,))

    def replace(self, index: int, result: RoundResult) -> "ScoreSheet":
        self._check_index(index)
        self._check_round(result)
        rounds = list(self.rounds)
        rounds[index] = result
        return ScoreSheet(self.players, tuple(rounds))

    def remove(self, index: int) -> "ScoreSheet":
        self._check_index(index)
        return ScoreSheet(self.players, self.rounds[:index] + self.rounds[index + 1 :])

    def totals(self) -> dict[str, int]:
        """Each player's game score after every round."""
        running = self.running_totals()
        return running[-1] if running else {p: 0 for p in self.players}

    def running_totals(self) -> list[dict[str, int]]:
        """Each player's game score after round 1, 2, ... (one dict per round)."""
        current = {p: 0 for p in self.players}
        history = []
        for result in self.rounds:
            scores = result.by_name
            current = {p: current[p] + scores[p].score for p in self.players}
            history.append(current)
        return history

    def _check_round(self, result: RoundResult) -> None:
        if sorted(result.players) != sorted(self.players):
            raise ScoringError(
                f"round players {', '.join(result.players)} differ from the sheet's "
                f"{', '.join(self.players)}"
            )

    def _check_index(self, index: int) -> None:
        if not 0 <= index < len(self.rounds):
            raise ScoringError(f"no round {index} on a sheet of {len(self.rounds)} round(s)")


__all__ = [
    "Outcome",
    "PlayerRack",
    "PlayerScore",
    "PoolExhausted",
    "RoundResult",
    "ScoreSheet",
    "ScoringError",
    "WentOut",
    "rack_total",
    "score_round",
]
