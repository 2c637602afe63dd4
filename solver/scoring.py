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

Players who never made the initial meld (``PlayerRack.made_initial_meld`` false), per rule
set (see :class:`solver.rules.UnmeldedScoring`):

* **LIKE_OTHERS** (default) - scored exactly like the others.
* **PAYS_EACH_PLAYER** (Pressman) - their rack total is added to each other player's score.
  So that the round still sums to zero, they pay that total to *every* other player (they
  score minus ``(players - 1) x total``) and do not take part in the ordinary scoring: they
  cannot win, and the winner and the payments above are worked out among the players who
  did meld. The player who went out has melded by definition, whatever their flag says.
  When nobody melded (pool exhausted), nobody wins and only these payments are made.
* **FIXED_CHARGE** (Mind Sports Olympiad) - instead of their rack total they pay 100, or 200
  when they could have made the initial meld (``PlayerRack.could_have_melded``, which the
  scorekeeper sets). As under Pressman they cannot win and the winner is worked out among the
  players who did meld; the charge is a payment like the others, split between the winners, so
  the round stays zero-sum. When nobody melded (pool exhausted), nobody wins, so nobody is
  charged and the round scores 0 for everyone.

Errors are :class:`solver.i18n.TranslatableError`: the CLI and the app show them translated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from .i18n import TranslatableError
from .rules import (
    STANDARD,
    UNMELDED_CHARGE,
    UNMELDED_CHARGE_COULD_MELD,
    ImpossibleStateError,
    PoolOutScoring,
    RuleSet,
    UnmeldedScoring,
    check_tile_limits,
)
from .tiles import Tile


class ScoringError(TranslatableError, ValueError):
    """A round or score sheet that cannot be scored as described (the message says why)."""


@dataclass(frozen=True)
class PlayerRack:
    """A player's name and the tiles left on their rack when the round ended.

    ``could_have_melded`` (only read when ``made_initial_meld`` is false): the player held an
    initial meld and chose not to play it, which some rules charge more for.
    """

    name: str
    tiles: tuple[Tile, ...]
    made_initial_meld: bool = True
    could_have_melded: bool = False

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
            raise ScoringError("a round must sum to zero, these scores sum to {balance}", balance=balance)

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
    check_player_count(len(racks), rules)
    _check_racks(racks, rules)
    totals = [rack_total(r.tiles, rules) for r in racks]
    if isinstance(outcome, WentOut):
        winners, payments = _went_out(racks, totals, outcome)
    elif isinstance(outcome, PoolExhausted):
        winners, payments = (), []
    else:
        raise ScoringError("unknown round outcome: {outcome}", outcome=repr(outcome))
    counted = _ordinary_players(racks, winners, rules.unmelded_scoring)
    if isinstance(outcome, PoolExhausted):
        winners, payments = _pool_exhausted(racks, totals, rules.pool_out_scoring, counted)
    payments = [p if i in counted else 0 for i, p in enumerate(payments)]
    extra = [0] * len(racks)
    if rules.unmelded_scoring is UnmeldedScoring.PAYS_EACH_PLAYER:
        extra = _unmelded_payments(totals, counted)
    elif rules.unmelded_scoring is UnmeldedScoring.FIXED_CHARGE and winners:
        payments = [p if i in counted else unmelded_charge(racks[i]) for i, p in enumerate(payments)]
    gains = _split_pot(sum(payments), winners, len(racks))
    scores = tuple(
        PlayerScore(r.name, r.tiles, total, gains[i] - payments[i] + extra[i], i in winners)
        for i, (r, total) in enumerate(zip(racks, totals))
    )
    return RoundResult(outcome, scores, rules)


def _ordinary_players(
    racks: Sequence[PlayerRack], went_out: Iterable[int], variant: UnmeldedScoring
) -> frozenset[int]:
    """Seats scored the ordinary way: everyone, or (Pressman, MSO) those who melded or went out."""
    if variant is UnmeldedScoring.LIKE_OTHERS:
        return frozenset(range(len(racks)))
    return frozenset(i for i, r in enumerate(racks) if r.made_initial_meld) | frozenset(went_out)


def unmelded_charge(rack: PlayerRack) -> int:
    """What a player who never melded pays under :attr:`UnmeldedScoring.FIXED_CHARGE`."""
    return UNMELDED_CHARGE_COULD_MELD if rack.could_have_melded else UNMELDED_CHARGE


