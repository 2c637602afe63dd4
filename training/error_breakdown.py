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

__all__ = ["ErrorKind", "tile_errors", "error_counts", "SIZE_BANDS", "size_band", "errors_by_size", "format_breakdown"]

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


def tile_errors(
    truth_boxes: np.ndarray,
    truth_labels: Sequence[int],
    kept_boxes: np.ndarray,
    kept_labels: Sequence[int],
    dropped_boxes: np.ndarray,
    match_iou: float = 0.3,
) -> list[tuple[ErrorKind, int | None]]:
    """Every error of one photo as (kind, the labelled tile it concerns, or ``None`` for a box on no tile)."""
    truth_boxes = np.asarray(truth_boxes, np.float32).reshape(-1, 4)
    kept_boxes = np.asarray(kept_boxes, np.float32).reshape(-1, 4)
    dropped_boxes = np.asarray(dropped_boxes, np.float32).reshape(-1, 4)
    if len(kept_labels) != len(kept_boxes) or len(truth_labels) != len(truth_boxes):
        raise ValueError("every box needs one label")
    errors: list[tuple[ErrorKind, int | None]] = []
    pairs = match(Detections(kept_boxes, np.ones(len(kept_boxes), np.float32)), truth_boxes, match_iou)
    for d, t in pairs.items():
        if kept_labels[d] != truth_labels[t]:
            errors.append((_misread(Tile.from_index(truth_labels[t]), Tile.from_index(kept_labels[d])), t))
    unmatched_truth = np.array([t for t in range(len(truth_boxes)) if t not in set(pairs.values())], int)
    if len(unmatched_truth):
        rescued = match(Detections(dropped_boxes, np.ones(len(dropped_boxes), np.float32)), truth_boxes[unmatched_truth], match_iou)
        rescued_truth = {int(unmatched_truth[t]) for t in rescued.values()}
        errors += [(ErrorKind.DROPPED_TILE if int(t) in rescued_truth else ErrorKind.MISSED_BOX, int(t)) for t in unmatched_truth]
    extra = [d for d in range(len(kept_boxes)) if d not in pairs]
    if extra:
        on_tiles = (
            box_overlap(kept_boxes[extra], truth_boxes).max(axis=1) if len(truth_boxes) else np.zeros(len(extra))
        )
        for d, overlap in zip(extra, on_tiles):
            if overlap >= ON_TILE_OVERLAP:
                errors.append((ErrorKind.BAD_BOX, None))
            elif Tile.from_index(kept_labels[d]).is_joker:
                errors.append((ErrorKind.NON_TILE_JOKER, None))
            else:
                errors.append((ErrorKind.NON_TILE, None))
    return errors


def error_counts(errors: Sequence[tuple[ErrorKind, int | None]]) -> Counter[ErrorKind]:
    """The errors of :func:`tile_errors` by kind (see the module docstring); an exact reading gives an empty Counter."""
    return Counter(kind for kind, _ in errors)


#: Size bands (a labelled tile's longer side in pixels) the errors on labelled tiles are also split by.
SIZE_BANDS = ((0, 40, "< 40 px"), (40, 80, "40-80 px"), (80, 10**9, ">= 80 px"))


def size_band(box: Sequence[float]) -> str:
    """The name of the :data:`SIZE_BANDS` band of a box (x1, y1, x2, y2)."""
    side = max(float(box[2]) - float(box[0]), float(box[3]) - float(box[1]))
    return next(name for low, high, name in SIZE_BANDS if low <= side < high)


def errors_by_size(truth_boxes: np.ndarray, errors: Sequence[tuple[ErrorKind, int | None]]) -> dict[str, Counter[ErrorKind]]:
    """The errors on labelled tiles (``tile_errors``' output), by the tile's size band; boxes on no tile are left out."""
    bands: dict[str, Counter[ErrorKind]] = {name: Counter() for _, _, name in SIZE_BANDS}
    for kind, t in errors:
        if t is not None:
            bands[size_band(truth_boxes[t])][kind] += 1
    return bands


def format_breakdown(errors: Counter[ErrorKind]) -> str:
    """One line: each kind's count and share of all errors, largest first."""
    total = sum(errors.values())
    if not total:
        return "errors: none"
    parts = [f"{kind.value} {n} ({n / total:.0%})" for kind, n in errors.most_common() if n]
    return f"errors {total}: " + ", ".join(parts)
