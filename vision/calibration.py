"""A calibration photo: the player's tiles laid out in known rows, paired with that layout.

    parse_layout("r1 r2 r3 | o1 o2 o3") -> CalibrationLayout      (rows top first, each left to right)
    DEFAULT_LAYOUT                         four rows by colour (black, blue, orange, red), 1-13, then the jokers
    pair_with_layout(detections, layout, probs=None) -> tuple[int, ...]
    samples_from(seen, layout) -> PairedPhoto        the tiles seen paired, put back or left out to fit
    collect_samples(image, layout, ...) -> PairedPhoto   (detector and reader at the edges)

The detections are grouped into rows the way a rack's tiers are (:func:`vision.meld_grouping.group_into_melds`
with ``kind="rack"``: rows along the photo's tilt, each ordered along it), then paired with the
layout in reading order. A photo may be taken from the other side of the table: the layout
turned half round is tried too, and the reader's probabilities pick the pairing that fits better.
Anything that does not fit - another number of rows, a row with a tile too many or too few, two
detections at one place - is a :class:`CalibrationError` that says where, so nothing wrong is
learnt.

**The layout says how many tiles there are.** On a set no model was trained on, the gate
(:func:`vision.pipeline.kept_as_tiles`) drops a real tile now and then, and a rack photographed as
a calibration photo shows the rack's end, which real racks of other editions read as a joker:
either made a row's count wrong, and the photo was refused with nothing learnt. So when the boxes
kept are up to :data:`MAX_FIT` short of the layout, boxes the gate dropped are put back
(:func:`restoring`: tile-sized, not on a kept box, the likeliest first); when they are up to
:data:`MAX_FIT` too many, the boxes least likely to be tiles or at a row's end are left out
(:func:`leaving_out`: the choice whose pairing the reader agrees with most). A tile found twice is
still refused. The player sees every crop with its label, the tiles put back marked and the boxes
left out, before saving; the boxes left out are kept in the profile as no tile of the player's set
(:class:`PairedPhoto`). A close-up turned a quarter has near-square boxes whose shape cannot tell
the turn, so the rows are tried across the photo and down it (:func:`_pairings`). Measured by
``python -m training.calibration_study`` (``models/reader.md``, "Calibration photos that do not
fit at first"): with a phantom box on the photo, every such photo was refused before and none
after but one with a tile found twice, and no tile was paired with a box of another kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from solver.i18n import DEFAULT_LANGUAGE, Message, TranslatableError
from solver.tiles import ALL_NUMBERED, JOKER, NotationError, Tile, parse_melds
from vision.detections import Detections, box_overlap, median_length
from vision.profiles import NoTileSample, TileSample, unlike_the_rest
from vision.reading import PhotoLook
from vision.sharpness import photo_blur

if TYPE_CHECKING:
    from vision.pipeline import SeenTiles

__all__ = [
    "CalibrationError",
    "CalibrationLayout",
    "DEFAULT_LAYOUT",
    "parse_layout",
    "rows_of",
    "pair_with_layout",
    "restoring",
    "leaving_out",
    "PairedPhoto",
    "samples_from",
    "collect_samples",
    "MAX_FIT",
]

#: Two detections in one row closer than this share of a tile's width are one place read twice.
SAME_PLACE = 0.5
#: At most this many boxes are put back (the gate dropped them) or left out (kept, yet no tile the
#: layout has) to make the rows fit the layout.
MAX_FIT = 3
#: Of the boxes the gate dropped, this many (likeliest tiles first) are tried back; of the boxes it
#: kept, this many (least likely first) are tried out, and the first and last of every row (where
#: the ends of a rack lie).
FIT_CANDIDATES = 8
#: At most this many choices of boxes are tried, likeliest first (each groups the boxes into rows
#: again: about 5 ms for the default layout's 54).
MAX_TRIES = 200
#: A dropped box is tried back only when its short and long sides are within this factor of the
#: kept boxes' median ones (a tile of the set, not a patch of the table).
RESTORE_SIZE = 1.35
#: A dropped box lying on a kept one by this share of the smaller is the detector's second box on it.
SAME_TILE_OVERLAP = 0.5
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


def _ways_seen(layout: CalibrationLayout, quarter: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The layout's rows as the photo's tiers show them, as positions in ``layout.tiles``: from
    either side of the table (as laid out, or turned half round); or, in a photo turned a quarter
    (tiers read top to bottom, left to right: :func:`vision.meld_grouping.rack_tiers`), with the rows'
    order or each row's reversed, one for each way round."""
    rows, start = [], 0
    for row in layout.rows:
        rows.append(tuple(range(start, start + len(row))))
        start += len(row)
    if not quarter:
        return tuple(rows), tuple(tuple(reversed(row)) for row in reversed(rows))
    return tuple(reversed(rows)), tuple(tuple(reversed(row)) for row in rows)


