"""Tile notation: canonical and short forms, meld parsing, and every error path."""

import copy as copy_module
import dataclasses
import pickle
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.tiles import (
    ALL_KINDS, ALL_NUMBERED, JOKER, Colour, NotationError, Tile, format_melds, format_tiles, kind_counts, parse_melds,
    TOKEN_SHOWN, parse_tile, parse_tiles,
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


ANY_TILE = st.builds(Tile, st.sampled_from(list(Colour)), st.integers(1, 13)) | st.just(Tile(None, None))


@settings(max_examples=300, derandomize=True)
@given(ANY_TILE, ANY_TILE)
def test_tiles_are_equal_exactly_when_colour_and_number_are_and_equal_tiles_hash_equal(a: Tile, b: Tile) -> None:
    assert (a == b) == ((a.colour, a.number) == (b.colour, b.number))
    assert (a != b) is not (a == b)
    if a == b:
        assert hash(a) == hash(b)
        assert len({a, b}) == 1
        assert {a: 1}[b] == 1


@settings(max_examples=100, derandomize=True)
@given(ANY_TILE)
def test_a_tile_equals_its_shared_kind_and_survives_pickle_and_copy(tile: Tile) -> None:
    assert Tile.from_index(tile.index) == tile
    assert Tile.from_index(tile.index) is ALL_KINDS[tile.index]
    for copy in (pickle.loads(pickle.dumps(tile)), copy_module.deepcopy(tile), dataclasses.replace(tile)):
        assert copy == tile and hash(copy) == hash(tile) and copy.index == tile.index
    assert repr(tile) == f"Tile(colour={tile.colour!r}, number={tile.number!r})"


def test_a_tile_is_never_equal_to_its_fields_or_its_index() -> None:
    red7 = Tile(Colour.RED, 7)
    assert red7 != (Colour.RED, 7)
    assert red7 != red7.index
    assert [f.name for f in dataclasses.fields(Tile)] == ["colour", "number"]


def test_parsed_tiles_are_the_shared_ones() -> None:
    assert parse_tile("r7") is Tile.from_index(Tile(Colour.RED, 7).index)
    assert parse_tile("j") is JOKER


def test_colours_hash_consistently_with_equality() -> None:
    assert {Colour.RED: 1}[Colour("red")] == 1
    assert {pickle.loads(pickle.dumps(c)) for c in Colour} == set(Colour)


@settings(max_examples=100, derandomize=True)
@given(st.lists(ANY_TILE, max_size=20))
def test_kind_counts_counts_each_kind_at_its_index(tiles: list[Tile]) -> None:
    counts = kind_counts(tiles)
    assert len(counts) == len(ALL_KINDS)
    assert {ALL_KINDS[i]: n for i, n in enumerate(counts) if n} == dict(Counter(tiles))


@pytest.mark.parametrize(
    "text",
    ["r٥", "r٦", "r७", "r７", "r१३", "\u212a7", "ｒ7", "red-\u0661\u0663", "jоker", "r7\u200b", "ј"],
    ids=["arabic-indic-5", "arabic-indic-6", "devanagari-7", "fullwidth-7", "devanagari-13", "kelvin-k7",
         "fullwidth-r", "arabic-indic-13", "cyrillic-o-in-joker", "zero-width-space", "cyrillic-je"],
)
def test_tile_notation_is_ascii_only(text: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_tile(text)
    assert err.value.token == text
    assert err.value.reason == "tiles are written in ASCII letters and digits"
    with pytest.raises(NotationError):
        parse_tiles(f"r1 {text} r3")


def test_a_very_long_bad_token_is_shortened_in_messages() -> None:
    token = "x" * 120_000
    with pytest.raises(NotationError) as err:
        parse_tiles("r1 " + token)
    assert err.value.token == "x" * TOKEN_SHOWN + "…" and err.value.full_token == token
    assert len(str(err.value)) < 100
    exact = "q" * TOKEN_SHOWN  # exactly the limit: shown whole
    with pytest.raises(NotationError) as err:
        parse_tile(exact)
    assert err.value.token == exact
