"""Every test set, end to end, reported separately (issue 15)::

    python -m training.evaluate [--detector models/detector.pt] [--reader models/reader.onnx | CANDIDATE.pt]
                                [--testsets data/testsets] [--sets NAME ...] [--json OUT.json]

The sets: the real validation split, and the synthetic test sets of :mod:`training.testsets`
(held-out editions, close-up racks, distractor scenes; the calibration sets only when asked for). For
each: tile precision / recall / F1 (multisets per photo, after decoding), photos read exactly, box
IoU of matched tiles (median, 5th percentile) per scale band, non-tiles read as tiles (and how many
of them are distractors), the reliability of the uncertainty flag (share of wrong tiles flagged,
share of right tiles flagged, accuracy per confidence bin), the dropped boxes the app offers to add
(:mod:`vision.left_out`: how many lie on a readable tile no kept box found, with the reader's tile
for it right, and how many on none), and each photo's misreads.

A photo is read as a user would: tables and grids as ``table`` (melds checked by the rules), racks
and close-ups as ``rack``. Boxes more likely not tiles than tiles are dropped as the pipeline
drops them (:func:`vision.pipeline.kept_as_tiles`: detector confidence x the reader's P(tile)).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from solver.rules import STANDARD
from solver.tiles import JOKER_INDEX, Tile
from training.error_breakdown import SIZE_BANDS as TILE_SIZE_BANDS
from training.error_breakdown import ErrorKind, error_counts, errors_by_size, format_breakdown, size_band, tile_errors
from training.metrics import PRF, Reliability, iou_spread, match, multiset_scores, prf
from training.real_data import DEFAULT_REAL, load_real_split
from training.testsets import ALL_SETS, DEFAULT_OUT, NON_TILE_RULE, ErrorWeights
from training.tile_reading import load_any_reader, read_boxes, reader_source
from vision.decoding import DEFAULT_SETTINGS, DecodingSettings
from vision.detections import Detections, box_iou, box_overlap
from vision.ink_colour import BODY_METHOD, INK_MARGIN, INK_METHOD, body_colours, ink_directions, weigh_colours
from vision.left_out import left_out_tiles
from vision.pipeline import MIN_TILE_PROB, build_reading, decode_with_inks, kept_as_tiles
from vision.reading import ReadingKind
from vision.sharpness import BLUR_METHOD, blurred_tiles, tile_blurs
from vision.tile_likeness import LIKENESS, TileLikeness

#: Scale bands: a tile's longer side as a share of the photo's longer side.
SCALE_BANDS = ((0.0, 1 / 20, "< 1/20"), (1 / 20, 1 / 8, "1/20-1/8"), (1 / 8, 1.01, ">= 1/8"))
#: A detection matches a labelled tile at this IoU for the IoU and reliability figures.
MATCH_IOU = 0.3
#: A synthetic tile counts as readable, so as one to read, when at least this share of its number
#: area is in view (``number_visible`` of :class:`datasets.synth.scenes.PlacedTile`). One whose
#: number is hidden behind another tile or the frame is there but unreadable, as in a real photo:
#: reading it is neither required nor a phantom (:func:`without_hidden`).
MIN_NUMBER_VISIBLE = 0.7
REAL_VALIDATION = "real-validation"
#: The real photos the models were trained on: no measure of reading, but of what reading says of
#: real photos that no model judged (how often a photo is called blurred, ``training.blur_study``).
REAL_TRAINING = "real-training"

__all__ = ["TestPhoto", "load_testset", "real_validation", "PhotoReading", "read_photo", "evaluate_set", "main"]


@dataclass(frozen=True)
class TestPhoto:
    name: str
    image_path: Path
    boxes: np.ndarray  # (n, 4) labelled tiles, pixels
    labels: tuple[int, ...]  # tile indices
    kind: str  # how a user would read it: "table" or "rack"
    distractors: np.ndarray  # (m, 4) non-tiles in view
    #: (k, 4) tiles in view whose number is hidden (:data:`MIN_NUMBER_VISIBLE`), or too little in
    #: view to be labelled at all: tiles, but not to be read.
    hidden: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))


def load_testset(folder: Path) -> list[TestPhoto]:
    """The photos of a set written by :mod:`training.testsets`, from their ``meta/*.json``. A tile
    whose number is hidden, or one too little in view to be labelled, is not a tile to read but a
    box in ``hidden``."""
    photos = []
    for meta_path in sorted((Path(folder) / "meta").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        readable = [t for t in meta["tiles"] if t.get("number_visible", 1.0) >= MIN_NUMBER_VISIBLE]
        hidden = [t["box"] for t in meta["tiles"] if t.get("number_visible", 1.0) < MIN_NUMBER_VISIBLE]
        hidden += meta.get("hidden", [])  # in view, too little to label
        photos.append(TestPhoto(
            meta_path.stem, Path(folder) / meta["image"], np.array([t["box"] for t in readable], np.float32).reshape(-1, 4),
            tuple(int(t["index"]) for t in readable), "rack" if meta["kind"] in ("rack", "closeup") else "table",
            np.array(meta.get("distractors", []), np.float32).reshape(-1, 4), np.array(hidden, np.float32).reshape(-1, 4),
        ))
    if not photos:
        raise FileNotFoundError(f"no test photos in {folder}: write them with python -m training.testsets")
    return photos


def real_validation(root: Path = DEFAULT_REAL, split: str = "valid") -> list[TestPhoto]:
    """The real validation split (or another ``split``), read as tables (as :mod:`training.evaluate` always has)."""
    return [
        TestPhoto(p.image_path.name, p.image_path, np.array([t.box for t in p.tiles], np.float32).reshape(-1, 4),
                  tuple(t.tile.index for t in p.tiles), "table", np.zeros((0, 4), np.float32))
        for p in load_real_split(root, split)
    ]


@dataclass(frozen=True)
class PhotoReading:
    """One photo read end to end: the boxes kept, their decoded labels, flags and confidences."""

    boxes: np.ndarray
    labels: tuple[int, ...]
    uncertain: tuple[bool, ...]
    confidence: tuple[float, ...]
    not_tile: np.ndarray  # each kept box's non-tile probability (0 for a 53-class reader)
    dropped_boxes: np.ndarray  # (m, 4) boxes dropped as most probably not tiles
    #: What a flag threshold sweep needs (:mod:`training.calibrate`), as the reading's flags are
    #: decoding's flag at its threshold or the inks' doubt (:attr:`vision.pipeline.InkedDecoding.ink_doubt`):
    #: per tile the lower of its confidence with and without the inks, and whether the inks changed
    #: it (flagged at every threshold). None: the same as ``confidence`` / none changed.
    flag_confidence: tuple[float, ...] | None = None
    changed_by_inks: np.ndarray | None = None
    #: The dropped boxes offered to add (:func:`vision.left_out.offered`) and the reader's tile for each.
    offered_boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    offered_labels: tuple[int, ...] = ()
    #: Per tile its blur (:func:`vision.sharpness.tile_blurs`): one past ``blurred_tile`` is flagged at
    #: every threshold. None: not known.
    blurs: np.ndarray | None = None

    @property
    def dropped(self) -> int:
        return len(self.dropped_boxes)


@dataclass(frozen=True, eq=False)
class SeenPhoto:
    """What the models say of a photo before decoding: every detection, its tile probabilities
    (n x 53) and non-tile probability. Cached by :func:`see_photo`, so that decoding and flag
    rules can be compared without running the models again."""

    found: Detections
    probs: np.ndarray
    not_tile: np.ndarray
    shape: tuple[int, int]  # the photo's height and width
    #: (n, 3) each detection's ink direction (:func:`vision.ink_colour.ink_directions`); None: not
    #: known, and colours are read without the photo's inks.
    inks: np.ndarray | None = None
    #: (n, 3) each detection's body in CIELAB (:func:`vision.ink_colour.body_colours`); None: not
    #: known, and no box is held against the photo's other tiles (:mod:`vision.tile_likeness`).
    bodies: np.ndarray | None = None
    #: (n,) each detection's blur, a share of its length (:func:`vision.sharpness.tile_blurs`; NaN:
    #: too small to measure); None: not known, and no tile is flagged for its blur.
    blurs: np.ndarray | None = None


def _stamp(path: str | Path) -> str | None:
    """A file's size and modification time, or None where there is no such file."""
    path = Path(path)
    if not path.is_file():
        return None
    status = path.stat()
    return f"{status.st_size}:{status.st_mtime_ns}"


def _file_key(path: str | Path) -> str:
    """A weights file as the cache knows it: its path, size and modification time (a retrained
    file under the same name is another model)."""
    stamp = _stamp(path)
    return str(path) if stamp is None else f"{path}:{stamp}"


def _photo_key(image_path: Path) -> str:
    """A photo as the cache knows it beside its name: its size and modification time (a test set
    written again is read again)."""
    return _stamp(image_path) or "-"


def _cache_name(image_path: Path) -> str:
    return f"{image_path.parent.parent.name}__{image_path.stem}.npz"


def _reader_folder(reader_key: str) -> str:
    """One folder of reader output per reader, so that several readers' outputs stay cached side by side."""
    return "readings-" + hashlib.sha256(reader_key.encode()).hexdigest()[:16]


def see_photo(image_path: Path, detector: Path | None, reader, cache: Path | None = None) -> SeenPhoto:
    """Detect and read one photo, or load what an earlier run saved in ``cache``.

    The detections are kept by the detector and the way it is run (``cache/detections``;
    :data:`vision.detector.METHOD`) and the reader's output by
    detector, reader and the way crops are cut (``cache/readings-<reader>``;
    :data:`vision.crops.CROP_METHOD`): a new reader re-reads the crops of the cached boxes and pays
    nothing for the detector, and a changed detector, reader or crop never reuses the output of
    the old one. Both are kept for the photo file as it was (:func:`_photo_key`).
    """
    from vision.crops import CROP_METHOD
    from vision.detector import METHOD
    from vision.images import load_image
    from vision.model_files import check_detector_path, model_path

    check = check_detector_path()
    detector_key = f"{_file_key(detector or model_path('detector'))}|{METHOD}|{_file_key(check) if check else 'no check'}"
    reader_key = f"{detector_key}|{_file_key(reader_source(reader))}|{CROP_METHOD}"
    if cache is None:
        return see_image(load_image(image_path), detector, reader)
    found_file = cache / "detections" / _cache_name(image_path)
    read_file = cache / _reader_folder(reader_key) / _cache_name(image_path)
    photo_key = _photo_key(image_path)
    detector_key, reader_key = f"{detector_key}|{photo_key}", f"{reader_key}|{photo_key}"
    ink_file = cache / "inks" / _cache_name(image_path)
    ink_key = f"{detector_key}|{CROP_METHOD}|{INK_METHOD}"
    body_file = cache / "bodies" / _cache_name(image_path)
    body_key = f"{detector_key}|{CROP_METHOD}|{BODY_METHOD}"
    blur_file = cache / "blurs" / _cache_name(image_path)
    blur_key = f"{detector_key}|{BLUR_METHOD}"
    photo = functools.cache(lambda: load_image(image_path))  # opened once, and only for what is not cached
    saved = _cached(found_file, detector_key, lambda: _detected(photo(), detector))
    found = (Detections(saved["boxes"], saved["confidences"]), tuple(int(v) for v in saved["shape"]))
    inks = _cached(ink_file, ink_key, lambda: {"directions": inks_of(photo(), found[0])})
    bodies = _cached(body_file, body_key, lambda: {"bodies": bodies_of(photo(), found[0])})
    blurs = _cached(blur_file, blur_key, lambda: {"blurs": tile_blurs(photo(), found[0].boxes)})
    read = _cached(read_file, reader_key, lambda: dict(zip(("probs", "not_tile"), read_found(photo(), found[0], reader))))
    return SeenPhoto(found[0], read["probs"], read["not_tile"], found[1], inks["directions"], bodies["bodies"], blurs["blurs"])


def _detected(image: np.ndarray, detector: Path | None) -> dict[str, np.ndarray]:
    """The detections of a photo as the cache keeps them."""
    found = detect_image(image, detector)
    return {"boxes": found.boxes, "confidences": found.confidences, "shape": np.array(image.shape[:2])}


def _cached(path: Path, key: str, compute: Callable[[], dict[str, np.ndarray]]):
    """The arrays saved at ``path`` for ``key``, or else ``compute``'s, saved there for the next run."""
    saved = _load(path, key)
    if saved is None:
        saved = compute()
        _save(path, **saved, key=key)
    return saved


def _save(path: Path, **arrays) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **arrays)


def _load(path: Path, key: str):
    """The arrays saved at ``path`` for ``key``, or None (nothing saved there, or saved for other models)."""
    if not path.exists():
        return None
    saved = np.load(path)
    return saved if str(saved["key"]) == key else None


def detect_image(image: np.ndarray, detector: Path | None) -> Detections:
    """The boxes reading finds in a BGR photo (:func:`vision.detector.find_tiles`)."""
    from vision.detector import find_tiles

    return find_tiles(image, weights=detector)


def read_found(image: np.ndarray, found: Detections, reader) -> tuple[np.ndarray, np.ndarray]:
    """(tile probabilities, non-tile probabilities) of every detected box."""
    return read_boxes(image, found.boxes, reader)


def _ink_crops(image: np.ndarray, found: Detections) -> np.ndarray:
    """Every detected box cut as :func:`vision.read` cuts it for its ink and body."""
    from vision.crops import CROP_SIZE, crop_tiles
    from vision.reader import READ_PADS

    return crop_tiles(image, found.boxes, CROP_SIZE, READ_PADS[INK_MARGIN])


def inks_of(image: np.ndarray, found: Detections) -> np.ndarray:
    """(n, 3) the ink direction of every detected box (:func:`vision.ink_colour.ink_directions`)."""
    return ink_directions(_ink_crops(image, found)) if len(found) else np.zeros((0, 3))


def bodies_of(image: np.ndarray, found: Detections) -> np.ndarray:
    """(n, 3) the body of every detected box in CIELAB (:func:`vision.ink_colour.body_colours`)."""
    return body_colours(_ink_crops(image, found)) if len(found) else np.zeros((0, 3))


def see_image(image: np.ndarray, detector: Path | None, reader) -> SeenPhoto:
    """Detect the tiles of a BGR photo and read every box."""
    found = detect_image(image, detector)
    probs, not_tile = read_found(image, found, reader)
    return SeenPhoto(
        found, probs, not_tile, image.shape[:2], inks_of(image, found), bodies_of(image, found), tile_blurs(image, found.boxes),
    )


def decide_photo(
    seen: SeenPhoto, kind: str, settings: DecodingSettings = DEFAULT_SETTINGS, min_tile_prob: float = MIN_TILE_PROB,
    likeness: TileLikeness = LIKENESS,
) -> PhotoReading:
    """Drop the boxes more likely not tiles, or unlike the photo's sure tiles where their bodies are
    known (:mod:`vision.tile_likeness`), group the rest as the layout does, decode as :func:`vision.read`
    decodes without a profile: each colour weighed by the photo's own inks where its ink directions
    are known (:func:`vision.ink_colour.weigh_colours`), and what the inks alone change or make sure
    held in doubt (:attr:`vision.pipeline.InkedDecoding.ink_doubt`), as is a tile smeared past
    ``settings.blurred_tile`` where the blurs are known (:func:`vision.sharpness.blurred_tiles`)."""
    from vision.meld_grouping import group_into_melds

    keep = kept_as_tiles(seen.found, 1.0 - seen.not_tile, min_tile_prob, seen.bodies, likeness)
    kept: Detections = seen.found[np.flatnonzero(keep)]
    probs = seen.probs[keep]
    tile_prob = 1.0 - seen.not_tile[keep]
    groups = group_into_melds(kept, kind)
    inked = probs if seen.inks is None or not len(probs) else weigh_colours(probs, seen.inks[keep])
    decided = decode_with_inks(probs, inked, groups, ReadingKind(kind), STANDARD, settings, tile_prob)
    decoded, plain = decided.decoding, decided.plain
    dropped = np.flatnonzero(~keep)
    height, width = seen.shape
    reading = build_reading(kept, inked, groups, ReadingKind(kind), STANDARD, (width, height), settings, tile_prob,
                            decoding=decoded)
    offers = left_out_tiles(reading, seen.found.boxes[dropped], seen.probs[dropped], 1.0 - seen.not_tile[dropped])
    blurs = None if seen.blurs is None else seen.blurs[keep]
    blurred = np.zeros(len(kept), bool) if blurs is None else blurred_tiles(blurs, settings.blurred_tile)
    return PhotoReading(
        kept.boxes, decoded.labels, tuple(bool(f) for f in decided.flagged | blurred), decoded.confidence,
        seen.not_tile[keep], seen.found.boxes[~keep],
        tuple(min(a, b) for a, b in zip(decoded.confidence, plain.confidence)),
        np.array(decoded.labels) != np.array(plain.labels),
        np.array([o.box for o in offers], np.float32).reshape(-1, 4), tuple(o.tile.index for o in offers),
        blurs,
    )


def read_photo(
    image: np.ndarray, kind: str, detector: Path | None, reader, settings: DecodingSettings = DEFAULT_SETTINGS,
    min_tile_prob: float = MIN_TILE_PROB, likeness: TileLikeness = LIKENESS,
) -> PhotoReading:
    return decide_photo(see_image(image, detector, reader), kind, settings, min_tile_prob, likeness)


def scale_band(box: np.ndarray, longer_side: int) -> str:
    """The name of the scale band of a tile's box in a photo whose longer side is ``longer_side``."""
    share = float(max(box[2] - box[0], box[3] - box[1])) / longer_side
    return next(name for low, high, name in SCALE_BANDS if low <= share < high)


def on_hidden(boxes: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Mask of the ``boxes`` lying on one of the ``hidden`` tiles' boxes (IoU >= :data:`MATCH_IOU`)."""
    if not len(hidden) or not len(boxes):
        return np.zeros(len(boxes), bool)
    return box_iou(boxes, hidden).max(axis=1) >= MATCH_IOU


def off_hidden(photo: TestPhoto, boxes: np.ndarray) -> np.ndarray:
    """Mask of the ``boxes`` that count: all but those on a hidden tile (:func:`on_hidden`) that
    match no readable tile."""
    keep = ~on_hidden(boxes, photo.hidden)
    if not keep.all():
        keep[list(match(Detections(boxes, np.ones(len(boxes), np.float32)), photo.boxes, MATCH_IOU))] = True
    return keep


def without_hidden(photo: TestPhoto, reading: PhotoReading) -> tuple[PhotoReading, int]:
    """``reading`` without the tiles read on hidden tiles (:func:`off_hidden`), and how many there were."""
    keep = off_hidden(photo, reading.boxes)
    if keep.all():
        return reading, 0
    pick = lambda values: tuple(v for v, k in zip(values, keep) if k)  # noqa: E731
    kept = PhotoReading(
        reading.boxes[keep], pick(reading.labels), pick(reading.uncertain), pick(reading.confidence),
        reading.not_tile[keep], reading.dropped_boxes,
        None if reading.flag_confidence is None else pick(reading.flag_confidence),
        None if reading.changed_by_inks is None else reading.changed_by_inks[keep],
        reading.offered_boxes, reading.offered_labels,
        None if reading.blurs is None else reading.blurs[keep],
    )
    return kept, int((~keep).sum())


def score_photo(photo: TestPhoto, reading: PhotoReading, shape: tuple[int, int], totals: dict) -> dict:
    """Add one photo's figures to ``totals``; return its misreads. Tiles read on a hidden tile
    count neither way (:func:`without_hidden`)."""
    reading, hidden_read = without_hidden(photo, reading)
    totals["hidden_read"] += hidden_read
    totals["hidden"] += len(photo.hidden)
    tp, n_read, n_true = multiset_scores(reading.labels, photo.labels)
    totals["hits"] += tp
    totals["read"] += n_read
    totals["truth"] += n_true
    totals["exact"] += int(Counter(reading.labels) == Counter(photo.labels))
    totals["dropped"] += reading.dropped
    found = Detections(reading.boxes, np.ones(len(reading.boxes), np.float32))
    pairs = match(found, photo.boxes, MATCH_IOU)
    longer = max(shape)
    if len(pairs):
        ious = box_iou(found.boxes[list(pairs)], photo.boxes[list(pairs.values())]).diagonal()
        for (d, t), iou in zip(pairs.items(), ious):
            totals["ious"].setdefault(scale_band(photo.boxes[t], longer), []).append(float(iou))
    for i in range(len(reading.labels)):
        right = i in pairs and reading.labels[i] == photo.labels[pairs[i]]
        totals["reliability"].add(right, reading.uncertain[i], reading.confidence[i])
        if reading.labels[i] == JOKER_INDEX:
            totals["jokers"].add(right, reading.uncertain[i], reading.confidence[i])
        totals["outcomes"].append((bool(right), round(float(reading.confidence[i]), 5), round(float(reading.not_tile[i]), 5)))
    phantoms = [i for i in range(len(reading.labels)) if i not in pairs]
    totals["non_tiles_read"] += len(phantoms)
    totals["non_tiles_sure"] += sum(not reading.uncertain[i] for i in phantoms)
    if phantoms and len(photo.distractors):
        on_distractor = box_overlap(found.boxes[phantoms], photo.distractors).max(axis=1) >= 0.5
        totals["distractors_read"] += int(on_distractor.sum())
    left_out = match(Detections(reading.offered_boxes, np.ones(len(reading.offered_boxes), np.float32)),
                     np.delete(photo.boxes, list(pairs.values()), axis=0), MATCH_IOU)
    missed_labels = np.delete(np.array(photo.labels, np.int64), list(pairs.values()))
    totals["offered"] += len(reading.offered_boxes)
    totals["offered_on_tiles"] += len(left_out)
    totals["offered_right"] += sum(int(reading.offered_labels[o] == missed_labels[t]) for o, t in left_out.items())
    elsewhere = np.setdiff1d(np.arange(len(reading.offered_boxes)), list(left_out))
    totals["offered_on_hidden"] += int(on_hidden(reading.offered_boxes[elsewhere], photo.hidden).sum())
    errors = tile_errors(photo.boxes, photo.labels, reading.boxes, reading.labels, reading.dropped_boxes, MATCH_IOU)
    totals["errors"].update(error_counts(errors))
    for band, kinds in errors_by_size(photo.boxes, errors).items():
        totals["by_size"][band].update(kinds)
    totals["size_tiles"].update(size_band(box) for box in photo.boxes)
    missing = Counter(photo.labels) - Counter(reading.labels)
    extra = Counter(reading.labels) - Counter(photo.labels)
    return {
        "photo": photo.name,
        "missing": sorted(Tile.from_index(k).name for k in missing.elements()),
        "extra": sorted(Tile.from_index(k).name for k in extra.elements()),
        "phantoms": [Tile.from_index(reading.labels[i]).name + ("?" if reading.uncertain[i] else "") for i in phantoms],
    }


def new_totals() -> dict:
    """The running sums :func:`score_photo` adds to."""
    return {"hits": 0, "read": 0, "truth": 0, "exact": 0, "dropped": 0, "non_tiles_read": 0, "non_tiles_sure": 0,
            "distractors_read": 0,
            "hidden": 0, "hidden_read": 0, "offered": 0, "offered_on_tiles": 0, "offered_right": 0,
            "offered_on_hidden": 0,
            "ious": {}, "reliability": Reliability(), "jokers": Reliability(), "outcomes": [], "errors": Counter(),
            "by_size": {name: Counter() for _, _, name in TILE_SIZE_BANDS}, "size_tiles": Counter()}


def with_photo_colour(seen: SeenPhoto, image_path: Path, weight: float) -> SeenPhoto:
    """``seen`` with colour read relative to the photo (:mod:`training.photo_colour`; 0: as it is)."""
    if weight <= 0:
        return seen
    from training.photo_colour import DEFAULT_INK, recolour
    from vision.images import load_image

    probs = recolour(seen.probs, load_image(image_path), seen.found.boxes, replace(DEFAULT_INK, weight=weight))
    return replace(seen, probs=probs)


def evaluate_set(
    photos: Sequence[TestPhoto], detector: Path | None, reader, settings: DecodingSettings = DEFAULT_SETTINGS,
    min_tile_prob: float = MIN_TILE_PROB, cache: Path | None = None, ink_weight: float = 0.0,
    likeness: TileLikeness = LIKENESS,
) -> dict:
    totals = new_totals()
    errors = []
    distractors = 0
    for photo in photos:
        seen = with_photo_colour(see_photo(photo.image_path, detector, reader, cache), photo.image_path, ink_weight)
        reading = decide_photo(seen, photo.kind, settings, min_tile_prob, likeness)
        misreads = score_photo(photo, reading, seen.shape, totals)
        distractors += len(photo.distractors)
        if misreads["missing"] or misreads["extra"]:
            errors.append(misreads)
    return {
        "photos": len(photos),
        "tiles": totals["truth"],
        "tiles_read": totals["read"],
        "tiles_right": totals["hits"],
        **prf(totals["hits"], totals["read"], totals["truth"]).as_dict(),
        "photos_exact": totals["exact"] / max(len(photos), 1),
        "box_iou": {name: iou_spread(totals["ious"].get(name, [])) for _, _, name in SCALE_BANDS},
        "non_tiles_read_as_tiles": totals["non_tiles_read"],
        "non_tiles_shown_as_sure": totals["non_tiles_sure"],
        "distractors_in_view": distractors,
        "distractors_read_as_tiles": totals["distractors_read"],
        "boxes_dropped_as_not_tiles": totals["dropped"],
        #: Dropped boxes offered to add (vision.left_out), those on a labelled tile no kept box found,
        #: of those the ones whose offered tile is right, and those on a tile whose number is hidden.
        "left_out_offered": totals["offered"],
        "left_out_on_tiles": totals["offered_on_tiles"],
        "left_out_right": totals["offered_right"],
        "left_out_on_hidden": totals["offered_on_hidden"],
        #: Tiles in view whose number is hidden (not counted), and how many of them were read anyway.
        "hidden_tiles": totals["hidden"],
        "hidden_tiles_read": totals["hidden_read"],
        "reliability": totals["reliability"].as_dict(),
        #: The same for the tiles read as jokers alone (they have a flag threshold of their own).
        "jokers_read": totals["jokers"].as_dict(),
        "errors": errors,
        "error_kinds": {kind.value: totals["errors"][kind] for kind in ErrorKind},
        #: Per size band of the labelled tiles (longer side, pixels): how many, and the errors on them by kind.
        "errors_by_tile_size": {
            name: {"tiles": totals["size_tiles"][name], **{k.value: totals["by_size"][name][k] for k in ErrorKind if totals["by_size"][name][k]}}
            for _, _, name in TILE_SIZE_BANDS
        },
        #: (right?, confidence, non-tile probability) per tile read: flag rates of any rule follow without re-reading.
        "outcomes": totals["outcomes"],
    }


def _share(value: float | None, missing: str) -> str:
    return missing if value is None else f"{value:.3f}"


def summary(name: str, r: dict) -> str:
    rel, jokers = r["reliability"], r["jokers_read"]
    share = lambda v: _share(v, "-")  # noqa: E731
    lines = [
        f"{name}: {r['photos']} photos, {r['tiles']} tiles: P {r['precision']:.4f} R {r['recall']:.4f} F1 {r['f1']:.4f}, "
        f"photos exact {r['photos_exact']:.3f}",
        "  box IoU of matched tiles (median / 5th pct, n): " + "; ".join(
            f"{band} {share(v['median'])} / {share(v['p5'])} ({v['n']})" for band, v in r["box_iou"].items()),
        f"  non-tiles read as tiles {r['non_tiles_read_as_tiles']}, shown as sure {r.get('non_tiles_shown_as_sure', '-')} "
        f"(distractors {r['distractors_read_as_tiles']} of "
        f"{r['distractors_in_view']} in view); boxes dropped as not tiles {r['boxes_dropped_as_not_tiles']}; "
        f"tiles with their number hidden (not counted) {r['hidden_tiles']}, read anyway {r['hidden_tiles_read']}",
        f"  left out, offered to add: {r.get('left_out_offered', 0)}, on tiles not found otherwise "
        f"{r.get('left_out_on_tiles', 0)} (offered as the right tile {r.get('left_out_right', 0)}), on tiles whose number "
        f"is hidden {r.get('left_out_on_hidden', 0)}",
        f"  flagged uncertain: wrong tiles {share(rel['wrong_flagged_share'])} of {rel['wrong']}, right tiles "
        f"{share(rel['right_flagged_share'])} of {rel['right']}",
        "  reliability: " + ", ".join(f"{b['confidence']} {share(b['accuracy'])} ({b['tiles']})" for b in rel["table"]),
        f"  read as jokers: {jokers['right'] + jokers['wrong']}, wrong {jokers['wrong']} (flagged "
        f"{share(jokers['wrong_flagged_share'])}), right flagged {share(jokers['right_flagged_share'])}",
        "  " + format_breakdown(Counter({kind: r["error_kinds"][kind.value] for kind in ErrorKind})),
        "  errors on labelled tiles by size: " + "; ".join(
            f"{band} ({v['tiles']} tiles): " + (", ".join(f"{k} {n}" for k, n in v.items() if k != "tiles") or "none")
            for band, v in r["errors_by_tile_size"].items()),
    ]
    lines += [
        f"    {e['photo'][:40]}: missing {' '.join(e['missing']) or '-'}; extra {' '.join(e['extra']) or '-'}"
        + (f"; non-tiles {' '.join(e['phantoms'])}" if e["phantoms"] else "")
        for e in r["errors"]
    ]
    return "\n".join(lines)


def _wrong_jokers(r: dict) -> str:
    """Tiles wrongly read as jokers, and (in brackets) how many of them were flagged."""
    jokers = r.get("jokers_read")
    if jokers is None:  # a report written before jokers were counted apart
        return "–"
    return f"{jokers['wrong']} ({jokers['wrong_flagged']})"


def _non_tiles(r: dict) -> str:
    """Non-tiles read as tiles, and (in brackets) how many of them were shown as sure: the phantom
    a player is not asked to check, what a rule of choice should weigh most."""
    sure = r.get("non_tiles_shown_as_sure")
    return str(r["non_tiles_read_as_tiles"]) if sure is None else f"{r['non_tiles_read_as_tiles']} ({sure})"


def overview(report: dict[str, dict]) -> str:
    """One Markdown row per set, the figures a model card quotes, after the per-set summaries."""
    share = lambda v: _share(v, "–")  # noqa: E731
    lines = [
        "| set | photos | tiles | P / R / F1 | photos exact | wrong / right flagged | wrong jokers (flagged) | non-tiles read (sure) | hidden (read anyway) |",
        "|---|---:|---:|---|---:|---|---:|---:|---|",
    ]
    for name, r in report.items():
        rel = r["reliability"]
        lines.append(
            f"| {name} | {r['photos']} | {r['tiles']} | {r['precision']:.3f} / {r['recall']:.3f} / {r['f1']:.3f} | "
            f"{100 * r['photos_exact']:.1f} % | {share(rel['wrong_flagged_share'])} / {share(rel['right_flagged_share'])} | "
            f"{_wrong_jokers(r)} | {_non_tiles(r)} | {r['hidden_tiles']} ({r['hidden_tiles_read']}) |"
        )
    if len(report) > 1:
        both = pooled(report.values())
        lines.append(f"| pooled | {sum(r['photos'] for r in report.values())} | {sum(r['tiles'] for r in report.values())} | "
                     f"{both.precision:.3f} / {both.recall:.3f} / {both.f1:.3f} | | | | | |")
    return "\n".join(lines)


def weighed_errors(r: dict, rule: ErrorWeights = NON_TILE_RULE) -> float:
    """One set's errors weighed as a setting against non-tiles is chosen (:data:`training.testsets.NON_TILE_RULE`):
    tiles not read right, non-tiles read as tiles and those of them shown as sure, right tiles flagged."""
    rel = r["reliability"]
    right_flagged = round(rel["right"] * (rel["right_flagged_share"] or 0.0))
    return (rule.tile_not_read_right * (r["tiles"] - r["tiles_right"]) + rule.non_tile_read * r["non_tiles_read_as_tiles"]
            + rule.non_tile_sure * r["non_tiles_shown_as_sure"] + rule.right_tile_flagged * right_flagged)


def weighed_overview(report: dict[str, dict]) -> str:
    """The sets' weighed errors (:func:`weighed_errors`) and their sum: the line a setting against
    non-tiles is chosen by."""
    each = {name: weighed_errors(r) for name, r in report.items()}
    return ("weighed errors (training.testsets.NON_TILE_RULE): " + ", ".join(f"{n} {v:.1f}" for n, v in each.items())
            + f"; all {sum(each.values()):.1f}")


def pooled(reports) -> PRF:
    """Tile precision, recall and F1 over several sets' tiles together (how a checkpoint is chosen on the
    selection sets: each tile counts once, so a big set weighs more than a small one)."""
    return prf(sum(r["tiles_right"] for r in reports), sum(r["tiles_read"] for r in reports),
               sum(r["tiles"] for r in reports))


def add_reading_arguments(parser: argparse.ArgumentParser, default_sets: Sequence[str]) -> None:
    """The options of every tool that reads the test sets end to end: the models, where the sets
    are, which of them (``default_sets`` unless named), and the cache (:func:`see_photo`)."""
    parser.add_argument("--detector", type=Path, help="detector weights (default: models/detector.pt)")
    parser.add_argument("--reader", type=Path, help="reader: an ONNX file (default: the shipped models/reader.onnx, read as photos are) or a .pt candidate")
    parser.add_argument("--real", type=Path, default=DEFAULT_REAL)
    parser.add_argument("--testsets", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--sets", nargs="*", choices=[REAL_VALIDATION, REAL_TRAINING] + [t.name for t in ALL_SETS], default=list(default_sets))
    parser.add_argument("--cache", type=Path, help="keep each photo's detections (by detector) and each reader's output "
                        "(by detector and reader) here and reuse them: a new reader re-reads the cached boxes only, "
                        "and re-decoding costs no inference")


def load_named_set(name: str, real: Path, testsets: Path) -> list[TestPhoto]:
    """The photos of the set ``name``: the real validation or training split under ``real``, or a
    test set under ``testsets``; raises :class:`FileNotFoundError` or :class:`ValueError` when it is not there."""
    if name in (REAL_VALIDATION, REAL_TRAINING):
        return real_validation(real, "valid" if name == REAL_VALIDATION else "train")
    return load_testset(testsets / name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__.split("\n")[0])
    add_reading_arguments(parser, [REAL_VALIDATION] + [t.name for t in ALL_SETS if t.is_test])
    parser.add_argument("--uncertain-below", type=float, help="decoding's uncertainty threshold (default: the shipped rule)")
    parser.add_argument("--joker-uncertain-below", type=float, help="the jokers' own threshold (default: the shipped rule)")
    parser.add_argument("--min-tile-prob", type=float, default=MIN_TILE_PROB,
                        help="drop a box whose detector confidence x the reader's tile probability is under this (0: never)")
    parser.add_argument("--max-body-step", type=float, default=LIKENESS.max_body_step,
                        help="drop a box whose body stands further than this from the photo's sure tiles' in CIELAB a*b* "
                             "(vision.tile_likeness; inf: never)")
    parser.add_argument("--min-area-share", type=float, default=LIKENESS.min_area_share,
                        help="drop a box under this share of the photo's sure tiles' median area (vision.tile_likeness; 0: never)")
    parser.add_argument("--blurred-tile", type=float,
                        help="flag a tile whose own blur reaches this share of its length (default: the shipped rule; inf: never)")
    parser.add_argument("--ink-weight", type=float, default=0.0,
                        help="read colour relative to the photo with this weight (training.photo_colour; 0: off, as shipped)")
    parser.add_argument("--json", type=Path, help="also write the full report here")
    args = parser.parse_args(argv)
    try:
        likeness = TileLikeness(args.max_body_step, args.min_area_share)
    except ValueError as exc:
        parser.error(str(exc))
    reader = load_any_reader(args.reader)
    settings = DEFAULT_SETTINGS
    if args.uncertain_below is not None:
        settings = replace(settings, uncertain_below=args.uncertain_below)
    if args.joker_uncertain_below is not None:
        settings = replace(settings, joker_uncertain_below=args.joker_uncertain_below)
    if args.blurred_tile is not None:
        if not args.blurred_tile > 0:
            parser.error(f"--blurred-tile must be above 0 (got {args.blurred_tile})")
        settings = replace(settings, blurred_tile=args.blurred_tile)
    report = {}
    for name in args.sets:
        try:
            photos = load_named_set(name, args.real, args.testsets)
        except (FileNotFoundError, ValueError) as exc:
            print(f"{name}: skipped ({exc})")
            continue
        report[name] = evaluate_set(photos, args.detector, reader, settings, args.min_tile_prob, args.cache, args.ink_weight,
                                    likeness)
        print(summary(name, report[name]), flush=True)
    if report:
        print("\n" + overview(report) + "\n\n" + weighed_overview(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
