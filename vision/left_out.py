"""Boxes the gate left out that may be tiles after all: which to offer the player, and where each goes.

The gate (:func:`vision.pipeline.kept_as_tiles`) drops a box that more likely shows no tile; on a
tile set the models never saw it drops readable tiles too (the detector doubts the whole photo's
tiles, or the reader doubts a tile cut by the frame). Those boxes are dashed on the photo. Rather
than have the player type each one, the reading offers the likeliest of them with the reader's
tile for each, numbered on the photo, and where it would go: beside the read tile it lies next
to, before or after it in its meld (or in the rack's order).

    offered(boxes, tile_prob, kept)           which dropped boxes to offer, likeliest first
    place_beside(box, reading)                (position of the read tile beside it, before it?)
    left_out_tiles(reading, boxes, probs, tile_prob)   the offers, as :class:`LeftOutTile` values

Measured on the selection and calibration sets (``python -m training.evaluate --cache DIR --sets
selection selection-phone selection-unseen calibration calibration-phone``, *left out, offered to
add*): 214 boxes offered in 200 photos; 86 on readable tiles no kept box found (the reader's tile
right on 39 of them: 18 of 25 at phone resolution, where the tiles are large enough to read), 102
on tiles whose number another tile or the frame hides, 26 on no tile (the table, a distractor).
None is offered on the real validation photos (``models/reader.md``, session 43).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solver.tiles import Tile
from vision.detections import box_coverage
from vision.profiles import TileSample
from vision.reading import Box, LeftOutTile, Reading, ReadingKind, alternatives

__all__ = ["OFFER_FROM_TILE_PROB", "MAX_OFFERED", "ON_READ_TILE", "NEXT_TO", "offered", "place_beside", "left_out_tiles"]

#: A dropped box is offered from this probability (the reader's) of showing a tile at all: the
#: readable tiles the gate drops mostly lie above it, the table and distractors mostly below
#: (chosen on the selection and calibration sets; what it offers there: the module's figures).
OFFER_FROM_TILE_PROB = 0.2
#: At most this many are offered per photo (a photo of a cluttered table drops 15-35 boxes).
MAX_OFFERED = 6
#: A dropped box this much of which lies on read tiles is one of them again, half of one, or two
#: of them at once: never offered.
ON_READ_TILE = 0.5
#: A box lies next to a read tile when their centres are at most this many tile lengths apart
#: (a neighbour in a meld is about 0.75 of a tile's length away, one in the tier below about 1).
NEXT_TO = 1.6


def offered(boxes: np.ndarray, tile_prob: np.ndarray | Sequence[float], kept: np.ndarray) -> list[int]:
    """Which of a photo's dropped ``boxes`` to offer: those at least :data:`OFFER_FROM_TILE_PROB`
    likely to show a tile and not lying on a read tile (``kept``, :data:`ON_READ_TILE`), likeliest
    first, at most :data:`MAX_OFFERED`."""
    boxes, kept = np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(kept, np.float64).reshape(-1, 4)
    tile_prob = np.asarray(tile_prob, np.float64)
    if len(tile_prob) != len(boxes):
        raise ValueError(f"{len(boxes)} boxes and {len(tile_prob)} tile probabilities")
    free = np.ones(len(boxes), bool)
    if len(boxes) and len(kept):
        free = np.minimum(box_coverage(kept, boxes).sum(axis=0), 1.0) < ON_READ_TILE
    order = np.argsort(-tile_prob, kind="stable")
    return [int(i) for i in order if free[i] and tile_prob[i] >= OFFER_FROM_TILE_PROB][:MAX_OFFERED]


def _centre(box: Sequence[float]) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0])


def _line_of(reading: Reading, position: int, centres: np.ndarray, reach: float) -> list[int]:
    """The read tiles in ``position``'s line, in reading order: its meld on a table; on a rack, the
    run of tiles in reading order, each next to the one before, that holds it (its tier)."""
    if reading.kind is ReadingKind.TABLE:
        return list(next((meld for meld in reading.melds if position in meld), (position,)))
    start = end = position
    while start > 0 and np.linalg.norm(centres[start] - centres[start - 1]) <= reach:
        start -= 1
    while end + 1 < len(centres) and np.linalg.norm(centres[end + 1] - centres[end]) <= reach:
        end += 1
    return list(range(start, end + 1))


def place_beside(box: Box, reading: Reading) -> tuple[int | None, bool]:
    """Where a box would go among ``reading``'s tiles: (the position of the nearest read tile, if
    it lies next to one (:data:`NEXT_TO`), else None; whether the box comes before that tile along
    its line (:func:`_line_of`; a line of one tile runs left to right))."""
    if not reading.tiles:
        return None, False
    centres = np.array([_centre(t.box) for t in reading.tiles])
    length = reading.tile_px
    here = _centre(box)
    distances = np.linalg.norm(centres - here, axis=1)
    nearest = int(np.argmin(distances))
    if distances[nearest] > NEXT_TO * length:
        return None, False
    line = _line_of(reading, nearest, centres, NEXT_TO * length)
    axis = centres[line[-1]] - centres[line[0]] if len(line) > 1 else np.array([1.0, 0.0])
    return nearest, bool(np.dot(here - centres[nearest], axis) < 0)


def left_out_tiles(
    reading: Reading, boxes: np.ndarray, probs: np.ndarray, tile_prob: np.ndarray,
    samples: Sequence[TileSample] | None = None,
) -> tuple[LeftOutTile, ...]:
    """The dropped boxes offered to the player (:func:`offered`): each with the reader's likeliest
    tile (``probs``, n x 53), the next likeliest (:func:`vision.reading.alternatives`), its place
    beside ``reading``'s tiles, and its ``samples`` row (crops and embedding) where given."""
    boxes, probs = np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(probs, np.float64)
    if not (len(boxes) == len(probs) == len(tile_prob)) or (samples is not None and len(samples) != len(boxes)):
        raise ValueError(
            f"{len(boxes)} boxes, {len(probs)} readings and {len(tile_prob)} tile probabilities"
            + ("" if samples is None else f" and {len(samples)} samples")
        )
    out = []
    for i in offered(boxes, tile_prob, np.array([t.box for t in reading.tiles], np.float64)):
        box = tuple(float(v) for v in boxes[i])
        label = int(np.argmax(probs[i]))
        beside, before = place_beside(box, reading)  # type: ignore[arg-type]
        out.append(LeftOutTile(
            Tile.from_index(label), box, float(probs[i][label]), float(tile_prob[i]),  # type: ignore[arg-type]
            alternatives(probs[i], label), beside, before, None if samples is None else samples[i],
        ))
    return tuple(out)
