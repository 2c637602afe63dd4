"""Tile notation: canonical and short forms, meld parsing, and every error path."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.tiles import (
    ALL_NUMBERED, JOKER, Colour, NotationError, Tile, format_melds, format_tiles, parse_melds, parse_tile,
    parse_tiles,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("red-7", Tile(Colour.RED, 7)),
        ("RED-7", Tile(Colour.RED, 7)),
        ("r7", Tile(Colour.RED, 7)),
        ("k13", Tile(Colour.BLACK, 13)),
        ("black_13", Tile(Colour.BLACK, 13)),
        ("b1", Tile(Colour.BLUE, 1)),
        ("o5", Tile(Colour.ORANGE, 5)),
        ("orange5", Tile(Colour.ORANGE, 5)),
        ("j", JOKER),
        ("Joker", JOKER),
    ],
)
def test_parse_tile_accepts_every_documented_form(text: str, expected: Tile) -> None:
    assert parse_tile(text) == expected


@pytest.mark.parametrize(
    "text, reason",
    [("r14", "number must be 1-13"), ("r0", "number must be 1-13"), ("g5", "unknown colour"),
     ("red", "unknown tile"), ("7", "unknown tile"), ("", "empty tile"), ("r-", "unknown tile")],
)
def test_parse_tile_rejects_bad_tokens_naming_them(text: str, reason: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_tile(text)
    assert err.value.token == text
    assert err.value.reason == reason


def test_parse_melds_splits_on_bars_and_newlines_and_tiles_on_spaces_or_commas() -> None:
    melds = parse_melds("r4 r5 r6 | k5,b5, o5\nj r9 r10\n\n|")
    assert [format_tiles(m, short=True) for m in melds] == ["r4 r5 r6", "k5 b5 o5", "j r9 r10"]


def test_parse_tiles_ignores_meld_separators() -> None:
    assert parse_tiles("r7 | j, k13") == (Tile(Colour.RED, 7), JOKER, Tile(Colour.BLACK, 13))


def test_parse_melds_names_the_bad_token() -> None:
    with pytest.raises(NotationError) as err:
        parse_melds("r4 r5 r6 | k5 x5 o5")
    assert err.value.token == "x5"


def test_index_round_trip_covers_all_53_kinds() -> None:
    indices = {t.index for t in ALL_NUMBERED} | {JOKER.index}
    assert indices == set(range(53))
    for t in ALL_NUMBERED + (JOKER,):
        assert Tile.from_index(t.index) == t


def test_tile_rejects_half_jokers_and_bad_numbers() -> None:
    with pytest.raises(ValueError):
        Tile(Colour.RED, None)
    with pytest.raises(ValueError):
        Tile(Colour.RED, 14)
    with pytest.raises(ValueError):
        Tile.from_index(53)


@settings(max_examples=100, derandomize=True)
@given(st.lists(st.lists(st.sampled_from(ALL_NUMBERED + (JOKER,)), min_size=1, max_size=6), max_size=6),
       st.booleans())
def test_format_then_parse_is_identity(melds: list[list[Tile]], short: bool) -> None:
    text = format_melds(melds, short=short)
    assert parse_melds(text) == tuple(tuple(m) for m in melds)