def _pairings(detections: Detections, layout: CalibrationLayout) -> list[tuple[int, ...]]:
    """Every pairing whose row counts fit: for each tile of ``layout``, its detection. The tiers are
    taken across the photo and down it (a close-up in perspective has near-square boxes, so their
    shape cannot tell a photo turned a quarter), each read from either way round (:func:`_ways_seen`)."""
    from vision.meld_grouping import rack_tiers

    pairings: list[tuple[int, ...]] = []
    for quarter in (False, True):
        tiers = rack_tiers(detections, quarter)
        as_seen = [i for tier in tiers for i in tier]
        for way in _ways_seen(layout, quarter):
            if [len(t) for t in tiers] != [len(r) for r in way]:
                continue
            order = [0] * len(as_seen)
            for detection, position in zip(as_seen, (p for row in way for p in row)):
                order[position] = detection
            if tuple(order) not in pairings:
                pairings.append(tuple(order))
    return pairings


def pair_with_layout(
    detections: Detections, layout: CalibrationLayout, probs: np.ndarray | None = None
) -> tuple[int, ...]:
    """For each tile of ``layout`` in reading order, the index of its detection.

    The layout is tried as it is and turned half round (a photo from the other side), in a photo
    upright and turned a quarter (:func:`_pairings`); of those whose row counts fit, the one the
    reader's ``probs`` (n x 53) agree with more is taken (the first, as laid out and upright,
    without probabilities). Raises :class:`CalibrationError` when none fits, naming the rows as the
    boxes' shape groups them (:func:`rows_of`).
    """
    if not layout.rows:
        raise CalibrationError("the layout is empty")
    if len(detections) == 0:
        raise CalibrationError("no tiles found in the photo")
    rows = rows_of(detections)
    doubled = _same_place(rows, detections)  # first: a tile found twice also makes its row's count wrong
    if doubled is not None:
        raise doubled
    fits = [(_log_fit(order, layout, probs), -k, order) for k, order in enumerate(_pairings(detections, layout))]
    if not fits:
        problem = _count_problems(rows, layout)
        assert problem is not None, "rows whose counts fit the layout give a pairing"
        raise problem
    return max(fits)[2]


def _pairing_if_it_fits(
    detections: Detections, layout: CalibrationLayout, probs: np.ndarray | None = None
) -> tuple[int, ...] | None:
    """:func:`pair_with_layout`'s pairing, or ``None`` where it refuses the photo."""
    try:
        return pair_with_layout(detections, layout, probs)
    except CalibrationError:
        return None


def _likeliest(candidates: Sequence[int], weight: np.ndarray, size: int) -> list[tuple[int, ...]]:
    """The choices of ``size`` of the ``candidates``, the highest summed ``weight`` first, at most :data:`MAX_TRIES`."""
    return sorted(combinations(candidates, size), key=lambda c: -float(weight[list(c)].sum()))[:MAX_TRIES]


def restoring(
    kept: Detections, dropped: Detections, scores: np.ndarray, layout: CalibrationLayout, limit: int = MAX_FIT
) -> np.ndarray | None:
    """Mask of the ``dropped`` boxes that, put back beside ``kept``, make the photo's rows fit ``layout``.

    ``kept`` must be short of the layout by 1 to ``limit`` tiles, and exactly that many are put back:
    tile-sized boxes (:data:`RESTORE_SIZE`) not lying on a kept one, tried as the fewest, likeliest
    (``scores``: how likely each dropped box is a tile, e.g. the gate's) first. ``None`` when the kept
    boxes are not short by that much or no such choice fits.
    """
    scores = np.asarray(scores, np.float64)
    if scores.shape != (len(dropped),):
        raise ValueError(f"{scores.shape} scores for {len(dropped)} dropped boxes")
    missing = len(layout.tiles) - len(kept)
    if not 1 <= missing <= limit or len(kept) == 0 or len(dropped) < missing:
        return None
    sides = np.sort(np.stack([dropped.widths, dropped.heights], axis=1), axis=1)
    usual = np.median(np.sort(np.stack([kept.widths, kept.heights], axis=1), axis=1), axis=0)
    ratio = sides / np.maximum(usual, 1e-6)
    sized = np.all((ratio <= RESTORE_SIZE) & (ratio >= 1 / RESTORE_SIZE), axis=1)
    apart = box_overlap(dropped.boxes, kept.boxes).max(axis=1) < SAME_TILE_OVERLAP
    candidates = [int(i) for i in np.argsort(-scores, kind="stable") if sized[i] and apart[i]][:FIT_CANDIDATES]
    for choice in _likeliest(candidates, np.log(np.clip(scores, 1e-9, 1.0)), missing):
        mask = np.zeros(len(dropped), bool)
        mask[list(choice)] = True
        if _pairing_if_it_fits(Detections.concat([kept, dropped[mask]]), layout) is not None:
            return mask
    return None


