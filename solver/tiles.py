"""Tiles and the one text notation used everywhere (CLI, JSON, app, tests).

Canonical names are ``red-7``, ``black-13`` and ``joker``. Short forms ``r7``, ``k13``
(k = black, because b is blue), ``b1``, ``o5`` and ``j`` are accepted, case-insensitively;
``red_7`` and ``red7`` too, so dataset labels parse. Melds are separated by ``|`` or newlines,
tiles by spaces or commas. A tile is written in ASCII letters and digits only: ``r٥`` (an
Arabic-Indic five), ``r７`` (fullwidth) or ``K7`` with the Kelvin sign are refused, not read.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable


class Colour(enum.Enum):
    """The four ink colours, in the order the whole project sorts and indexes them."""

    BLACK = "black"
    BLUE = "blue"
    ORANGE = "orange"
    RED = "red"

    #: Members are singletons compared by identity, so hashing by identity agrees with
    #: equality; Enum's own ``__hash__`` hashes the name in Python code, on every set or
    #: dict of colours a solve builds.
    __hash__ = object.__hash__

    @property
    def index(self) -> int:
        return _COLOUR_ORDER[self]

    @property
    def letter(self) -> str:
        return _COLOUR_LETTER[self]


_COLOUR_ORDER = {c: i for i, c in enumerate(Colour)}
_COLOUR_LETTER = {Colour.BLACK: "k", Colour.BLUE: "b", Colour.ORANGE: "o", Colour.RED: "r"}
_COLOUR_BY_WORD = {c.value: c for c in Colour} | {v: k for k, v in _COLOUR_LETTER.items()}

MIN_NUMBER = 1
MAX_NUMBER = 13
NUM_COLOURS = len(Colour)
#: Number of distinct non-joker tile kinds; the joker's index is this value.
NUM_NUMBERED_KINDS = NUM_COLOURS * MAX_NUMBER
JOKER_INDEX = NUM_NUMBERED_KINDS
NUM_KINDS = NUM_NUMBERED_KINDS + 1


#: Characters of a bad token that messages echo; a longer one is cut and ends in "…" (a pasted
#: 120 KB line is not shown back in full).
TOKEN_SHOWN = 20


def shown_token(token: str) -> str:
    """``token`` as a message shows it: at most :data:`TOKEN_SHOWN` characters and "…"."""
    return token if len(token) <= TOKEN_SHOWN else token[:TOKEN_SHOWN] + "…"


class NotationError(ValueError):
    """A tile or meld could not be parsed. ``token`` is the offending text as messages show
    it (:func:`shown_token`), ``full_token`` all of it."""

    def __init__(self, token: str, reason: str = "unknown tile") -> None:
        self.full_token = token
        self.token = shown_token(token)
        self.reason = reason
        super().__init__(f"{reason}: {self.token!r}")


@dataclass(frozen=True)
class Tile:
    """One physical tile kind: a coloured number, or the joker (colour and number ``None``).

    Tiles are equal when colour and number are. Equality and hashing go through the dense
    :attr:`index` (one per kind), because a solve hashes and compares tiles thousands of
    times and the generated methods built tuples and hashed the colour in Python code.
    """

    colour: Colour | None
    number: int | None

    def __post_init__(self) -> None:
        if (self.colour is None) != (self.number is None):
            raise ValueError("a tile has both a colour and a number, or neither (joker)")
        if self.number is not None and not MIN_NUMBER <= self.number <= MAX_NUMBER:
            raise ValueError(f"tile number out of range: {self.number}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self.index == other.index  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return self.index

    @property
    def is_joker(self) -> bool:
        return self.colour is None

    @cached_property
    def index(self) -> int:
        """Dense index 0..52 (joker last), used by the solver's matrices; computed once per
        tile (a cached property writes the instance's ``__dict__``, frozen or not)."""
        if self.colour is None or self.number is None:
            return JOKER_INDEX
        return _COLOUR_ORDER[self.colour] * MAX_NUMBER + self.number - 1

    @property
    def name(self) -> str:
        """Canonical notation, e.g. ``red-7`` or ``joker``."""
        if self.colour is None:
            return "joker"
        return f"{self.colour.value}-{self.number}"

    @property
    def short(self) -> str:
        """Short notation, e.g. ``r7``, ``k13`` or ``j``."""
        if self.colour is None:
            return "j"
        return f"{self.colour.letter}{self.number}"

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def from_index(index: int) -> "Tile":
        """The tile of kind ``index``: one shared tile per kind, made once (called per tile
        of every meld the solver reads back)."""
        if not 0 <= index < NUM_KINDS:
            raise ValueError(f"tile index out of range: {index}")
        return ALL_KINDS[index]


JOKER = Tile(None, None)

ALL_NUMBERED: tuple[Tile, ...] = tuple(
    Tile(colour, number) for colour in Colour for number in range(MIN_NUMBER, MAX_NUMBER + 1)
)
#: Every tile kind in index order: ``ALL_KINDS[t.index] == t``.
ALL_KINDS: tuple[Tile, ...] = ALL_NUMBERED + (JOKER,)

_TILE_RE = re.compile(r"^(?P<colour>[a-z]+?)[-_]?(?P<number>[0-9]{1,2})$", re.ASCII)
_JOKER_WORDS = {"j", "joker", "jk"}
_TILE_SPLIT = re.compile(r"[\s,;]+")
_MELD_SPLIT = re.compile(r"[|\n]+")


def parse_tile(token: str) -> Tile:
    """Parse one tile in canonical or short notation; raise :class:`NotationError` otherwise."""
    text = token.strip()
    if not text:
        raise NotationError(token, "empty tile")
    if not text.isascii():  # checked before lower(): the Kelvin sign "K" lowers to an ASCII "k"
        raise NotationError(token, "tiles are written in ASCII letters and digits")
    text = text.lower()
    if text in _JOKER_WORDS:
        return JOKER
    match = _TILE_RE.match(text)
    if match is None:
        raise NotationError(token)
    colour = _COLOUR_BY_WORD.get(match["colour"])
    if colour is None:
        raise NotationError(token, "unknown colour")
    number = int(match["number"])
    if not MIN_NUMBER <= number <= MAX_NUMBER:
        raise NotationError(token, "number must be 1-13")
    return Tile.from_index(colour.index * MAX_NUMBER + number - 1)


def parse_tiles(text: str) -> tuple[Tile, ...]:
    """Parse a list of tiles separated by spaces or commas (melds separators are allowed too)."""
    tokens = [t for t in _TILE_SPLIT.split(_MELD_SPLIT.sub(" ", text)) if t]
    return tuple(parse_tile(t) for t in tokens)


def parse_melds(text: str) -> tuple[tuple[Tile, ...], ...]:
    """Parse melds separated by ``|`` or newlines; blank melds are skipped."""
    melds = []
    for chunk in _MELD_SPLIT.split(text):
        tiles = tuple(parse_tile(t) for t in _TILE_SPLIT.split(chunk) if t)
        if tiles:
            melds.append(tiles)
    return tuple(melds)


def format_tiles(tiles: Iterable[Tile], short: bool = False) -> str:
    return " ".join(t.short if short else t.name for t in tiles)


def format_melds(melds: Iterable[Iterable[Tile]], short: bool = False) -> str:
    return " | ".join(format_tiles(m, short) for m in melds)


def sorted_tiles(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """The tiles in tile-index order (a canonical order for comparing multisets of tiles)."""
    return tuple(sorted(tiles, key=lambda t: t.index))


def kind_counts(tiles: Iterable[Tile]) -> list[int]:
    """How many of each tile kind, as a list indexed by :attr:`Tile.index`: the solver counts
    whole tables every solve, and a list skips hashing each tile as a Counter does."""
    counts = [0] * NUM_KINDS
    for tile in tiles:
        counts[tile.index] += 1
    return counts
