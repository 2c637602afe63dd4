"""Property tests of the move solver against an independent checker and a brute-force optimum.

Positions come from the seeded generator in :mod:`benchmarks.positions`; hypothesis only
draws the seeds and sizes, derandomized, so every run checks the same positions.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.positions import deal_position, full_pool, restricted_pool, shuffled_bag
from solver import PRESETS, Action, Objective, Position, solve
from solver.rules import STANDARD
from solver.tiles import Tile
from tests.brute import brute_optimum
from tests.oracle import assert_legal, is_valid_tiles

PROPERTY_SETTINGS = settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

seeds = st.integers(min_value=0, max_value=2**32 - 1)
objectives = st.sampled_from(list(Objective))


def tiny_position(seed: int, table_jokers: bool = True) -> Position:
    """Table of 0-6 tiles and rack of 0-5 from a small pool, so brute force is quick."""
    rng = random.Random(seed)
    pool = restricted_pool(rng)
    table_size = rng.choice([0, 3, 4, 5, 6])
    return deal_position(rng, table_size, rng.randint(0, 5), table_jokers=table_jokers, pool=pool)


def opening_position(seed: int) -> Position:
    """A player who has not opened: rack of 3-8 high tiles (about 40% can open), small table."""
    rng = random.Random(seed)
    pool = restricted_pool(rng, lowest=7)
    return deal_position(rng, rng.choice([0, 3, 6]), rng.randint(3, 8), initial_meld_done=False, pool=pool)


@PROPERTY_SETTINGS
@given(seed=seeds, table_size=st.sampled_from([0, 10, 20, 30]), rack_size=st.integers(0, 16),
       opened=st.booleans(), objective=objectives)
def test_every_suggestion_is_legal(seed: int, table_size: int, rack_size: int, opened: bool, objective: Objective) -> None:
    position = deal_position(random.Random(seed), table_size, rack_size, initial_meld_done=opened)
    assert_legal(position, solve(position, objective))


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(seed=seeds)
def test_tiles_placed_matches_brute_force(seed: int) -> None:
    position = tiny_position(seed)
    suggestion = solve(position, Objective.TILES)
    assert_legal(position, suggestion)
    assert suggestion.tiles_placed == brute_optimum(position).tiles


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(seed=seeds)
def test_least_disruption_matches_brute_force(seed: int) -> None:
    # Among the moves placing the most tiles: most old melds untouched, then fewest moved.
    position = tiny_position(seed)
    suggestion = solve(position, Objective.TILES)
    optimum = brute_optimum(position)
    assert suggestion.tiles_placed == optimum.tiles
    if suggestion.action is Action.PLAY:
        assert (suggestion.melds_untouched, suggestion.tiles_moved) == (
            optimum.untouched_at_max_tiles,
            optimum.moved_at_max_tiles,
        )


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(seed=seeds)
def test_value_placed_matches_brute_force_without_table_jokers(seed: int) -> None:
    # Value placed: the worth of the rack tiles played, a rack joker as the tile it stands for.
    # (With table jokers the solver credits rack jokers with the jokers' net gain in worth;
    # the oracle checks that, but brute force does not model it.)
    position = tiny_position(seed, table_jokers=False)
    suggestion = solve(position, Objective.VALUE)
    assert_legal(position, suggestion)
    assert suggestion.value_placed == brute_optimum(position).value


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(seed=seeds, objective=objectives)
def test_initial_meld_matches_brute_force(seed: int, objective: Objective) -> None:
    position = opening_position(seed)
    suggestion = solve(position, objective)
    assert_legal(position, suggestion)
    optimum = brute_optimum(position)
    if objective is Objective.TILES:
        assert suggestion.tiles_placed == optimum.tiles
    else:
        assert suggestion.value_placed == optimum.value
    if suggestion.action is Action.DRAW:
        assert optimum.tiles == 0


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(seed=seeds)
def test_each_objective_is_best_at_what_it_maximises(seed: int) -> None:
    # Table jokers included: whatever value placed means, the value objective finds at least
    # as much of it as the tile objective, and the tile objective at least as many tiles.
    position = tiny_position(seed)
    by_tiles = solve(position, Objective.TILES)
    by_value = solve(position, Objective.VALUE)
    assert by_value.value_placed >= by_tiles.value_placed
    assert by_tiles.tiles_placed >= by_value.tiles_placed


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(seed=seeds, preset=st.sampled_from(sorted(PRESETS)), opened=st.booleans())
def test_rule_variants_match_brute_force(seed: int, preset: str, opened: bool) -> None:
    rules = PRESETS[preset]
    rng = random.Random(seed)
    pool = restricted_pool(rng, rules, lowest=1 if opened else 7)
    rack_size = rng.randint(0, 5) if opened else rng.randint(3, 8)
    position = deal_position(rng, rng.choice([0, 3, 6]), rack_size, rules, initial_meld_done=opened, pool=pool)
    suggestion = solve(position, Objective.TILES)
    assert_legal(position, suggestion)
    assert suggestion.tiles_placed == brute_optimum(position).tiles


def _whole_game(table: list[tuple[Tile, ...]], racks: list[list[Tile]], bag: list[Tile]) -> Counter[Tile]:
    return Counter(t for meld in table for t in meld) + Counter(t for rack in racks for t in rack) + Counter(bag)


def play_game(seed: int, players: int, max_turns: int) -> tuple[int, int]:
    """Play turn by turn with the solver's moves, checking every move and that no tile appears or vanishes.

    Returns how many moves were played and how many tiles drawn.
    """
    rng = random.Random(seed)
    everything = full_pool(STANDARD)
    bag = shuffled_bag(everything, rng)
    racks = [[bag.pop() for _ in range(STANDARD.starting_tiles)] for _ in range(players)]
    opened = [False] * players
    table: list[tuple[Tile, ...]] = []
    moves = draws = passes = 0
    for turn in range(max_turns):
        player = turn % players
        position = Position(tuple(table), tuple(racks[player]), initial_meld_done=opened[player])
        objective = Objective.VALUE if turn % 5 == 4 else Objective.TILES
        suggestion = solve(position, objective)
        assert_legal(position, suggestion)
        if suggestion.action is Action.PLAY:
            moves += 1
            passes = 0
            opened[player] = True
            table = [new.meld.tiles for new in suggestion.new_table]
            rack = Counter(racks[player]) - Counter(suggestion.played)
            racks[player] = list(rack.elements())
        elif bag:
            draws += 1
            racks[player].append(bag.pop())
        else:
            passes += 1
        assert all(is_valid_tiles(meld, STANDARD) for meld in table)
        assert _whole_game(table, racks, bag) == everything, f"tiles lost or created on turn {turn}"
        if not racks[player] or passes >= players:
            break
    return moves, draws


@pytest.mark.parametrize("seed,players", [(1, 3), (2026, 4)])
def test_long_random_game_never_loses_or_creates_a_tile(seed: int, players: int) -> None:
    moves, draws = play_game(seed=seed, players=players, max_turns=120)
    assert moves >= 5 and draws >= 5  # the game really went on: tables built, tiles drawn