def leaving_out(
    detections: Detections, scores: np.ndarray, layout: CalibrationLayout, probs: np.ndarray | None = None,
    limit: int = MAX_FIT,
) -> np.ndarray | None:
    """Mask of the ``detections`` to leave out as no tiles so that the rest fit ``layout``.

    The detections must outnumber the layout's tiles by 1 to ``limit``, and exactly that many are left
    out: of the :data:`FIT_CANDIDATES` least likely tiles (``scores``, e.g. the gate's) and the first
    and last box of every row, the choice whose pairing the reader's ``probs`` (n x 53) agree with
    most (:func:`pair_with_layout`), then the least likely. ``None`` when the detections do not
    outnumber the layout so or no choice fits. The end of a rack, a knot in the wood or a key of a
    keyboard read as a tile makes a row too long, or a row of its own; a real tile left out instead
    shifts the labels of its row, which the reader's probabilities tell.
    """
    scores = np.asarray(scores, np.float64)
    if scores.shape != (len(detections),):
        raise ValueError(f"{scores.shape} scores for {len(detections)} detections")
    extra = len(detections) - len(layout.tiles)
    if not 1 <= extra <= limit:
        return None
    ends = {row[k] for row in rows_of(detections) for k in (0, -1)}
    candidates = sorted({*[int(i) for i in np.argsort(scores, kind="stable")][:FIT_CANDIDATES], *ends})
    weight = -np.log(np.clip(scores, 1e-9, 1.0))  # the least likely tiles first
    best: tuple[float, float, np.ndarray] | None = None
    for choice in _likeliest(candidates, weight, extra):
        mask = np.zeros(len(detections), bool)
        mask[list(choice)] = True
        rest_probs = None if probs is None else probs[~mask]
        order = _pairing_if_it_fits(detections[~mask], layout, rest_probs)
        if order is None:
            continue
        fit = _log_fit(order, layout, rest_probs)
        key = (fit, float(weight[list(choice)].sum()))
        if best is None or key > best[:2]:
            best = (*key, mask)
    return None if best is None else best[2]