def check_player_count(count: int, rules: RuleSet) -> None:
    """Raise :class:`ScoringError` when the rules are for a fixed number of players and
    ``count`` is another (a tournament game is for two)."""
    if rules.players and count != rules.players:
        raise ScoringError(
            "these rules are for {players} players, this game has {count}", players=rules.players, count=count
        )


def _unmelded_payments(totals: Sequence[int], counted: frozenset[int]) -> list[int]:
    """Each player's net from the unmelded players' payments: every seat outside ``counted``
    pays its rack total to each other seat (zero-sum by construction)."""
    unmelded = [i for i in range(len(totals)) if i not in counted]
    paid = sum(totals[i] for i in unmelded)
    return [
        paid - totals[i] - (len(totals) - 1) * totals[i] if i in unmelded else paid
        for i in range(len(totals))
    ]


def _check_players(names: Sequence[str]) -> None:
    if len(names) < 2:
        raise ScoringError("a round needs at least 2 players, got {count}", count=len(names))
    if any(not n.strip() for n in names):
        raise ScoringError("every player needs a name")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ScoringError("duplicate player names: {names}", names=", ".join(duplicates))


def _check_racks(racks: Sequence[PlayerRack], rules: RuleSet) -> None:
    for rack in racks:
        try:
            check_tile_limits(rack.tiles, rules)
        except ImpossibleStateError as err:
            raise ScoringError("{name}'s rack is impossible: {reason}", name=rack.name, reason=err) from err
    try:
        check_tile_limits((t for r in racks for t in r.tiles), rules)
    except ImpossibleStateError as err:
        raise ScoringError("the racks together are impossible: {reason}", reason=err) from err


def _went_out(
    racks: Sequence[PlayerRack], totals: Sequence[int], outcome: WentOut
) -> tuple[frozenset[int], list[int]]:
    names = [r.name for r in racks]
    if outcome.player not in names:
        raise ScoringError("{name!r} went out but is not a player of this round", name=outcome.player)
    winner = names.index(outcome.player)
    if racks[winner].tiles:
        raise ScoringError(
            "{name} went out but still holds {count} tile(s)", name=outcome.player, count=len(racks[winner].tiles)
        )
    return frozenset({winner}), [0 if i == winner else t for i, t in enumerate(totals)]


def _pool_exhausted(
    racks: Sequence[PlayerRack], totals: Sequence[int], variant: PoolOutScoring, counted: frozenset[int]
) -> tuple[frozenset[int], list[int]]:
    """Winners and payments among the ``counted`` seats (the others pay nothing here)."""
    if not counted:
        return frozenset(), [0] * len(racks)
    key: Callable[[int], object]
    if variant is PoolOutScoring.FEWEST_TILES:
        key = lambda i: (len(racks[i].tiles), totals[i])  # noqa: E731
    else:
        key = lambda i: totals[i]  # noqa: E731
    best = min(key(i) for i in counted)
    winners = frozenset(i for i in counted if key(i) == best)
    if variant is PoolOutScoring.LOWEST_TOTAL_PAYS_DIFFERENCE:
        floor = min(totals[i] for i in counted)
        payments = [0 if i in winners else t - floor for i, t in enumerate(totals)]
    else:
        payments = [0 if i in winners else t for i, t in enumerate(totals)]
    return winners, payments


def _split_pot(pot: int, winners: frozenset[int], players: int) -> list[int]:
    """Each winner's share of ``pot``: even split, remainder one each in seating order."""
    if not winners:
        return [0] * players
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
                "round players {round} differ from the sheet's {sheet}",
                round=", ".join(result.players), sheet=", ".join(self.players),
            )

    def _check_index(self, index: int) -> None:
        if not 0 <= index < len(self.rounds):
            raise ScoringError("no round {index} on a sheet of {count} round(s)", index=index, count=len(self.rounds))


__all__ = [
    "Outcome",
    "PlayerRack",
    "PlayerScore",
    "PoolExhausted",
    "RoundResult",
    "ScoreSheet",
    "ScoringError",
    "WentOut",
    "check_player_count",
    "rack_total",
    "score_round",
    "unmelded_charge",
]
