"""What a photo was read as: every tile with its box and confidence, the melds, and what is wrong.

A :class:`Reading` is a plain value: the app shows it, the user corrects it, the solver gets
its tiles (:meth:`Reading.table_melds`, :meth:`Reading.rack`). Its JSON form is the output of
``rummikub read --json`` and reads back with :meth:`Reading.from_json`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from solver.i18n import DEFAULT_LANGUAGE, tile_label, tr
from solver.tiles import Tile, parse_tile
from vision.detections import median_length
from vision.profiles import TileSample

Box = tuple[float, float, float, float]


#: Tiles shorter than this in their photo are read far less well: on the selection and calibration
#: sets, 36 % of the tiles under 40 pixels long were not read right, against 4 % of those of 40-80
#: pixels (``python -m training.evaluate --cache DIR --sets selection calibration --json R.json``,
#: ``errors_by_tile_size``; ``docs/reading-history.md``). A reading whose tiles are mostly that
#: small says how to take a better photo (:func:`small_tiles_note`). (In photo pixels; the detector's
#: own ``SMALL_TILE_PX`` is in its network input's.)
SMALL_TILE_NOTE_PX = 40.0


def small_tiles_note(tile_px: float, lang: str = DEFAULT_LANGUAGE) -> str | None:
    """What to do about a photo whose tiles are ``tile_px`` long, when that is too small to read
    them well (None when it is not, or when no tile was read)."""
    if not 0.0 < tile_px < SMALL_TILE_NOTE_PX:
        return None
    return tr(
        "The tiles in this photo are small (about {pixels} pixels long), and small tiles are often misread. "
        "A closer photo, or the full-resolution photo from the phone's camera app, reads better.",
        lang, pixels=round(tile_px),
    )


#: A photo whose tiles blur over this share of their length (:func:`vision.sharpness.photo_blur`)
#: says so and asks for another (:func:`blurred_photo_note`). On the selection and calibration sets
#: (207 photos with tiles of 40 pixels or more) the 9 photos over it were read at tile F1 0.884,
#: the rest at 0.981, and the blur of no real validation photo comes near it (the highest is
#: 0.049); chosen there, then measured once on the test sets (``docs/reading-history.md``,
#: *Blurred photos*; ``python -m training.blur_study``).
BLURRED_PHOTO = 0.07


def blurred_photo_note(blur: float, lang: str = DEFAULT_LANGUAGE) -> str | None:
    """What to do about a photo whose tiles blur over ``blur`` of their length, when that is too
    much to read them well (None when it is not)."""
    if not blur >= BLURRED_PHOTO:
        return None
    return tr(
        "This photo is blurred (the camera moved or did not focus), and blurred tiles are often misread. "
        "Hold the phone still, let it focus on the tiles, and take the photo again.",
        lang,
    )


@dataclass(frozen=True)
class PhotoLook:
    """How a photo's tiles came out in it: how long (pixels, the median box's longer side) and how
    blurred (a share of their length, :func:`vision.sharpness.photo_blur`); 0.0 where not known
    (typed tiles, nothing read). What every page and the CLI say about taking a better photo."""

    tile_px: float = 0.0
    blur: float = 0.0

    def advice(self, lang: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
        """How to take a better photo, when this one's tiles are too small or too blurred to read
        well. Small tiles say only that (a closer photo is the cure for both, and tiny tiles
        measure blurred)."""
        small = small_tiles_note(self.tile_px, lang)
        if small:
            return (small,)
        blurred = blurred_photo_note(self.blur, lang)
        return (blurred,) if blurred else ()


class ReadingKind(enum.Enum):
    """What the photo shows: the table (melds that must be valid) or a player's rack."""

    TABLE = "table"
    RACK = "rack"


class ReadingFormatError(ValueError):
    """A JSON document is not a reading."""


class Alternative(NamedTuple):
    """Another reading of a tile and its probability; a plain ``(tile, probability)`` pair."""

    tile: Tile
    probability: float


#: Alternatives listed per tile: the classifier's next labels at or above this probability.
ALTERNATIVES = 3
ALTERNATIVE_MIN_PROB = 0.01


def alternatives(probs: np.ndarray, chosen: int) -> tuple[Alternative, ...]:
    """The classifier's next likeliest tiles after ``chosen`` (``probs``: its 53 probabilities), at
    most :data:`ALTERNATIVES`, each at least :data:`ALTERNATIVE_MIN_PROB`."""
    order = [int(i) for i in np.argsort(-probs, kind="stable") if int(i) != chosen]
    return tuple(
        Alternative(Tile.from_index(i), float(probs[i])) for i in order[:ALTERNATIVES] if probs[i] >= ALTERNATIVE_MIN_PROB
    )