@dataclass(frozen=True, eq=False)
class PairedPhoto:
    """A calibration photo paired with its layout: its tiles, and what was done to make them fit."""

    samples: tuple[TileSample, ...]
    #: Positions in :attr:`samples` of the tiles the gate had dropped, put back where the layout has one.
    put_back: tuple[int, ...] = ()
    #: The boxes left out as no tile of the layout (each unlike every other box of the photo,
    #: :func:`vision.profiles.unlike_the_rest`): shown to the player, and kept in the profile as no
    #: tile of the player's set.
    left_out: tuple[NoTileSample, ...] = ()
    #: How blurred the photo's tiles are (:func:`vision.sharpness.photo_blur`; 0.0 when not measured).
    blur: float = 0.0

    @property
    def boxes(self) -> list[tuple[float, ...]]:
        """Where the tiles are in the photo (x1, y1, x2, y2), the samples that carry a box."""
        return [s.box for s in self.samples if len(s.box) == 4]

    @property
    def tile_px(self) -> float:
        """How long the tiles are in the photo: the median of their boxes' longer sides (0.0 for none)."""
        return median_length(self.boxes)

    @property
    def look(self) -> PhotoLook:
        """How the tiles came out in the photo."""
        return PhotoLook(self.tile_px, self.blur)

    def notes(self, lang: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
        """What to tell the player about the photo itself: its tiles too small or too blurred to
        teach the reader well (:meth:`vision.reading.PhotoLook.advice`); the profile is saved anyway."""
        return self.look.advice(lang)


def samples_from(seen: "SeenTiles", layout: CalibrationLayout, fit: int = MAX_FIT) -> PairedPhoto:
    """The tiles ``seen`` in a calibration photo paired with ``layout``, each with its crops and embedding.

    When the boxes kept are up to ``fit`` tiles short of the layout, boxes the gate dropped are put
    back (:func:`restoring`); when they are up to ``fit`` too many, the least likely tiles are left
    out (:func:`leaving_out`) - unless one of them looks like another box of the photo
    (:func:`vision.profiles.unlike_the_rest`): a tile laid out once too often looks like its twin,
    and the photo has the wrong count; 0: the boxes kept, as they are. Raises
    :class:`CalibrationError` naming the rows of the boxes kept when nothing fits, and when two
    boxes lie at one place (a tile found twice, as each face of a two-faced joker: leaving one out
    would teach the profile that a tile of the set is no tile).
    """
    kept, left_out = len(seen.detections), ()
    try:
        order = pair_with_layout(seen.detections, layout, seen.reading.probs)
    except CalibrationError:
        fitted = _fitted(seen, layout, fit)
        if fitted is None:
            raise
        seen, order, left_out = fitted
    samples = tuple(
        TileSample(tile, seen.views[:, i], seen.reading.embeddings[i], tuple(float(v) for v in seen.detections.boxes[i]))
        for tile, i in zip(layout.tiles, order)
    )
    return PairedPhoto(samples, tuple(k for k, i in enumerate(order) if i >= kept), left_out)


def _fitted(
    seen: "SeenTiles", layout: CalibrationLayout, fit: int
) -> tuple["SeenTiles", tuple[int, ...], tuple[NoTileSample, ...]] | None:
    """``seen`` made to fit ``layout`` by up to ``fit`` boxes put back or left out (:func:`samples_from`):
    the tiles, each layout tile's detection, the boxes left out; ``None`` when it cannot be."""
    found = len(seen.detections)
    if not fit or (found and _same_place(rows_of(seen.detections), seen.detections) is not None):
        return None
    if found <= len(layout.tiles):
        scores = seen.dropped.confidences * seen.dropped_reading.tile_prob
        back = restoring(seen.detections, seen.dropped, scores, layout, fit)
        if back is None:
            return None
        seen = seen.keeping(back)
        return seen, pair_with_layout(seen.detections, layout, seen.reading.probs), ()
    scores = seen.detections.confidences * seen.reading.tile_prob
    out = leaving_out(seen.detections, scores, layout, seen.reading.probs, fit)
    gone = [] if out is None else [int(i) for i in np.flatnonzero(out)]
    if out is None or unlike_the_rest(seen.reading.embeddings, gone) != gone:
        return None  # nothing fits, or what fits leaves out a box like a tile of the photo: a tile too many
    staying = np.flatnonzero(~out)
    order = tuple(int(staying[i]) for i in pair_with_layout(seen.detections[~out], layout, seen.reading.probs[~out]))
    photo_mean = seen.reading.embeddings.mean(axis=0)
    left_out = tuple(
        NoTileSample(seen.views[:, i], seen.reading.embeddings[i], photo_mean,
                     tuple(float(v) for v in seen.detections.boxes[i]))
        for i in gone
    )
    return seen, order, left_out


def collect_samples(
    image: np.ndarray,
    layout: CalibrationLayout,
    *,
    detector_weights: str | Path | None = None,
    reader_weights: str | Path | None = None,
    progress: Progress | None = None,
    fit: int = MAX_FIT,
) -> PairedPhoto:
    """Find the tiles of a calibration photo, pair them with ``layout``, keep each one's crops.

    Each sample holds the crops exactly as the reader reads them (every margin) and the reader's
    embedding of them, labelled with the layout's tile (:func:`samples_from`, which puts back or
    leaves out up to ``fit`` boxes to fit the layout). Raises :class:`CalibrationError` when the
    photo does not match the layout (naming the rows of the boxes the gate kept),
    :class:`vision.model_files.ModelFileError` for missing models.
    """
    from vision.pipeline import see_tiles

    report = progress or (lambda share, stage: None)
    report(0.05, "detect")
    seen = see_tiles(image, detector_weights=detector_weights, reader_weights=reader_weights)
    report(0.8, "pair")
    paired = samples_from(seen, layout, fit)
    report(1.0, "done")
    return replace(paired, blur=photo_blur(image, paired.boxes))
