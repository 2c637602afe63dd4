"""The tile reader: crops in, 53-way probabilities out, in the solver's tile-index order.

The classifier is an ultralytics YOLO classification model (``models/reader.pt``), but only its
torch module is used here: crops are batched straight into it, which is both faster and
independent of ultralytics' prediction front end. Its class names (``red-7``, ``joker``, or the
dataset's ``red_7``) are mapped to tile indices once, with :func:`solver.tiles.parse_tile`.

Each crop is read in its four quarter turns and the probabilities averaged (test-time
augmentation): the model was trained on every orientation, and averaging cancels the
orientation it happens to read worst.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.tiles import NUM_KINDS, NotationError, parse_tile
from vision.crops import PAD_FRACTION, Box, crop_tiles

DEFAULT_WEIGHTS = Path(__file__).resolve().parents[1] / "models" / "reader.pt"
#: Margins (share of a box's longer side) each tile is cut with and read at (see read_tiles).
READ_PADS = (0.0, PAD_FRACTION / 2, PAD_FRACTION, PAD_FRACTION * 1.5)
_BATCH = 256


class ReaderNotFoundError(FileNotFoundError):
    """The reader's weights are missing (train them: ``python -m training.train reader``)."""


class ReaderModelError(ValueError):
    """The weights are not a 53-class tile reader."""


@dataclass(frozen=True, eq=False)
class TileReader:
    """A loaded classifier, its input size, and where each of its classes goes in tile order."""

    module: object
    imgsz: int
    #: ``to_tile[c]`` is the tile index of the model's class ``c``.
    to_tile: tuple[int, ...]


def class_order(names: dict[int, str] | Sequence[str]) -> tuple[int, ...]:
    """Tile index for each of the model's classes; every tile must be covered exactly once."""
    items = names.items() if isinstance(names, dict) else enumerate(names)
    try:
        order = [parse_tile(name).index for _, name in sorted(items)]
    except NotationError as error:
        raise ReaderModelError(f"the model has a class that is not a tile: {error.token!r}") from error
    if sorted(order) != list(range(NUM_KINDS)):
        raise ReaderModelError(f"the model's classes are not the {NUM_KINDS} tiles: {list(names)}")
    return tuple(order)


@functools.lru_cache(maxsize=2)
def load_reader(weights: str | Path | None = None) -> TileReader:
    """Load ``weights`` (default: the shipped ``models/reader.pt``) once per process."""
    path = Path(weights) if weights is not None else DEFAULT_WEIGHTS
    if not path.is_file():
        raise ReaderNotFoundError(f"tile reader weights not found: {path} (see models/reader.md)")
    from training import yolo_env

    yolo_env.configure_threads()
    from ultralytics import YOLO

    model = YOLO(str(path), task="classify")
    module = model.model
    module.eval()
    imgsz = model.overrides.get("imgsz") or getattr(module, "args", {}).get("imgsz", 64)
    imgsz = int(imgsz[0] if isinstance(imgsz, (list, tuple)) else imgsz)
    return TileReader(module, imgsz, class_order(module.names))


def classify(crops: np.ndarray, reader: TileReader, rotations: bool = True) -> np.ndarray:
    """Probabilities (n x 53, tile-index order) for BGR crops shaped (n, s, s, 3), s = ``reader.imgsz``."""
    import torch

    if crops.ndim != 4 or crops.shape[-1] != 3:
        raise ValueError(f"expected (n, size, size, 3) BGR crops, got shape {crops.shape}")
    out = np.zeros((len(crops), NUM_KINDS), dtype=np.float64)
    if len(crops) == 0:
        return out
    turns = (0, 1, 2, 3) if rotations else (0,)
    rgb = np.ascontiguousarray(crops[..., ::-1])
    with torch.inference_mode():
        for start in range(0, len(rgb), _BATCH):
            batch = torch.from_numpy(rgb[start : start + _BATCH]).permute(0, 3, 1, 2).float() / 255.0
            total = None
            for k in turns:
                result = reader.module(torch.rot90(batch, k, dims=(2, 3)) if k else batch)
                probs = result[0] if isinstance(result, (tuple, list)) else result
                total = probs if total is None else total + probs
            assert total is not None
            out[start : start + len(batch), list(reader.to_tile)] = (total / len(turns)).double().numpy()
    return out / out.sum(axis=1, keepdims=True)


def read_tiles(image: np.ndarray, boxes: Sequence[Box] | np.ndarray, reader: TileReader | None = None) -> np.ndarray:
    """Probabilities (n x 53, tile-index order) for the tiles in ``boxes`` of a BGR photo.

    Each tile is read at every margin in :data:`READ_PADS` and the probabilities averaged: the
    detector's boxes run a few pixels looser or tighter than the labelled boxes the reader learnt
    from, and on small tiles that shrinks or cuts the digit enough to turn a 12 into a 10; a
    single margin also flips a tile between two readings on a pixel's change of its box.
    """
    reader = reader or load_reader()
    crops = np.concatenate([crop_tiles(image, boxes, reader.imgsz, pad) for pad in READ_PADS])
    # classify normalises each row, so the mean over margins is a distribution already.
    return classify(crops, reader).reshape(len(READ_PADS), len(boxes), NUM_KINDS).mean(axis=0)
