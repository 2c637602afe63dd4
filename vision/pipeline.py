"""Photo in, :class:`~vision.reading.Reading` out: find the tiles, group them, name them, decode.

    read(image, kind="table", rules=STANDARD) -> Reading
    annotate(image, reading) -> BGR array with every box and name, coloured by confidence

The models are loaded once per process (both loaders are cached), so reading a second photo
costs only the inference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np

from solver.rules import STANDARD, RuleSet
from solver.tiles import NUM_KINDS, Tile
from vision.decoding import DEFAULT_SETTINGS, Decoding, DecodingSettings, decode
from vision.detections import Detections
from vision.images import load_image
from vision.ink_colour import INK_MARGIN, body_colours, ink_directions, weigh_colours
from vision.profiles import TileProfile, TileSample
from vision.reader import CropReading
from vision.left_out import left_out_tiles
from vision.reading import ProblemKind, Reading, ReadingKind, ReadingProblem, ReadTile, alternatives
from vision.session_memory import SessionMemory
from vision.sharpness import blurred_tiles, tile_blurs, typical_blur
from vision.tile_likeness import LIKENESS, MIN_REFERENCE_TILES, REFERENCE_TILE_PROB, TileLikeness

ImageSource = str | Path | bytes | BinaryIO | np.ndarray

#: A detection is dropped when it more likely shows no tile than a tile: when the detector's
#: confidence times the reader's probability of a tile (its ``not-tile`` class; 1 for readers
#: without one) is under this. Either alone let through the end of a rack or a patch of wood that
#: one model half believed; chosen on the calibration set (``models/reader.md``).
MIN_TILE_PROB = 0.5
#: The detector's confidence is learnt on the editions it was trained on: on a set it never saw it
#: sits lower on *every* tile of the photo (the boxes the reader is sure are tiles: median 0.58-0.60
#: on such photos against 0.78-0.89 on the real photos), and the gate dropped readable tiles by the
#: dozen. So a photo's confidences are first raised until its sure tiles sit where they sit on a
#: familiar photo (:func:`photo_relative_confidence`); never lowered, so a familiar photo reads as
#: before. Chosen on the selection and calibration sets (``models/detector.md``, session 17).
TYPICAL_TILE_CONFIDENCE = 0.8
# The boxes that say where a photo's tiles sit are those that say what they look like
# (vision.tile_likeness.REFERENCE_TILE_PROB, and only where there are MIN_REFERENCE_TILES of them).

#: A box more than this many times as long as it is wide is no tile to read, whatever the models
#: say: a tile's face is about 1.4 times as tall as wide, and one cut by the frame or seen so
#: slanted that it is a third as wide as long shows no number. The longest readable tile of every
#: labelled set is 2.4 times as long as wide (real photos 1.8); what the detector finds beyond 3
#: is a sliver at the frame's edge whose square crop shows the next tile (read as that tile, sure)
#: or a rack's ledge (``models/detector.md``, session 18).
MAX_TILE_ASPECT = 3.0


def _as_image(image: ImageSource) -> np.ndarray:
    if isinstance(image, np.ndarray):
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError("an image array must be H x W x 3 BGR uint8")
        return image
    return load_image(image)


def build_reading(
    detections: Detections,
    probs: np.ndarray,
    groups: list[list[int]],
    kind: ReadingKind,
    rules: RuleSet = STANDARD,
    image_size: tuple[int, int] = (0, 0),
    settings: DecodingSettings = DEFAULT_SETTINGS,
    tile_prob: np.ndarray | None = None,
    doubted: np.ndarray | None = None,
    decoding: Decoding | None = None,
) -> Reading:
    """Decode ``probs`` with the rules (:func:`decode_photo`; ``decoding``: that decoding, where the
    caller has it) and assemble the reading, tiles in layout order.

    On a table every group is a meld the rules check; on a rack the groups are tiers, which give
    only the order of the tiles. ``tile_prob`` is each detection's probability of being a tile
    at all (the reader's; see :func:`vision.decoding.decode`); the detections ``doubted`` selects
    (a mask) are flagged uncertain whatever the decoding says.
    """
    order = [i for g in groups for i in g]
    if sorted(order) != list(range(len(detections))):
        raise ValueError("the layout must place every detected tile exactly once")
    is_table = kind is ReadingKind.TABLE
    if decoding is None:
        decoding = decode_photo(probs, groups, kind, rules, settings, tile_prob)
    position = {old: new for new, old in enumerate(order)}
    melds = tuple(tuple(position[i] for i in g) for g in groups) if is_table else ()
    boxes = tuple(tuple(float(v) for v in detections.boxes[old]) for old in order)
    in_order = np.asarray(order, dtype=np.int64)
    doubts = np.zeros(len(order), bool) if doubted is None else np.asarray(doubted, bool)[in_order]
    tiles, problems = _assembled(
        boxes, np.asarray(probs)[in_order], melds, _rows_of(decoding, order), rules, doubts,
    )
    return Reading(tiles, melds, problems, kind, image_size)


def decode_photo(
    probs: np.ndarray,
    groups: list[list[int]],
    kind: ReadingKind,
    rules: RuleSet = STANDARD,
    settings: DecodingSettings = DEFAULT_SETTINGS,
    tile_prob: np.ndarray | None = None,
) -> Decoding:
    """One photo's tiles decoded with the rules: on a table its groups are melds the rules check, on a
    rack only tiers (:func:`vision.decoding.decode`)."""
    return decode(
        probs, groups, rules, require_valid_melds=kind is ReadingKind.TABLE, settings=settings, tile_prob=tile_prob,
    )


def _rows_of(decoding: Decoding, rows: Sequence[int]) -> Decoding:
    """``decoding``'s per-tile values of ``rows``, in that order (its melds and copies as they are)."""
    return replace(
        decoding,
        labels=tuple(decoding.labels[i] for i in rows),
        confidence=tuple(decoding.confidence[i] for i in rows),
        corrected=tuple(decoding.corrected[i] for i in rows),
        uncertain=tuple(decoding.uncertain[i] for i in rows),
    )


def _assembled(
    boxes: Sequence[tuple[float, ...]],
    probs: np.ndarray,
    melds: tuple[tuple[int, ...], ...],
    decoding: Decoding,
    rules: RuleSet,
    doubted: np.ndarray,
) -> tuple[tuple[ReadTile, ...], tuple[ReadingProblem, ...]]:
    """A photo's tiles and problems from its decoding, all in the reading's tile order; the
    invalid melds are indices into ``melds``, and a copy over the limit is reported where this
    photo holds that tile."""
    tiles = tuple(
        ReadTile(
            tile=Tile.from_index(decoding.labels[i]),
            box=boxes[i],  # type: ignore[arg-type]
            confidence=decoding.confidence[i],
            alternatives=alternatives(probs[i], decoding.labels[i]),
            corrected=decoding.corrected[i],
            uncertain=decoding.uncertain[i] or bool(doubted[i]),
        )
        for i in range(len(boxes))
    )
    problems = [
        ReadingProblem(ProblemKind.INVALID_MELD, melds[m], tuple(tiles[i].tile for i in melds[m]), meld=m)
        for m in decoding.invalid_melds
    ]
    for label, count in decoding.excess_copies:
        tile = Tile.from_index(label)
        where = tuple(i for i, t in enumerate(tiles) if t.tile == tile)
        if where:
            problems.append(
                ReadingProblem(ProblemKind.COPY_LIMIT, where, (tile,), count=count, limit=rules.max_count(tile))
            )
    problems.extend(
        ReadingProblem(ProblemKind.UNCERTAIN_TILE, (i,), (t.tile,), alternatives=tuple(a.tile for a in t.alternatives))
        for i, t in enumerate(tiles)
        if t.uncertain
    )
    return tiles, tuple(problems)


def decodable_again(reading: Reading) -> bool:
    """Whether ``reading`` keeps what decoding it again needs: each tile's probabilities as
    :func:`read` decoded them (not so for a reading read back from JSON)."""
    return len(reading.samples) == len(reading.tiles) and all(s.probs is not None for s in reading.samples)


def decode_together(
    readings: Sequence[Reading],
    rules: RuleSet = STANDARD,
    settings: DecodingSettings = DEFAULT_SETTINGS,
    known: Sequence[Tile] = (),
    on_table_before: Sequence[Tile] = (),
) -> tuple[Reading, ...]:
    """Photos of one game decoded again as one: the table and the player's rack (or the racks of
    one round), so that the copy limits hold over all of them together, and over the ``known``
    tiles of the same game (typed ones: they count, and nothing changes them).

    Each photo alone may hold a tile twice and be right; the table's two red 7s and a red 7 read on
    the rack are a misread, which decoding the photos apart cannot see (the player was told "more
    copies than the game has" and had to find it). A table's melds are checked as when it was read;
    a rack's tiles only count. Each reading keeps its boxes, samples and marks (a tile like one the
    player removed, or one the inks alone changed or made sure, stays uncertain); a reading alone
    decodes as it was read. A reading that did not keep its tiles' probabilities
    (:func:`decodable_again`: one read back from JSON) is left as it is, and its tiles count as
    known. ``on_table_before``: the tiles the table held at the last turn, as the player confirmed
    them; none leaves the table, so the table photos' readings hold each of them where a reading
    within ``repair_ratio`` allows (:func:`vision.decoding.decode`'s floors).
    """
    redo = [i for i, r in enumerate(readings) if decodable_again(r) and r.tiles]
    again = [readings[i] for i in redo]
    fixed = [t.tile for r in readings if not decodable_again(r) for t in r.tiles]
    known = [*known, *fixed]
    if not again or (len(again) == 1 and not known and not on_table_before):
        return tuple(readings)
    starts = np.cumsum([0] + [len(r.tiles) for r in again])
    certain = np.zeros((len(known), NUM_KINDS))
    certain[np.arange(len(known)), [t.index for t in known]] = 1.0
    probs = np.concatenate([np.stack([s.probs for r in again for s in r.samples]), certain])  # type: ignore[misc]
    tile_prob = np.array([s.tile_prob for r in again for s in r.samples] + [1.0] * len(known), dtype=np.float64)
    melds = [
        [int(start) + i for i in meld]
        for r, start in zip(again, starts) if r.kind is ReadingKind.TABLE for meld in r.melds
    ]
    floors = floor_rows = None
    if on_table_before:
        floors = np.bincount([t.index for t in on_table_before], minlength=NUM_KINDS)
        floor_rows = np.zeros(len(probs), bool)
        for r, start, end in zip(again, starts[:-1], starts[1:]):
            floor_rows[start:end] = r.kind is ReadingKind.TABLE
    decoding = decode(
        probs, melds, rules, require_valid_melds=True, settings=settings, tile_prob=tile_prob,
        floors=floors, floor_rows=floor_rows,
    )
    out = list(readings)
    meld_start = 0
    for i, r, start, end in zip(redo, again, starts[:-1], starts[1:]):
        count = len(r.melds) if r.kind is ReadingKind.TABLE else 0
        part = replace(
            _rows_of(decoding, range(start, end)),
            invalid_melds=tuple(m - meld_start for m in decoding.invalid_melds if meld_start <= m < meld_start + count),
        )
        meld_start += count
        doubted = np.array([t.like_removed or t.ink_doubt for t in r.tiles], bool)
        tiles, problems = _assembled([t.box for t in r.tiles], probs[start:end], r.melds, part, rules, doubted)
        tiles = tuple(
            replace(
                new, remembered=old.remembered and new.tile == old.tile, like_removed=old.like_removed,
                ink_doubt=old.ink_doubt,
            )
            for new, old in zip(tiles, r.tiles)
        )
        samples = tuple(replace(s, tile=t.tile) for s, t in zip(r.samples, tiles))
        out[i] = replace(r, tiles=tiles, problems=problems, samples=samples)
    return tuple(out)


@dataclass(frozen=True, eq=False)
class SeenTiles:
    """The tiles of a photo before decoding: where they are, their crops, what the reader says."""

    detections: Detections
    #: (margins, n, s, s, 3) uint8: each tile cut at every margin it is read at (vision.reader.crop_views).
    views: np.ndarray
    reading: CropReading
    #: The detections left out as more likely not tiles (:func:`kept_as_tiles`), what the reader said
    #: of them and their crops: a player's profile may vouch for some (:meth:`keeping`), the rest are
    #: shown dashed.
    dropped: Detections = field(default_factory=Detections.empty)
    dropped_reading: CropReading = field(default_factory=CropReading.empty)
    dropped_views: np.ndarray | None = None

    def __post_init__(self) -> None:
        if len(self.reading.probs) != len(self.detections) or len(self.dropped_reading.probs) != len(self.dropped):
            raise ValueError(
                f"{len(self.detections)} tiles read {len(self.reading.probs)} times, "
                f"{len(self.dropped)} dropped boxes read {len(self.dropped_reading.probs)} times"
            )

    def keeping(self, mask: np.ndarray) -> "SeenTiles":
        """These tiles with the dropped boxes ``mask`` selects kept as tiles, after the others."""
        mask = np.asarray(mask, bool)
        if mask.shape != (len(self.dropped),):
            raise ValueError(f"a mask of {mask.shape} for {len(self.dropped)} dropped boxes")
        if not mask.any():
            return self
        if self.dropped_views is None:
            raise ValueError("the dropped boxes' crops were not kept")
        kept, rescued = self.reading, _reading_of(self.dropped_reading, mask)
        reading = rescued if not len(kept.probs) else CropReading(
            np.concatenate([kept.probs, rescued.probs]),
            np.concatenate([kept.tile_prob, rescued.tile_prob]),
            np.concatenate([kept.embeddings, rescued.embeddings]),
        )
        return SeenTiles(
            Detections.concat([self.detections, self.dropped[mask]]),
            np.concatenate([self.views, self.dropped_views[:, mask]], axis=1), reading,
            self.dropped[~mask], _reading_of(self.dropped_reading, ~mask), self.dropped_views[:, ~mask],
        )

    def remembered_by(self, memory: SessionMemory) -> "SeenTiles":
        """These tiles with the dropped boxes kept that are near copies of a tile the player set this
        session (:meth:`vision.session_memory.SessionMemory.keeps`); a box of no tile's shape stays out."""
        kept = memory.keeps(self.reading.embeddings, self.dropped_reading.embeddings)
        return self.keeping(kept & tile_shaped(self.dropped))

    def vouched_by(self, profile: TileProfile) -> "SeenTiles":
        """These tiles with the dropped boxes ``profile`` vouches for kept (:meth:`TileProfile.vouches_for`);
        a box of no tile's shape (:func:`tile_shaped`) stays out."""
        vouched = profile.vouches_for(self.dropped_reading.tile_prob, self.dropped_reading.embeddings)
        return self.keeping(vouched & tile_shaped(self.dropped))


def photo_relative_confidence(confidences: np.ndarray, tile_prob: np.ndarray) -> np.ndarray:
    """The detector's confidences of one photo's boxes, raised by one factor so that the median of
    the boxes the reader is sure are tiles (:data:`REFERENCE_TILE_PROB`) reaches
    :data:`TYPICAL_TILE_CONFIDENCE` (capped at 1); unchanged where that median is already there or
    fewer than :data:`MIN_REFERENCE_TILES` boxes are sure. Raising every box alike keeps the
    photo's own order: a non-tile the detector doubted more than the tiles stays below them."""
    confidences, tile_prob = np.asarray(confidences, np.float64), np.asarray(tile_prob, np.float64)
    if confidences.shape != tile_prob.shape:
        raise ValueError(f"{confidences.shape} detector confidences for {tile_prob.shape} tile probabilities")
    reference = confidences[tile_prob >= REFERENCE_TILE_PROB]
    if len(reference) < MIN_REFERENCE_TILES:
        return confidences
    level = float(np.median(reference))
    if level <= 0.0 or level >= TYPICAL_TILE_CONFIDENCE:
        return confidences
    return np.minimum(confidences * (TYPICAL_TILE_CONFIDENCE / level), 1.0)


def tile_shaped(found: Detections) -> np.ndarray:
    """Mask of the boxes no longer than :data:`MAX_TILE_ASPECT` times their width."""
    widths, heights = found.widths, found.heights
    return np.maximum(widths, heights) <= MAX_TILE_ASPECT * np.minimum(widths, heights)


def kept_as_tiles(
    found: Detections, tile_prob: np.ndarray, min_prob: float = MIN_TILE_PROB, bodies: np.ndarray | None = None,
    likeness: TileLikeness = LIKENESS,
) -> np.ndarray:
    """Mask of one photo's detections kept as tiles: tile-shaped (:func:`tile_shaped`), the
    detector's confidence, relative to the photo (:func:`photo_relative_confidence`), x the
    reader's P(tile) >= ``min_prob``, and, where their ``bodies`` are known
    (:func:`vision.ink_colour.body_colours`), not unlike the photo's sure tiles (:mod:`vision.tile_likeness`)."""
    relative = photo_relative_confidence(found.confidences, tile_prob)
    keep = (relative * np.asarray(tile_prob, np.float64) >= min_prob) & tile_shaped(found)
    if bodies is not None:
        keep &= ~likeness.unlike(bodies, found.areas, tile_prob)
    return keep


def see_tiles(
    photo: np.ndarray, *, detector_weights: str | Path | None = None, reader_weights: str | Path | None = None
) -> SeenTiles:
    """Find the tiles and read each one; detections more likely not tiles, or unlike the photo's
    other tiles, are dropped (:func:`kept_as_tiles`)."""
    from vision.detector import find_tiles
    from vision.reader import crop_views, load_reader, read_views

    reader = load_reader(reader_weights)
    found = find_tiles(photo, weights=detector_weights)
    views = crop_views(photo, found.boxes, reader.imgsz)
    seen = read_views(views, reader)
    keep = kept_as_tiles(found, seen.tile_prob, bodies=body_colours(views[INK_MARGIN]))
    return SeenTiles(
        found[keep], views[:, keep], _reading_of(seen, keep), found[~keep], _reading_of(seen, ~keep), views[:, ~keep]
    )


def _reading_of(reading: CropReading, mask: np.ndarray) -> CropReading:
    """The part of ``reading`` for the crops ``mask`` selects."""
    return CropReading(reading.probs[mask], reading.tile_prob[mask], reading.embeddings[mask])


def adapted_by(profile: TileProfile | None, seen: SeenTiles) -> tuple[np.ndarray, np.ndarray]:
    """The reader's probabilities of ``seen``'s tiles (n x 53) as decoding gets them: adapted by the
    player's ``profile`` (its class means, :meth:`TileProfile.adapt`), and that with each colour
    weighed by the set's inks (the photo's own sure tiles', then the profile's:
    :func:`vision.ink_colour.weigh_colours`). The second is decoded; the first is what
    :class:`InkedDecoding` weighs it against."""
    plain = seen.reading.probs if profile is None else profile.adapt(seen.reading.probs, seen.reading.embeddings)
    if not len(plain):
        return plain, plain
    directions = ink_directions(seen.views[INK_MARGIN])
    return plain, weigh_colours(plain, directions, None if profile is None else profile.inks)


@dataclass(frozen=True, eq=False)
class InkedDecoding:
    """A photo's tiles decoded from their probabilities with the inks weighed in (what the reading
    shows), and from those before the inks where the two differ (:func:`decode_with_inks`)."""

    decoding: Decoding
    #: The decoding without the inks; None where the inks changed no probability.
    without: Decoding | None = None

    @property
    def plain(self) -> Decoding:
        """The tiles decoded without the inks (the same decoding where they changed nothing)."""
        return self.decoding if self.without is None else self.without

    @property
    def ink_doubt(self) -> np.ndarray:
        """(n,) bool: the tiles that, decoded without the inks, are doubted or read otherwise than
        with them (none where the inks changed nothing). They stay uncertain whatever the inks say.

        Why: the inks settle most colours the reader got wrong, but where they agree with a wrong
        reading (a navy blue whose ink looks like the set's black) they made it surer, and on the
        edition kept for choosing wrong tiles shown as sure rose from 9 to 16 of about 2,700; held
        in doubt this way they were 7, for 51 more right tiles flagged (``models/reader.md``, "The
        set's inks"). The inks may settle a reading, never make a tile sure on their own. Holding
        only the tiles doubted below some lower confidence shows more wrong tiles as sure, and the
        flag threshold's rule would then rise and flag more right tiles than that spares (the
        card's "Studies of session 38").
        """
        if self.without is None:
            return np.zeros(len(self.decoding.labels), bool)
        read_otherwise = np.array(self.without.labels) != np.array(self.decoding.labels)
        return np.array(self.without.uncertain, bool) | read_otherwise

    @property
    def flagged(self) -> np.ndarray:
        """(n,) bool: the tiles the reading asks the player to check, decoding's doubt or the inks'."""
        return np.array(self.decoding.uncertain, bool) | self.ink_doubt


def decode_with_inks(
    plain: np.ndarray,
    inked: np.ndarray,
    groups: list[list[int]],
    kind: ReadingKind,
    rules: RuleSet = STANDARD,
    settings: DecodingSettings = DEFAULT_SETTINGS,
    tile_prob: np.ndarray | None = None,
) -> InkedDecoding:
    """Decode ``inked`` (the probabilities with each colour weighed by the inks, :func:`adapted_by`)
    and, where they differ, ``plain`` (the same before the inks): one photo's decodings as every
    reading takes them, :func:`read` and the evaluations alike."""
    decoding = decode_photo(inked, groups, kind, rules, settings, tile_prob)
    if np.array_equal(plain, inked):
        return InkedDecoding(decoding)
    return InkedDecoding(decoding, decode_photo(plain, groups, kind, rules, settings, tile_prob))


def read(
    image: ImageSource,
    kind: str = "table",
    rules: RuleSet = STANDARD,
    settings: DecodingSettings = DEFAULT_SETTINGS,
    *,
    detector_weights: str | Path | None = None,
    reader_weights: str | Path | None = None,
    profile: TileProfile | None = None,
    memory: SessionMemory | None = None,
) -> Reading:
    """Read every tile in a photo of the table (``kind="table"``) or of a rack (``"rack"``).

    ``image`` is a path, bytes, a file object, or a BGR uint8 array; the weights default to the
    shipped ``detector.onnx`` and ``reader.onnx`` (see :mod:`vision.model_files`). A ``profile``
    of the player's own tiles (:mod:`vision.profiles`) keeps the boxes the gate dropped that it
    vouches for and adapts the reader's probabilities before decoding, and a near copy of a box it
    holds as no tile is flagged (:meth:`vision.profiles.TileProfile.looks_like_no_tile`); the tiles
    the player changed (or added) this session (``memory``, :mod:`vision.session_memory`) then read a
    near copy of one as the player set it, kept even where the gate dropped it, and a near copy of a
    box the player removed is flagged. The boxes left out that may be tiles are offered
    (:attr:`Reading.left_out`, :mod:`vision.left_out`). Each tile's
    colour is weighed by the set's inks: the photo's own sure tiles', then the profile's
    (:func:`adapted_by`, :mod:`vision.ink_colour`); what the inks alone change or make sure stays
    uncertain (:attr:`InkedDecoding.ink_doubt`), and so does a tile whose own digits are smeared
    (:func:`vision.sharpness.blurred_tiles`). Raises
    :class:`vision.images.ImageError` for what is not a readable photo and
    :class:`vision.model_files.ModelFileError` when a model file is missing or damaged.
    """
    from vision.meld_grouping import group_into_melds

    reading_kind = ReadingKind(kind)
    photo = _as_image(image)
    seen = see_tiles(photo, detector_weights=detector_weights, reader_weights=reader_weights)
    if profile is not None:
        seen = seen.vouched_by(profile)
    if memory is not None:
        seen = seen.remembered_by(memory)
    plain, probs = adapted_by(profile, seen)  # probs: what is decoded; plain: the same without the inks
    like_removed = None  # boxes like one the player removed this session, or the profile holds as no tile: flagged
    if profile is not None and len(profile.not_tiles):
        like_removed = profile.looks_like_no_tile(seen.reading.embeddings)
    if memory is not None:
        plain, probs = memory.adapt(plain, seen.reading.embeddings), memory.adapt(probs, seen.reading.embeddings)
        removed = memory.looks_removed(seen.reading.embeddings)
        like_removed = removed if like_removed is None else like_removed | removed
    groups = group_into_melds(seen.detections, reading_kind.value)
    tile_prob = seen.reading.tile_prob
    decided = decode_with_inks(plain, probs, groups, reading_kind, rules, settings, tile_prob)
    ink_doubt = decided.ink_doubt
    removed = np.zeros(len(ink_doubt), bool) if like_removed is None else like_removed
    blurs = tile_blurs(photo, seen.detections.boxes)
    blurred = blurred_tiles(blurs, settings.blurred_tile)
    height, width = photo.shape[:2]
    reading = build_reading(
        seen.detections, probs, groups, reading_kind, rules, (width, height), settings, tile_prob,
        removed | ink_doubt | blurred, decided.decoding,
    )
    order = [i for g in groups for i in g]  # the reading's tile order
    heard = memory.heard(seen.reading.embeddings) if memory is not None else np.full(len(order), -1)
    reading = replace(reading, tiles=tuple(
        replace(tile, remembered=bool(heard[i] == tile.tile.index), like_removed=bool(removed[i]), ink_doubt=bool(ink_doubt[i]),
                blurred=bool(blurred[i]))
        for tile, i in zip(reading.tiles, order)
    ))
    samples = tuple(
        TileSample(tile.tile, seen.views[:, i], seen.reading.embeddings[i], tile.box, probs[i], float(seen.reading.tile_prob[i]))
        for tile, i in zip(reading.tiles, order)
    )
    doubtful = tuple(tuple(float(v) for v in box) for box in seen.dropped.boxes)
    blur = typical_blur(blurs[order])
    guessed = _guessed(seen, profile)
    left_out = left_out_tiles(reading, seen.dropped.boxes, guessed, seen.dropped_reading.tile_prob, _dropped_samples(seen, guessed))
    return replace(reading, samples=samples, doubtful_boxes=doubtful, blur=blur, left_out=left_out)  # type: ignore[arg-type]


def _dropped_samples(seen: SeenTiles, probs: np.ndarray) -> tuple[TileSample, ...] | None:
    """The boxes ``seen`` dropped as samples (crops, embedding, box), each as its likeliest tile of
    ``probs``; None where their crops were not kept."""
    if seen.dropped_views is None:
        return None
    dropped = seen.dropped_reading
    return tuple(
        TileSample(Tile.from_index(int(np.argmax(probs[i]))), seen.dropped_views[:, i], dropped.embeddings[i],
                   tuple(float(v) for v in seen.dropped.boxes[i]), probs[i], float(dropped.tile_prob[i]))
        for i in range(len(seen.dropped))
    )


def _guessed(seen: SeenTiles, profile: TileProfile | None) -> np.ndarray:
    """The reader's probabilities of the boxes ``seen`` left out, adapted by the player's profile as
    the kept tiles' are (what the app offers them as). The session's memory has kept every box it
    would read otherwise (:meth:`SeenTiles.remembered_by`)."""
    dropped = seen.dropped_reading
    if profile is None or not len(dropped.probs):
        return dropped.probs
    return profile.adapt(dropped.probs, dropped.embeddings)


def warm_up() -> None:
    """Open the models and read one blank photo, so that the first real photo is not slower.

    The app runs this once per server process, in the background, at start-up. Raises
    :class:`vision.model_files.ModelFileError` when a model file is missing or damaged.
    """
    from vision.detector import find_tiles
    from vision.reader import load_reader, read_crops

    find_tiles(np.full((320, 320, 3), 128, np.uint8))  # opens both detectors
    reader = load_reader()
    read_crops(np.full((1, reader.imgsz, reader.imgsz, 3), 128, np.uint8), reader)


# --- drawing ---------------------------------------------------------------------------------

_SURE = (60, 180, 60)  # BGR green: confident
_CORRECTED = (0, 170, 255)  # orange: the rules changed the classifier's reading
_DOUBT = (40, 40, 230)  # red: please confirm


def tile_colour(tile: ReadTile) -> tuple[int, int, int]:
    """The box colour for a tile: red when uncertain, orange when corrected, else green."""
    if tile.uncertain:
        return _DOUBT
    if tile.corrected:
        return _CORRECTED
    return _SURE


#: Colour (BGR) of the dashed boxes of detections left out as more likely not tiles.
DOUBTFUL_BGR = (200, 200, 200)


def _dashed_rectangle(canvas: np.ndarray, box: tuple[int, ...], colour: tuple[int, int, int], thickness: int) -> None:
    x1, y1, x2, y2 = box
    dash = max(4, 4 * thickness)
    for a, b, fixed, horizontal in ((x1, x2, y1, True), (x1, x2, y2, True), (y1, y2, x1, False), (y1, y2, x2, False)):
        for start in range(a, b, 2 * dash):
            end = min(start + dash, b)
            p, q = ((start, fixed), (end, fixed)) if horizontal else ((fixed, start), (fixed, end))
            cv2.line(canvas, p, q, colour, thickness)


def annotate(image: ImageSource, reading: Reading, scale: float = 1.0) -> np.ndarray:
    """A copy of the photo with each tile's box and name (short notation and confidence), and the
    boxes left out as more likely not tiles dashed in light grey (:attr:`Reading.doubtful_boxes`), those
    offered to add numbered in the order they are offered (:attr:`Reading.left_out`).

    ``scale`` < 1 draws on the photo scaled down first (a preview for a screen: drawing on the
    full 12 MP photo and then shrinking it costs more and leaves the names thin).
    """
    if not 0.0 < scale <= 1.0:
        raise ValueError(f"scale must be in (0, 1], got {scale}")
    photo = _as_image(image)
    canvas = photo.copy() if scale == 1.0 else cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return draw_reading(canvas, reading, scale)


def draw_reading(canvas: np.ndarray, reading: Reading, scale: float = 1.0) -> np.ndarray:
    """:func:`annotate` on a photo already scaled by ``scale`` (a kept preview), drawn in place and returned."""
    if not 0.0 < scale <= 1.0:
        raise ValueError(f"scale must be in (0, 1], got {scale}")
    height, width = canvas.shape[:2]
    thickness = max(1, round(max(height, width) / 600))
    font_scale = max(0.4, max(height, width) / 1600)
    for box in reading.doubtful_boxes:
        _dashed_rectangle(canvas, tuple(int(round(v * scale)) for v in box), DOUBTFUL_BGR, thickness)
    for number, offer in enumerate(reading.left_out, start=1):  # numbered as the page offers them
        _label(canvas, str(number), offer.box, scale, DOUBTFUL_BGR, (0, 0, 0), font_scale, thickness)
    for tile in reading.tiles:
        x1, y1, x2, y2 = (int(round(v * scale)) for v in tile.box)
        colour = tile_colour(tile)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, thickness)
        _label(canvas, f"{tile.tile.short} {tile.confidence * 100:.0f}%", tile.box, scale, colour, (255, 255, 255),
               font_scale, thickness)
    return canvas


def _label(canvas: np.ndarray, text: str, box: Sequence[float], scale: float, background: tuple[int, int, int],
           ink: tuple[int, int, int], font_scale: float, thickness: int) -> None:
    """``text`` on a filled patch at the top left corner of ``box`` (photo pixels; drawn at ``scale``)."""
    x1, y1 = int(round(box[0] * scale)), int(round(box[1] * scale))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
    ty = max(y1, th + base + 2)
    cv2.rectangle(canvas, (x1, ty - th - base - 2), (x1 + tw + 4, ty), background, -1)
    cv2.putText(canvas, text, (x1 + 2, ty - base), cv2.FONT_HERSHEY_SIMPLEX, font_scale, ink, thickness, cv2.LINE_AA)
