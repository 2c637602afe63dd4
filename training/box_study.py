"""How well the detector's boxes fit the tiles, detection only, at chosen input sizes::

    python -m training.box_study [--weights models/detector.onnx] [--sets closeup-racks ...]
                                 [--imgsz 320 640 960] [--tiling never|auto] [--tile-px LOW HIGH]

Answers two questions the end-to-end evaluation (:mod:`training.evaluate_suite`) cannot: whether
boxes that span two touching tiles come from the input *scale* (then a coarser input for big
tiles would fix them), and whether the boxes are systematically too big or too small (a bias
that caps the IoU whatever the scale). Per set and input size: boxes found, precision and recall
at IoU 0.5, box IoU of tiles matched at IoU >= 0.3 (median / 5th percentile) per scale band, boxes
that cover at least a quarter of each of two labelled tiles, and the median relative error of
the matched boxes' width and height (+0.06: 6 % too wide).

``--tile-px LOW HIGH`` keeps only the photos whose tiles the detector's first look at 640 puts at
LOW to HIGH pixels long (:func:`vision.detector.first_look`): the figures behind the choice of a
coarser input for big tiles (``vision.detector.LARGE_TILE_PX``), measured on the calibration set.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from training.evaluate_suite import (
    MATCH_IOU, REAL_VALIDATION, SCALE_BANDS, load_named_set, off_hidden, scale_band,
)
from training.metrics import iou_spread, match, prf
from training.real_data import DEFAULT_REAL
from training.testsets import DEFAULT_OUT
from vision.detections import Detections, box_coverage, box_iou

#: A box "spans two tiles" when it covers at least this share of each of two labelled tiles.
SPAN_SHARE = 0.25

__all__ = ["photos_with_tiles", "spans_two_tiles", "size_errors", "study_photos", "main"]


def spans_two_tiles(found: np.ndarray, truth: np.ndarray, share: float = SPAN_SHARE) -> np.ndarray:
    """For each found box: does it cover at least ``share`` of two or more labelled tiles?"""
    if len(found) == 0 or len(truth) == 0:
        return np.zeros(len(found), bool)
    return (box_coverage(found, truth) >= share).sum(axis=1) >= 2


def size_errors(found: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Relative width and height error of matched pairs, shape (n, 2): found / truth - 1."""
    found, truth = np.asarray(found, np.float64).reshape(-1, 4), np.asarray(truth, np.float64).reshape(-1, 4)
    size = lambda b: np.stack([b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]], axis=1)  # noqa: E731
    return size(found) / np.maximum(size(truth), 1e-9) - 1.0


def study_photos(photos: Sequence, weights: Path | None, imgsz: int, tiling: str) -> dict:
    """Detection-only figures of ``photos`` (:class:`training.evaluate_suite.TestPhoto`) at ``imgsz``."""
    from vision.detector import detect_tiles
    from vision.images import load_image

    found_n = truth_n = hits = spanning = 0
    ious: dict[str, list[float]] = {}
    errors = []
    for photo in photos:
        image = load_image(photo.image_path)
        found: Detections = detect_tiles(image, weights=weights, imgsz=imgsz, tiling=tiling)
        found = found[np.flatnonzero(off_hidden(photo, found.boxes))]  # boxes on unreadable tiles count neither way
        found_n, truth_n = found_n + len(found), truth_n + len(photo.boxes)
        spanning += int(spans_two_tiles(found.boxes, photo.boxes).sum())
        pairs = match(found, photo.boxes, MATCH_IOU)
        if not pairs:
            continue
        d, t = list(pairs), list(pairs.values())
        pair_iou = box_iou(found.boxes[d], photo.boxes[t]).diagonal()
        hits += int((pair_iou >= 0.5).sum())
        for j, iou in zip(t, pair_iou):
            ious.setdefault(scale_band(photo.boxes[j], max(image.shape[:2])), []).append(float(iou))
        errors.append(size_errors(found.boxes[d], photo.boxes[t]))
    errors_all = np.concatenate(errors) if errors else np.zeros((0, 2))
    median = np.median(errors_all, axis=0) if len(errors_all) else (None, None)
    scores = prf(hits, found_n, truth_n)
    return {
        "imgsz": imgsz, "found": found_n, "tiles": truth_n, "precision": scores.precision, "recall": scores.recall,
        "box_iou": {name: iou_spread(ious.get(name, [])) for _, _, name in SCALE_BANDS},
        "spanning_two_tiles": spanning,
        "width_error": None if median[0] is None else float(median[0]),
        "height_error": None if median[1] is None else float(median[1]),
    }


def photos_with_tiles(photos: Sequence, weights: Path | None, low: float, high: float) -> list:
    """The photos whose tiles the detector's first look at 640 puts at ``low`` to ``high`` px long."""
    from vision.detector import first_look
    from vision.images import load_image

    kept = []
    for photo in photos:
        length = first_look(load_image(photo.image_path), weights)
        if length is not None and low <= length < high:
            kept.append(photo)
    return kept


def line(name: str, r: dict) -> str:
    fmt = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    bands = "; ".join(f"{b} {fmt(v['median'])} / {fmt(v['p5'])} ({v['n']})" for b, v in r["box_iou"].items())
    signed = lambda v: "-" if v is None else f"{v:+.3f}"  # noqa: E731
    return (f"{name} imgsz {r['imgsz']}: {r['found']} boxes for {r['tiles']} tiles, P {r['precision']:.3f} "
            f"R {r['recall']:.3f} (IoU 0.5); spanning two tiles {r['spanning_two_tiles']}; width/height error "
            f"{signed(r['width_error'])} / {signed(r['height_error'])}; IoU median / p5: {bands}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.box_study", description=__doc__.split("\n")[0])
    parser.add_argument("--weights", type=Path, help="detector ONNX file (default: the shipped one)")
    parser.add_argument("--testsets", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--sets", nargs="+", default=["closeup-racks"], help=f"test set names, or {REAL_VALIDATION}")
    parser.add_argument("--imgsz", nargs="+", type=int, default=[640])
    parser.add_argument("--tiling", choices=("never", "auto"), default="never")
    parser.add_argument("--tile-px", nargs=2, type=float, metavar=("LOW", "HIGH"),
                        help="only photos whose first look at 640 finds tiles LOW to HIGH px long")
    args = parser.parse_args(argv)
    for name in args.sets:
        try:
            photos = load_named_set(name, DEFAULT_REAL, args.testsets)
        except (FileNotFoundError, ValueError) as exc:
            print(f"error: {name}: {exc}", file=sys.stderr)
            return 2
        if args.tile_px:
            photos = photos_with_tiles(photos, args.weights, *args.tile_px)
            name = f"{name} (tiles {args.tile_px[0]:g}-{args.tile_px[1]:g} px at 640: {len(photos)} photos)"
        for imgsz in args.imgsz:
            print(line(name, study_photos(photos, args.weights, imgsz, args.tiling)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