@dataclass(frozen=True)
class ReadTile:
    """One tile as read: its kind, box (x1, y1, x2, y2) in original-photo pixels, and doubt.

    ``confidence`` is the probability of ``tile`` given the classifier and the rules;
    ``alternatives`` are the classifier's next most probable readings with their probabilities;
    ``corrected`` says the rules overruled the classifier's first choice; ``uncertain`` asks
    the user to confirm; ``remembered`` says it was read as the player set a tile it looks like
    earlier in the session, and ``like_removed`` that it looks like a box the player removed earlier
    in the session as no tile (:mod:`vision.session_memory`), or one the tile profile holds as no
    tile (:meth:`vision.profiles.TileProfile.looks_like_no_tile`); it is then ``uncertain`` too.
    ``ink_doubt`` says that read without the player's inks (:mod:`vision.ink_colour`) it was doubted
    or read otherwise (:attr:`vision.pipeline.InkedDecoding.ink_doubt`); it is then ``uncertain`` too,
    whatever a later decoding says. ``blurred`` says its own digits are smeared past
    :attr:`vision.decoding.DecodingSettings.blurred_tile` (:func:`vision.sharpness.blurred_tiles`);
    it is then ``uncertain`` too. None of the four is in :meth:`to_json`.
    """

    tile: Tile
    box: Box
    confidence: float
    alternatives: tuple[Alternative, ...] = ()
    corrected: bool = False
    uncertain: bool = False
    remembered: bool = False
    like_removed: bool = False
    ink_doubt: bool = False
    blurred: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "alternatives", tuple(Alternative(t, float(p)) for t, p in self.alternatives))

    def to_json(self) -> dict[str, Any]:
        return {
            "tile": self.tile.name,
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 4),
            "alternatives": [[t.name, round(float(p), 4)] for t, p in self.alternatives],
            "corrected": self.corrected,
            "uncertain": self.uncertain,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ReadTile:
        try:
            box = tuple(float(v) for v in data["box"])
            if len(box) != 4:
                raise ReadingFormatError(f"a box has 4 numbers, got {data['box']!r}")
            return ReadTile(
                tile=parse_tile(str(data["tile"])),
                box=box,  # type: ignore[arg-type]
                confidence=float(data["confidence"]),
                alternatives=tuple((parse_tile(str(t)), float(p)) for t, p in data.get("alternatives", ())),
                corrected=bool(data.get("corrected", False)),
                uncertain=bool(data.get("uncertain", False)),
            )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, ReadingFormatError):
                raise
            raise ReadingFormatError(f"not a tile reading: {error}") from error


@dataclass(frozen=True)
class LeftOutTile:
    """A box the reading left out as more likely no tile (dashed on the photo) that may be one: the
    reader's likeliest tile for it, offered to the player to add with one tap, and where it goes.

    ``probability`` is the reader's probability of ``tile`` if the box shows a tile at all, and
    ``tile_prob`` that it does; ``alternatives`` are the next likeliest tiles. ``beside`` is the
    position (in :attr:`Reading.tiles`) of the read tile it lies next to and ``before`` whether it
    comes before that tile in its meld (or the rack's order); None when it lies next to no read tile.
    """

    tile: Tile
    box: Box
    probability: float
    tile_prob: float
    alternatives: tuple[Alternative, ...] = ()
    beside: int | None = None
    before: bool = False
    #: Its crops and the reader's embedding, as :attr:`Reading.samples` keeps a read tile's: what the
    #: session remembers when the player adds it (:mod:`vision.session_memory`). Not in the JSON.
    sample: TileSample | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "alternatives", tuple(Alternative(t, float(p)) for t, p in self.alternatives))
        if len(self.box) != 4:
            raise ReadingFormatError(f"a box has 4 numbers, got {self.box!r}")
        if not (0.0 <= self.probability <= 1.0 and 0.0 <= self.tile_prob <= 1.0):
            raise ReadingFormatError("a left-out box's probabilities lie in [0, 1]")

    def to_json(self) -> dict[str, Any]:
        return {
            "tile": self.tile.name,
            "box": [round(float(v), 1) for v in self.box],
            "probability": round(float(self.probability), 4),
            "tile_prob": round(float(self.tile_prob), 4),
            "alternatives": [[t.name, round(float(p), 4)] for t, p in self.alternatives],
            "beside": self.beside,
            "before": self.before,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> LeftOutTile:
        try:
            beside = data.get("beside")
            return LeftOutTile(
                tile=parse_tile(str(data["tile"])),
                box=tuple(float(v) for v in data["box"]),  # type: ignore[arg-type]
                probability=float(data["probability"]),
                tile_prob=float(data["tile_prob"]),
                alternatives=tuple((parse_tile(str(t)), float(p)) for t, p in data.get("alternatives", ())),
                beside=None if beside is None else int(beside),
                before=bool(data.get("before", False)),
            )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, ReadingFormatError):
                raise
            raise ReadingFormatError(f"not a left-out box: {error}") from error


