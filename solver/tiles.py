"""Tiles and the one text notation used everywhere (CLI, JSON, app, tests).

Canonical names are ``red-7``, ``black-13`` and ``joker``. Short forms ``r7``, ``k13``
(k = black, because b is blue), ``b1``, ``o5`` and ``j`` are accepted, case-insensitively;
``red_7`` and ``red7`` too, so dataset labels parse. Melds are separated by ``|`` or newlines,
tiles by spaces or commas.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable


class Colour(enum.Enum):
    """The four ink colours, in the order the whole project sorts and indexes them."""

    BLACK = "black"
    BLUE = "blue"
    ORANGE = "orange"
    RED = "red"

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


class NotationError(ValueError):
    """A tile or meld could not be parsed; ``token`` is the offending text."""

    def __init__(self, token: str, reason: str = "unknown tile") -> None:
        super().__init__(f"{reason}: {token!r}")
        self.token = token
        self.reason = reason


@dataclass(frozen=True)
class Tile:
    """One physical tile kind: a coloured number, or the joker (colour and number ``None``)."""

    colour: Colour | None
    number: int | None

    def __post_init__(self) -> None:
        if (self.colour is None) != (self.number is None):
            raise ValueError("a tile has both a colour and a number, or neither (joker)")
        if self.number is not None and not MIN_NUMBER <= self.number <= MAX_NUMBER:
            raise ValueError(f"tile number out of range: {self.number}")

    @property
    def is_joker(self) -> bool:
        return self.colour is None

    @property
    def index(self) -> int:
        """Dense index 0..52 (joker last), used by the solver's matrices."""
        if self.colour is None or self.number is None:
            return JOKER_INDEX
        return self.colour.index * MAX_NUMBER + self.number - 1

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
        if index == JOKER_INDEX:
            return JOKER
        if not 0 <= index < NUM_NUMBERED_KINDS:
            raise ValueError(f"tile index out of range: {index}")
        colour = list(Colour)[index // MAX_NUMBER]
        return Tile(colour, index % MAX_NUMBER + 1)


JOKER = Tile(None, None)

ALL_NUMBERED: tuple[Tile, ...] = tuple(Tile.from_index(i) for i in range(NUM_NUMBERED_KINDS))

_TILE_RE = re.compile(r"^(?P<colour>[a-z]+?)[-_]?(?P<number>\d{1,2})$")
_JOKER_WORDS = {"j", "joker", "jk"}
_TILE_SPLIT = re.compile(r"[\s,;]+")
_MELD_SPLIT = re.compile(r"[|\n]+")


def parse_tile(token: str) -> Tile:
    """Parse one tile in canonical or short notation; raise :class:`NotationError` otherwise."""
    text = token.strip().lower()
    if not text:
        raise NotationError(token, "empty tile")
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
    return Tile(colour, number)


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
    return tuple(sorted(tiles, key=lambda t: t.index))


def tile_counts(tiles: Iterable[Tile]) -> Counter[Tile]:
    return Counter(tiles)
