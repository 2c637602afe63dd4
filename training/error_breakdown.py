"""Where a photo's misreads come from: the detector's boxes, the number, the colour, jokers, non-tiles.

F1 says how much is wrong; this says what, so that work goes to the largest share. Each photo's
kept boxes are matched one-to-one to the labelled tiles (IoU >= ``match_iou``, as the other
figures match); every error then falls in exactly one :class:`ErrorKind`:

* a labelled tile no kept box matches: ``DROPPED_TILE`` when a box the reader dropped as "not a
  tile" matches it, else ``MISSED_BOX`` (the detector found nothing there);
* a kept box on no labelled tile: ``BAD_BOX`` when it lies mostly on tiles (half a tile, two
  tiles, a duplicate: the detector's box is wrong), else ``NON_TILE`` (a distractor or the table
  read as a tile; ``NON_TILE_JOKER`` when it was read as a joker);
* a matched tile read wrong: ``JOKER_PHANTOM`` (a tile read as a joker), ``JOKER_MISSED`` (a joker
  read as a tile), else ``NUMBER``, ``COLOUR`` or ``NUMBER_AND_COLOUR`` by what differs.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence

import numpy as np

from solver.tiles import Tile
from training.metrics import match
from vision.detections import Detections, box_overlap

__all__ = ["ErrorKind", "photo_errors", "format_breakdown"]

#: An unmatched box that lies this much (intersection over its area) on labelled tiles is the detector's.
ON_TILE_OVERLAP = 0.5


class ErrorKind(enum.Enum):
    MISSED_BOX = "missed box (detector)"
    BAD_BOX = "box off the tile (detector)"
    DROPPED_TILE = "tile dropped as not-tile"
    NUMBER = "number wrong"
    COLOUR = "colour wrong"
    NUMBER_AND_COLOUR = "number and colour wrong"
    JOKER_PHANTOM = "tile read as joker"
    JOKER_MISSED = "joker read as a tile"
    NON_TILE = "non-tile read as a tile"
    NON_TILE_JOKER = "non-tile read as a joker"


def _misread(truth: Tile, read: Tile) -> ErrorKind:
    if read.is_joker:
        return ErrorKind.JOKER_PHANTOM
    if truth.is_joker:
        return ErrorKind.JOKER_MISSED
    if truth.number != read.number:
        return ErrorKind.NUMBER if truth.colour == read.colour else ErrorKind.NUMBER_AND_COLOUR
    return ErrorKind.COLOUR


def photo_errors(
    truth_boxes: np.ndarray,
    truth_labels: Sequence[int],
    kept_boxes: np.ndarray,
    kept_labels: Sequence[int],
    dropped_boxes: np.ndarray,
    match_iou: float = 0.3,
) -> Counter[ErrorKind]:
    """Every error of one photo, by kind (see the module docstring); an exact reading gives an empty Counter."""
    truth_boxes = np.asarray(truth_boxes, np.float32).reshape(-1, 4)
    kept_boxes = np.asarray(kept_boxes, np.float32).reshape(-1, 4)
    dropped_boxes = np.asarray(dropped_boxes, np.float32).reshape(-1, 4)
    if len(kept_labels) != len(kept_boxes) or len(truth_labels) != len(truth_boxes):
        raise ValueError("every box needs one label")
    errors: Counter[ErrorKind] = Counter()
    pairs = match(Detections(kept_boxes, np.ones(len(kept_boxes), np.float32)), truth_boxes, match_iou)
    for d, t in pairs.items():
        if kept_labels[d] != truth_labels[t]:
            errors[_misread(Tile.from_index(truth_labels[t]), Tile.from_index(kept_labels[d]))] += 1
    unmatched_truth = np.array([t for t in range(len(truth_boxes)) if t not in set(pairs.values())], int)
    if len(unmatched_truth):
        rescued = match(Detections(dropped_boxes, np.ones(len(dropped_boxes), np.float32)), truth_boxes[unmatched_truth], match_iou)
        errors[ErrorKind.DROPPED_TILE] += len(rescued)
        errors[ErrorKind.MISSED_BOX] += len(unmatched_truth) - len(rescued)
    extra = [d for d in range(len(kept_boxes)) if d not in pairs]
    if extra:
        on_tiles = (
            box_overlap(kept_boxes[extra], truth_boxes).max(axis=1) if len(truth_boxes) else np.zeros(len(extra))
        )
        for d, overlap in zip(extra, on_tiles):
            if overlap >= ON_TILE_OVERLAP:
                errors[ErrorKind.BAD_BOX] += 1
            elif Tile.from_index(kept_labels[d]).is_joker:
                errors[ErrorKind.NON_TILE_JOKER] += 1
            else:
                errors[ErrorKind.NON_TILE] += 1
    return +errors


def format_breakdown(errors: Counter[ErrorKind]) -> str:
    """One line: each kind's count and share of all errors, largest first."""
    total = sum(errors.values())
    if not total:
        return "errors: none"
    parts = [f"{kind.value} {n} ({n / total:.0%})" for kind, n in errors.most_common() if n]
    return f"errors {total}: " + ", ".join(parts)
