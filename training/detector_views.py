"""Photos as the detector sees them, for training it: a 12 MP photo whole, or in the tiled pass's windows.

The detector never looks at a phone's 12 MP photo at full size: it sees the photo shrunk to its
input, and where the tiles come out small there (:data:`vision.detector.SMALL_TILE_PX`) it looks
again through overlapping windows in which a tile is :data:`vision.detector.TARGET_TILE_PX` tall
(:func:`vision.detector.tiling_windows`). Training on the whole photo shrunk to the training input
would teach it tiles of 10-15 px that it is never asked to find; these views are what it is asked
about. The windows are judged by the labelled tiles, as :func:`vision.detector.detect_tiles`
judges them by its confident boxes, and drawn by the same function::

    python -m training.detector_views --source DIR --out DIR [--imgsz 640]

``--source`` is a folder written by ``python -m datasets.synth`` (``images/``, ``meta/``); ``--out``
gets ``images/`` and ``labels/`` (one class, YOLO lines) for :mod:`training.train_detector`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.writer import yolo_line
from vision.detector import small_tile_height, tiles_come_out_small, tiling_windows

__all__ = ["detector_views", "write_views", "MIN_INSIDE", "MAX_SIDE", "main"]

#: A tile is labelled in a window when at least this share of its box lies inside (the rest of a
#: cut tile is left unlabelled: reading drops boxes cut by a window's inner edge).
MIN_INSIDE = 0.5
#: A view is saved no larger than this on its longer side (the detector shrinks it further).
MAX_SIDE = 1280


def detector_views(
    image: np.ndarray, boxes: np.ndarray, imgsz: int = 640
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The views the detector gets of ``image`` (BGR) with its labelled tile ``boxes`` (n, 4, pixels):
    the whole photo when its tiles are large enough in the first pass, else the tiled pass's windows,
    each with the boxes lying at least :data:`MIN_INSIDE` in it, clipped and in its own pixels."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    height, width = image.shape[:2]
    scale = imgsz / max(height, width)
    tile = small_tile_height(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))
    small = len(boxes) and scale < 1.0 and tiles_come_out_small(tile, scale)
    windows = tiling_windows(width, height, tile or None, imgsz) if small else []
    if not windows:
        return [(image, boxes)]
    views = []
    areas = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
    for x1, y1, x2, y2 in windows:
        clipped = np.clip(boxes, [x1, y1, x1, y1], [x2, y2, x2, y2])
        inside = (clipped[:, 2] - clipped[:, 0]) * (clipped[:, 3] - clipped[:, 1]) / areas
        kept = clipped[inside >= MIN_INSIDE] - [x1, y1, x1, y1]
        views.append((image[y1:y2, x1:x2], kept))
    return views


def _shrunk(image: np.ndarray, boxes: np.ndarray, max_side: int) -> tuple[np.ndarray, np.ndarray]:
    factor = max_side / max(image.shape[:2])
    if factor >= 1.0:
        return image, boxes
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), boxes * factor


def write_views(source: Path, out: Path, imgsz: int = 640, max_side: int = MAX_SIDE) -> int:
    """Write the views of every photo of ``source`` (a ``datasets.synth`` folder) to ``out``, emptied
    first (so no view of an earlier, other set of photos stays); return how many."""
    metas = sorted((Path(source) / "meta").glob("*.json"))
    if not metas:
        raise FileNotFoundError(f"no photos in {source} (write them with python -m datasets.synth)")
    if Path(out).exists():
        shutil.rmtree(out)
    for sub in ("images", "labels"):
        (Path(out) / sub).mkdir(parents=True, exist_ok=True)
    written = 0
    for meta_path in metas:
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(Path(source) / meta["image"]))
        if image is None:
            raise ValueError(f"{source / meta['image']}: not an image")
        boxes = np.array([t["box"] for t in meta["tiles"]], np.float64).reshape(-1, 4)
        for k, (view, labelled) in enumerate(detector_views(image, boxes, imgsz)):
            view, labelled = _shrunk(view, labelled, max_side)
            name = f"{meta_path.stem}_{k:02d}"
            cv2.imwrite(str(Path(out) / "images" / f"{name}.jpg"), view, [cv2.IMWRITE_JPEG_QUALITY, 95])
            lines = [yolo_line(0, tuple(b), view.shape[1], view.shape[0]) for b in labelled]
            (Path(out) / "labels" / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
            written += 1
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.detector_views", description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="a folder written by python -m datasets.synth")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--imgsz", type=int, default=640, help="the detector's input, as reading runs it")
    args = parser.parse_args(argv)
    try:
        n = write_views(args.source, args.out, args.imgsz)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{n} views in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
