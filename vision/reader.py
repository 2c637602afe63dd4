"""The tile reader: crops in, 53-way probabilities out, in the solver's tile-index order.

The classifier is a YOLOv8n-cls model trained with ultralytics and exported to ONNX
(``models/reader.onnx``, :mod:`training.export`); it runs on ONNX Runtime. Its class names
(``red-7``, ``joker``, or the dataset's ``red_7``) are mapped to tile indices once, with
:func:`solver.tiles.parse_tile`. A model may have one more class, ``not-tile`` (trained on what
the detector mistakes for tiles); its probability is reported apart (:attr:`CropReading.tile_prob`)
and the 53 tile probabilities are renormalised among themselves.

Each crop is read in its four quarter turns and the probabilities averaged (test-time
augmentation): the model was trained on every orientation, and averaging cancels the
orientation it happens to read worst. The export also gives the head's pooled features, the
tile's embedding, averaged the same way (what calibration to a player's own set works on).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.tiles import NUM_KINDS, NotationError, parse_tile
from vision.crops import PAD_FRACTION, Box, box_in_crop, crop_tiles, hide_beyond_box
from vision.model_files import ModelFile, open_model

#: The optional extra class of a reader: what looked like a tile to the detector but is not.
NOT_TILE = "not-tile"
#: Margins (share of a box's longer side) each tile is cut with and read at (see read_tiles).
READ_PADS = (0.0, PAD_FRACTION / 2, PAD_FRACTION, PAD_FRACTION * 1.5)
#: The margin every tile is read at first (see read_views): the one the reader was trained with.
FIRST_MARGIN = READ_PADS.index(PAD_FRACTION)
#: A first reading at least this sure of its label and of being a tile is kept as it is (read_views);
#: chosen on the seeded calibration photos and the real validation split, never a test set.
SURE_LABEL = 0.98
SURE_TILE = 0.9
_BATCH = 256


class ReaderModelError(ValueError):
    """The weights are not a 53-class tile reader."""


@dataclass(frozen=True, eq=False)
class TileReader:
    """An open classifier, its input size, and where each of its classes goes in tile order."""

    model: ModelFile
    imgsz: int
    #: ``to_tile[c]`` is the tile index of the model's class ``c``; -1 for :data:`NOT_TILE`.
    to_tile: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class CropReading:
    """What the reader says of n crops (each averaged over its views)."""

    #: (n, 53) tile probabilities in tile-index order; each row sums to 1.
    probs: np.ndarray
    #: (n,) probability that the crop shows a tile at all (1.0 for a reader without NOT_TILE).
    tile_prob: np.ndarray
    #: (n, d) the head's pooled features.
    embeddings: np.ndarray

    @classmethod
    def empty(cls) -> "CropReading":
        """The reading of no crops."""
        return cls(np.zeros((0, NUM_KINDS)), np.zeros(0), np.zeros((0, 0)))


def reader_fingerprint(reader: TileReader) -> str:
    """Which reader this is (the first 16 hex digits of its file's SHA-256): embeddings of one
    reader mean nothing to another, so a profile records the reader that made its embeddings."""
    path = Path(reader.model.path)
    status = path.stat()
    return _digest(path, status.st_size, status.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def class_order(names: dict[int, str] | Sequence[str]) -> tuple[int, ...]:
    """Tile index for each of the model's classes (-1 for ``not-tile``); every tile exactly once."""
    items = names.items() if isinstance(names, dict) else enumerate(names)
    try:
        order = [-1 if name == NOT_TILE else parse_tile(name).index for _, name in sorted(items)]
    except NotationError as error:
        raise ReaderModelError(f"the model has a class that is not a tile: {error.token!r}") from error
    tiles = [i for i in order if i >= 0]
    if sorted(tiles) != list(range(NUM_KINDS)) or len(order) - len(tiles) > 1:
        raise ReaderModelError(f"the model's classes are not the {NUM_KINDS} tiles (and at most {NOT_TILE!r}): {list(names)}")
    return tuple(order)


def load_reader(weights: str | Path | None = None) -> TileReader:
    """The reader (default: the shipped ``reader.onnx``), opened once per process.

    Raises :class:`vision.model_files.ModelFileError` when the file is missing or damaged and
    :class:`ReaderModelError` when its classes are not the tiles.
    """
    model = open_model("reader", weights)
    return TileReader(model, model.imgsz, class_order(model.names))


def read_crops(crops: np.ndarray, reader: TileReader, rotations: bool = True) -> CropReading:
    """Read BGR crops shaped (n, s, s, 3), s = ``reader.imgsz``, in their four quarter turns."""
    if crops.ndim != 4 or crops.shape[-1] != 3:
        raise ValueError(f"expected (n, size, size, 3) BGR crops, got shape {crops.shape}")
    n = len(crops)
    classes = len(reader.to_tile)
    session, input_name = reader.model.session, reader.model.input_name
    total = np.zeros((n, classes), dtype=np.float64)
    features = None
    turns = (0, 1, 2, 3) if rotations else (0,)
    rgb = crops[..., ::-1]
    for start in range(0, n, _BATCH):
        batch = rgb[start : start + _BATCH]
        for k in turns:
            view = np.rot90(batch, k, axes=(1, 2)) if k else batch
            blob = np.ascontiguousarray(view.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
            probs, embedding = session.run(None, {input_name: blob})  # type: ignore[attr-defined]
            if features is None:
                features = np.zeros((n, embedding.shape[1]), dtype=np.float64)
            total[start : start + len(batch)] += probs
            features[start : start + len(batch)] += embedding
    total /= len(turns)
    tile_columns = [c for c, t in enumerate(reader.to_tile) if t >= 0]
    out = np.zeros((n, NUM_KINDS), dtype=np.float64)
    out[:, [reader.to_tile[c] for c in tile_columns]] = total[:, tile_columns]
    tile_prob = out.sum(axis=1)
    out /= np.maximum(tile_prob, 1e-12)[:, None]
    embeddings = features / len(turns) if features is not None else np.zeros((0, 0))
    return CropReading(out, np.clip(tile_prob, 0.0, 1.0), embeddings)


def classify(crops: np.ndarray, reader: TileReader, rotations: bool = True) -> np.ndarray:
    """Probabilities (n x 53, tile-index order) for BGR crops shaped (n, s, s, 3)."""
    return read_crops(crops, reader, rotations).probs


def crop_views(image: np.ndarray, boxes: Sequence[Box] | np.ndarray, size: int) -> np.ndarray:
    """Each tile cut at every margin of :data:`READ_PADS`: shape (margins, n, size, size, 3)."""
    return np.stack([crop_tiles(image, boxes, size, pad) for pad in READ_PADS])


def views_cut_again(views: np.ndarray, box: Box) -> np.ndarray:
    """One tile's views (margins, s, s, 3) as :func:`crop_views` cuts them now, from views saved
    when crops still showed the neighbours (a profile made before; ``box``: the tile's box in
    its photo). Views already cut this way come back as they were, to within a pixel's edge."""
    if len(views) != len(READ_PADS):
        raise ValueError(f"expected views at the {len(READ_PADS)} margins of crop_views, got {len(views)}")
    size = views.shape[1]
    return np.stack([hide_beyond_box(view, box_in_crop(box, size, pad), pad) for view, pad in zip(views, READ_PADS)])


def read_views(views: np.ndarray, reader: TileReader) -> CropReading:
    """The reader's view of tiles cut as :func:`crop_views` cuts them, averaged over the margins.

    Every tile is read first at the usual margin (:data:`FIRST_MARGIN`, its four turns); a tile
    read there as surely a tile (:data:`SURE_TILE`) and surely one label (:data:`SURE_LABEL`)
    keeps that reading, and only the others are read at every margin and averaged. On the
    seeded calibration photos and the real validation split, the sure tiles' label was the
    same as after all margins in every case (1,553 + 477 tiles) and their confidence stayed
    ≥ 0.9; it saves about 60 % of the reader's time on real photos, where most tiles are sure.
    """
    margins, n = views.shape[:2]
    if margins != len(READ_PADS):
        raise ValueError(f"expected views at the {len(READ_PADS)} margins of crop_views, got {margins}")
    if n == 0:
        return CropReading.empty()
    first = read_crops(views[FIRST_MARGIN], reader)
    probs, tile_prob, embeddings = first.probs.copy(), first.tile_prob.copy(), first.embeddings.copy()
    doubtful = np.flatnonzero((first.probs.max(axis=1) < SURE_LABEL) | (first.tile_prob < SURE_TILE))
    others = [m for m in range(margins) if m != FIRST_MARGIN]
    if len(doubtful) and others:
        rest_views = views[others][:, doubtful]
        rest = read_crops(rest_views.reshape(len(others) * len(doubtful), *views.shape[2:]), reader)
        # each row is a distribution, so the mean over margins is one too.
        for mean, at_first, at_others in (
            (probs, first.probs, rest.probs), (tile_prob, first.tile_prob, rest.tile_prob),
            (embeddings, first.embeddings, rest.embeddings),
        ):
            by_margin = at_others.reshape(len(others), len(doubtful), *at_others.shape[1:])
            mean[doubtful] = (at_first[doubtful] + by_margin.sum(axis=0)) / margins
    return CropReading(probs, tile_prob, embeddings)


def read_boxes(image: np.ndarray, boxes: Sequence[Box] | np.ndarray, reader: TileReader | None = None) -> CropReading:
    """The reader's view of the tiles in ``boxes`` of a BGR photo, each read at several margins.

    Each doubtful tile is read at every margin in :data:`READ_PADS` and the results averaged (see
    :func:`read_views`): the detector's boxes run a few pixels looser or tighter than the labelled
    boxes the reader learnt from, and on small tiles that shrinks or cuts the digit enough to turn
    a 12 into a 10; a single margin also flips a tile between two readings on a pixel's change of
    its box.
    """
    reader = reader or load_reader()
    return read_views(crop_views(image, boxes, reader.imgsz), reader)


def read_tiles(image: np.ndarray, boxes: Sequence[Box] | np.ndarray, reader: TileReader | None = None) -> np.ndarray:
    """Probabilities (n x 53, tile-index order) for the tiles in ``boxes`` (see :func:`read_boxes`)."""
    return read_boxes(image, boxes, reader).probs
