"""Read boxes with a reader that may have a ``not-tile`` class, for the evaluations.

The runtime reader (:mod:`vision.reader`) accepts exactly the 53 tiles; a reader trained with the
extra ``not-tile`` class (:mod:`training.generalised_reader`) reports, per box, a non-tile
probability besides the tile distribution. This module reads both kinds the way the runtime does
(every margin of :data:`vision.reader.READ_PADS`, four quarter turns averaged) so the evaluations
can compare them, and drops a box the way the pipeline will: when it is most probably not a tile.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.tiles import NUM_KINDS, parse_tile
from vision.crops import crop_tiles
from vision.reader import READ_PADS

DEFAULT_WEIGHTS = Path(__file__).resolve().parents[1] / "models" / "reader.pt"

NOT_TILE = "not-tile"
#: A box is dropped when its non-tile probability is above this ("most probably not a tile").
NOT_TILE_DROP = 0.5

__all__ = ["AnyReader", "load_any_reader", "read_boxes", "NOT_TILE", "NOT_TILE_DROP"]


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
def load_any_reader(weights: str | Path | None = None) -> AnyReader:
    from training import yolo_env

    yolo_env.configure_threads()
    from ultralytics import YOLO

    path = Path(weights) if weights is not None else DEFAULT_WEIGHTS
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


def read_boxes(image: np.ndarray, boxes: Sequence | np.ndarray, reader: AnyReader) -> tuple[np.ndarray, np.ndarray]:
    """(n x 53 tile probabilities given a tile, n non-tile probabilities) for ``boxes`` of a photo."""
    n = len(boxes)
    if n == 0:
        return np.zeros((0, NUM_KINDS)), np.zeros(0)
    crops = np.concatenate([crop_tiles(image, boxes, reader.imgsz, pad) for pad in READ_PADS])
    probs = classify_crops(crops, reader).reshape(len(READ_PADS), n, -1).mean(axis=0)
    tiles = probs[:, list(reader.tile_columns)]
    not_tile = probs[:, reader.not_tile_column] if reader.not_tile_column is not None else np.zeros(n)
    return tiles / tiles.sum(axis=1, keepdims=True), not_tile
