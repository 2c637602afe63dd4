"""A calibration photo: the player's tiles laid out in known rows, paired with that layout.

    parse_layout("r1 r2 r3 | o1 o2 o3") -> CalibrationLayout      (rows top first, each left to right)
    DEFAULT_LAYOUT                         four rows by colour (black, blue, orange, red), 1-13, then the jokers
    pair_with_layout(detections, layout, probs=None) -> tuple[int, ...]
    collect_samples(image, layout, ...) -> tuple[TileSample, ...]   (detector and reader at the edges)

The detections are grouped into rows the way a rack's tiers are (:func:`vision.meld_grouping.group_into_melds`
with ``kind="rack"``: rows along the photo's tilt, each ordered along it), then paired with the
layout in reading order. A photo may be taken from the other side of the table: the layout
turned half round is tried too, and the reader's probabilities pick the pairing that fits better.
Anything that does not fit - another number of rows, a row with a tile too many or too few, two
detections at one place - is a :class:`CalibrationError` that says where, so nothing wrong is
learnt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.i18n import Message, TranslatableError
from solver.tiles import ALL_NUMBERED, JOKER, NotationError, Tile, parse_melds
from vision.detections import Detections
from vision.profiles import TileSample

__all__ = [
    "CalibrationError",
    "CalibrationLayout",
    "DEFAULT_LAYOUT",
    "parse_layout",
    "rows_of",
    "pair_with_layout",
    "collect_samples",
]

#: Two detections in one row closer than this share of a tile's width are one place read twice.
SAME_PLACE = 0.5
#: A progress callback: (share done in 0..1, stage) - for the app's progress bar. Stages:
#: "detect" (finding and reading the tiles), "pair" (pairing them with the layout), "done".
Progress = Callable[[float, str], None]


class CalibrationError(TranslatableError, ValueError):
    """A calibration photo or layout that cannot be used; its message says where and why."""


@dataclass(frozen=True)
class CalibrationLayout:
    """The tiles as laid out: rows top first, each left to right."""

    rows: tuple[tuple[Tile, ...], ...]

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return tuple(t for row in self.rows for t in row)

    @property
    def notation(self) -> str:
        return " | ".join(" ".join(t.short for t in row) for row in self.rows)

    def turned(self) -> "CalibrationLayout":
        """The layout as seen from the other side of the table (rows and tiles reversed)."""
        return CalibrationLayout(tuple(tuple(reversed(row)) for row in reversed(self.rows)))


#: Four rows by colour - black, blue, orange, red - each 1 to 13, and the two jokers in a fifth.
DEFAULT_LAYOUT = CalibrationLayout(tuple(ALL_NUMBERED[c * 13 : (c + 1) * 13] for c in range(4)) + ((JOKER, JOKER),))


def parse_layout(text: str | None) -> CalibrationLayout:
    """The layout a player typed (rows separated by ``|``); ``None`` or blank: :data:`DEFAULT_LAYOUT`."""
    if text is None or not text.strip():
        return DEFAULT_LAYOUT
    try:
        rows = parse_melds(text)
    except NotationError as err:
        raise CalibrationError(
            "the layout is not valid tile notation: {reason} ({token!r})", reason=Message(err.reason), token=err.token
        ) from err
    return CalibrationLayout(rows)


def rows_of(detections: Detections) -> list[list[int]]:
    """Detections grouped into rows, top row first, each left to right (along the photo's tilt)."""
    from vision.meld_grouping import group_into_melds

    return group_into_melds(detections, "rack")


def _count_problems(rows: Sequence[Sequence[int]], layout: CalibrationLayout) -> CalibrationError | None:
    found, expected = [len(r) for r in rows], [len(r) for r in layout.rows]
    if len(found) != len(expected):
        return CalibrationError(
            "found {found} rows of tiles ({counts} tiles), but the layout has {expected} rows ({layout} tiles)",
            found=len(found), counts=", ".join(map(str, found)), expected=len(expected),
            layout=", ".join(map(str, expected)),
        )
    wrong = [
        Message("row {row} has {found} tiles where the layout has {expected}", {"row": i + 1, "found": f, "expected": e})
        for i, (f, e) in enumerate(zip(found, expected))
        if f != e
    ]
    return CalibrationError("the rows do not match the layout: {rows}", rows=wrong) if wrong else None


def _same_place(rows: Sequence[Sequence[int]], detections: Detections) -> CalibrationError | None:
    widths = np.minimum(detections.widths, detections.heights)
    width = float(np.median(widths)) if len(widths) else 0.0
    centres = detections.centers
    for r, row in enumerate(rows):
        for k, (a, b) in enumerate(zip(row, row[1:])):
            if float(np.hypot(*(centres[b] - centres[a]))) < SAME_PLACE * width:
                return CalibrationError(
                    "row {row}: tiles {first} and {second} were found at the same place; "
                    "lay the tiles apart and take the photo again",
                    row=r + 1, first=k + 1, second=k + 2,
                )
    return None


def _log_fit(order: Sequence[int], layout: CalibrationLayout, probs: np.ndarray | None) -> float:
    if probs is None:
        return 0.0
    labels = [t.index for t in layout.tiles]
    return float(np.log(np.maximum(probs[list(order), labels], 1e-9)).sum())


def pair_with_layout(
    detections: Detections, layout: CalibrationLayout, probs: np.ndarray | None = None
) -> tuple[int, ...]:
    """For each tile of ``layout`` in reading order, the index of its detection.

    The layout is tried as it is and turned half round (a photo from the other side); of those
    whose row counts fit, the one the reader's ``probs`` (n x 53) agree with more is taken (as it
    is, without probabilities). Raises :class:`CalibrationError` when none fits, naming the rows.
    """
    if not layout.rows:
        raise CalibrationError("the layout is empty")
    if len(detections) == 0:
        raise CalibrationError("no tiles found in the photo")
    rows = rows_of(detections)
    doubled = _same_place(rows, detections)  # first: a tile found twice also makes its row's count wrong
    if doubled is not None:
        raise doubled
    fits: list[tuple[float, int, tuple[int, ...]]] = []
    first_problem: CalibrationError | None = None
    for turn, candidate in enumerate((layout, layout.turned())):
        problem = _count_problems(rows, candidate)
        if problem is not None:
            first_problem = first_problem or problem
            continue
        order_as_seen = tuple(i for row in rows for i in row)
        order = order_as_seen if turn == 0 else order_as_seen[::-1]  # reading the turned layout back to front
        fits.append((_log_fit(order, layout, probs), -turn, order))
    if not fits:
        assert first_problem is not None
        raise first_problem
    return max(fits)[2]


def collect_samples(
    image: np.ndarray,
    layout: CalibrationLayout,
    *,
    detector_weights: str | Path | None = None,
    reader_weights: str | Path | None = None,
    progress: Progress | None = None,
) -> tuple[TileSample, ...]:
    """Find the tiles of a calibration photo, pair them with ``layout``, keep each one's crops.

    Each sample holds the crops exactly as the reader reads them (every margin) and the reader's
    embedding of them, labelled with the layout's tile. Raises :class:`CalibrationError` when the
    photo does not match the layout, :class:`vision.model_files.ModelFileError` for missing models.
    """
    from vision.pipeline import see_tiles

    report = progress or (lambda share, stage: None)
    report(0.05, "detect")
    seen = see_tiles(image, detector_weights=detector_weights, reader_weights=reader_weights)
    report(0.8, "pair")
    order = pair_with_layout(seen.detections, layout, seen.reading.probs)
    samples = tuple(
        TileSample(tile, seen.views[:, i], seen.reading.embeddings[i], tuple(float(v) for v in seen.detections.boxes[i]))
        for tile, i in zip(layout.tiles, order)
    )
    report(1.0, "done")
    return samples
