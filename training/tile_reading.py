"""Read boxes for the evaluations: the shipped ONNX reader through the runtime's own code, or a
``.pt`` candidate that is not exported yet.

An ``.onnx`` reader (the default: ``models/reader.onnx``) is read by :func:`vision.reader.read_boxes`,
exactly as a photo is (the first-look margin, the doubtful tiles at every margin), so the
figures are the product's. A ``.pt`` checkpoint (e.g. one just trained by
:mod:`training.generalised_reader`, with or without the ``not-tile`` class) is read through
ultralytics at every margin of :data:`vision.reader.READ_PADS`, four quarter turns averaged; export
it (``python -m training.export reader``) to measure what would ship. Either way a box is dropped
the way the pipeline drops it: when it is most probably not a tile.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.tiles import NUM_KINDS, parse_tile
from vision.crops import crop_tiles
from vision.reader import READ_PADS, TileReader, load_reader
from vision.reader import read_boxes as vision_read_boxes

#: The shipped reader: evaluated through the runtime's own code (vision.reader), as photos are read.
DEFAULT_WEIGHTS = Path(__file__).resolve().parents[1] / "models" / "reader.onnx"

NOT_TILE = "not-tile"

__all__ = ["AnyReader", "load_any_reader", "read_boxes", "reader_source", "NOT_TILE"]


@dataclass(frozen=True, eq=False)
class AnyReader:
    module: object
    imgsz: int
    #: Model column of each tile index 0..52.
    tile_columns: tuple[int, ...]
    #: Model column of ``not-tile``, or ``None`` for a 53-class reader.
    not_tile_column: int | None
    #: The weights file it was loaded from.
    source: str = ""


@functools.lru_cache(maxsize=4)
def load_any_reader(weights: str | Path | None = None) -> AnyReader | TileReader:
    """An ONNX reader (default: the shipped one) opened by :func:`vision.reader.load_reader`, read
    exactly as photos are; a ``.pt`` checkpoint (a candidate not exported yet) through ultralytics."""
    path = Path(weights) if weights is not None else DEFAULT_WEIGHTS
    if path.suffix == ".onnx":
        return load_reader(path)
    from training import yolo_env

    yolo_env.configure_threads()
    from ultralytics import YOLO

    model = YOLO(str(path), task="classify")
    module = model.model
    module.eval()
    imgsz = model.overrides.get("imgsz") or getattr(module, "args", {}).get("imgsz", 64)
    imgsz = int(imgsz[0] if isinstance(imgsz, (list, tuple)) else imgsz)
    columns = [0] * NUM_KINDS
    not_tile = None
    for column, name in sorted(module.names.items()):
        if name == NOT_TILE:
            not_tile = column
        else:
            columns[parse_tile(name).index] = column
    return AnyReader(module, imgsz, tuple(columns), not_tile, str(path))


def classify_crops(crops: np.ndarray, reader: AnyReader) -> np.ndarray:
    """Model probabilities (n, classes) of BGR crops, the four quarter turns averaged."""
    import torch

    if len(crops) == 0:
        return np.zeros((0, len(reader.tile_columns) + (reader.not_tile_column is not None)))
    rgb = np.ascontiguousarray(crops[..., ::-1])
    outs = []
    with torch.inference_mode():
        for start in range(0, len(rgb), 256):
            batch = torch.from_numpy(rgb[start : start + 256]).permute(0, 3, 1, 2).float() / 255.0
            total = 0
            for k in range(4):
                result = reader.module(torch.rot90(batch, k, dims=(2, 3)) if k else batch)
                total = total + (result[0] if isinstance(result, (tuple, list)) else result)
            outs.append((total / 4).double().numpy())
    return np.concatenate(outs)


def reader_source(reader: AnyReader | TileReader) -> str:
    """The weights file a reader was loaded from (what an evaluation cache is keyed by)."""
    return str(reader.model.path) if isinstance(reader, TileReader) else reader.source


def read_boxes(image: np.ndarray, boxes: Sequence | np.ndarray, reader: AnyReader | TileReader) -> tuple[np.ndarray, np.ndarray]:
    """(n x 53 tile probabilities given a tile, n non-tile probabilities) for ``boxes`` of a photo."""
    if isinstance(reader, TileReader):
        read = vision_read_boxes(image, boxes, reader)
        return read.probs, 1.0 - read.tile_prob
    n = len(boxes)
    if n == 0:
        return np.zeros((0, NUM_KINDS)), np.zeros(0)
    crops = np.concatenate([crop_tiles(image, boxes, reader.imgsz, pad) for pad in READ_PADS])
    probs = classify_crops(crops, reader).reshape(len(READ_PADS), n, -1).mean(axis=0)
    tiles = probs[:, list(reader.tile_columns)]
    not_tile = probs[:, reader.not_tile_column] if reader.not_tile_column is not None else np.zeros(n)
    return tiles / tiles.sum(axis=1, keepdims=True), not_tile