class ProblemKind(enum.Enum):
    INVALID_MELD = "invalid-meld"
    COPY_LIMIT = "copy-limit"
    UNCERTAIN_TILE = "uncertain-tile"


@dataclass(frozen=True)
class ReadingProblem:
    """Something the user should look at; it carries what its message needs.

    ``tiles`` are positions in :attr:`Reading.tiles`; ``read`` the tiles as read there.
    """

    kind: ProblemKind
    tiles: tuple[int, ...]
    read: tuple[Tile, ...] = ()
    #: The meld's index (invalid melds).
    meld: int | None = None
    #: Copies read and copies allowed (copy limits).
    count: int = 0
    limit: int = 0
    #: Other likely readings (uncertain tiles).
    alternatives: tuple[Tile, ...] = ()

    def message(self, lang: str = DEFAULT_LANGUAGE) -> str:
        """The problem in words, in ``lang``."""
        names = ", ".join(tile_label(t, lang) for t in self.read)
        if self.kind is ProblemKind.INVALID_MELD:
            return tr("Meld {number} is not valid as read: {tiles}.", lang, number=(self.meld or 0) + 1, tiles=names)
        if self.kind is ProblemKind.COPY_LIMIT:
            return tr(
                "{tile} was read {count} times, but the game has only {limit}.",
                lang,
                tile=tile_label(self.read[0], lang) if self.read else "?",
                count=self.count,
                limit=self.limit,
            )
        others = ", ".join(tile_label(t, lang) for t in self.alternatives)
        if not others:
            return tr("Please check this tile: read as {tile}.", lang, tile=names)
        return tr("Please check this tile: read as {tile}, or maybe {others}.", lang, tile=names, others=others)

    def __str__(self) -> str:
        return self.message()

    def to_json(self, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind.value,
            "tiles": list(self.tiles),
            "read": [t.name for t in self.read],
        }
        if self.meld is not None:
            data["meld"] = self.meld
        if self.kind is ProblemKind.COPY_LIMIT:
            data["count"], data["limit"] = self.count, self.limit
        if self.alternatives:
            data["alternatives"] = [t.name for t in self.alternatives]
        data["message"] = self.message(lang)
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ReadingProblem:
        try:
            return ReadingProblem(
                kind=ProblemKind(data["kind"]),
                tiles=tuple(int(i) for i in data["tiles"]),
                read=tuple(parse_tile(str(t)) for t in data.get("read", ())),
                meld=None if data.get("meld") is None else int(data["meld"]),
                count=int(data.get("count", 0)),
                limit=int(data.get("limit", 0)),
                alternatives=tuple(parse_tile(str(t)) for t in data.get("alternatives", ())),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ReadingFormatError(f"not a reading problem: {error}") from error


@dataclass(frozen=True)
class Reading:
    """A photo read: tiles, melds (tuples of positions in ``tiles``, table order), problems."""

    tiles: tuple[ReadTile, ...]
    melds: tuple[tuple[int, ...], ...] = ()
    problems: tuple[ReadingProblem, ...] = ()
    kind: ReadingKind = ReadingKind.TABLE
    #: (width, height) of the photo the boxes refer to.
    image_size: tuple[int, int] = field(default=(0, 0))
    #: Per tile (same order), its crops and the reader's embedding: what a correction teaches a
    #: tile profile (:mod:`vision.profiles`). Not part of the JSON; () when not kept.
    samples: tuple[TileSample, ...] = field(default=(), compare=False, repr=False)
    #: Boxes the detector found that were left out as more likely not tiles (x1, y1, x2, y2, photo
    #: pixels): shown dashed on the photo, so that a real tile among them is added by the player.
    doubtful_boxes: tuple[tuple[float, float, float, float], ...] = ()
    #: How blurred the tiles are, as a share of their length (:func:`vision.sharpness.photo_blur`;
    #: 0.0 when not measured): see :class:`PhotoLook`.
    blur: float = 0.0
    #: The doubtful boxes most likely to be tiles after all, likeliest first, each with the reader's
    #: tile for it: what the app offers to add (numbered on the photo in this order).
    left_out: tuple[LeftOutTile, ...] = ()

    def __post_init__(self) -> None:
        positions = [i for meld in self.melds for i in meld]
        if any(not 0 <= i < len(self.tiles) for i in positions) or len(set(positions)) != len(positions):
            raise ReadingFormatError("melds must use each tile position at most once")
        if any(len(box) != 4 for box in self.doubtful_boxes):
            raise ReadingFormatError("a doubtful box has four numbers (x1, y1, x2, y2)")
        if any(t.beside is not None and not 0 <= t.beside < len(self.tiles) for t in self.left_out):
            raise ReadingFormatError("a left-out box lies beside a tile the reading does not have")

    def table_melds(self) -> tuple[tuple[Tile, ...], ...]:
        """The melds as tiles, in table order (what the solver's position takes)."""
        return tuple(tuple(self.tiles[i].tile for i in meld) for meld in self.melds)

    def rack(self) -> tuple[Tile, ...]:
        """Every tile read, in reading order (what a rack photo contributes)."""
        return tuple(t.tile for t in self.tiles)

    @property
    def tile_px(self) -> float:
        """How long the tiles are in the photo: the median of their boxes' longer sides (0.0 for none)."""
        return median_length([t.box for t in self.tiles])

    @property
    def look(self) -> PhotoLook:
        """How the tiles came out in the photo (what :meth:`messages` advises on)."""
        return PhotoLook(self.tile_px, self.blur)

    def messages(self, lang: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
        """The problems in words, the boxes left out that may be tiles, and a note when the tiles are
        too small or too blurred to read well."""
        left_out = ()
        if self.left_out:
            left_out = (tr(
                "Left out as probably not tiles, but maybe tiles (numbered on the annotated photo): {tiles}.", lang,
                tiles=", ".join(f"{n}. {tile_label(t.tile, lang)}" for n, t in enumerate(self.left_out, start=1)),
            ),)
        return tuple(p.message(lang) for p in self.problems) + left_out + self.look.advice(lang)

    def to_json(self, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "image_size": list(self.image_size),
            "tiles": [t.to_json() for t in self.tiles],
            "melds": [[self.tiles[i].tile.name for i in meld] for meld in self.melds],
            "meld_tiles": [list(meld) for meld in self.melds],
            "problems": [p.to_json(lang) for p in self.problems],
            "doubtful_boxes": [[round(float(v), 1) for v in box] for box in self.doubtful_boxes],
            "blur": round(float(self.blur), 4),
            "left_out": [t.to_json() for t in self.left_out],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Reading:
        """Read back :meth:`to_json`'s output (messages are regenerated, not read)."""
        if not isinstance(data, Mapping) or "tiles" not in data:
            raise ReadingFormatError("a reading is an object with a 'tiles' list")
        try:
            tiles = tuple(ReadTile.from_json(t) for t in data["tiles"])
            melds = tuple(tuple(int(i) for i in m) for m in data.get("meld_tiles", ()))
            problems = tuple(ReadingProblem.from_json(p) for p in data.get("problems", ()))
            kind = ReadingKind(data.get("kind", ReadingKind.TABLE.value))
            size = tuple(int(v) for v in data.get("image_size", (0, 0)))
            doubtful = tuple(tuple(float(v) for v in box) for box in data.get("doubtful_boxes", ()))
            blur = float(data.get("blur", 0.0))
            left_out = tuple(LeftOutTile.from_json(t) for t in data.get("left_out", ()))
        except (TypeError, ValueError) as error:
            if isinstance(error, ReadingFormatError):
                raise
            raise ReadingFormatError(f"not a reading: {error}") from error
        if len(size) != 2:
            raise ReadingFormatError("image_size has two numbers")
        if not 0.0 <= blur < float("inf"):
            raise ReadingFormatError(f"blur is a share of a tile's length, 0 or more, got {blur!r}")
        names = [[tiles[i].tile.name for i in m] for m in melds] if all(
            0 <= i < len(tiles) for m in melds for i in m
        ) else None
        if "melds" in data and names is not None and [list(m) for m in data["melds"]] != names:
            raise ReadingFormatError("'melds' and 'meld_tiles' disagree")
        return Reading(tiles, melds, problems, kind, size, doubtful_boxes=doubtful, blur=blur, left_out=left_out)  # type: ignore[arg-type]
