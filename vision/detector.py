"""Find every tile in a photo: the one-class YOLO detector (ONNX Runtime), at a resolution that suits the photo.

API::

    find_tiles(image, *, weights=None, check_weights=None) -> Detections   # what reading uses
    detect_tiles(image, *, weights=None, conf=0.35, imgsz=640, tiling="auto") -> Detections
    load_detector(weights=None)        # the ONNX session, opened once per process

``image`` is a BGR uint8 array as :func:`vision.images.load_image` returns (any size: a 12 MP
photo, portrait or landscape, or a small screenshot). Boxes come back in that image's pixels.

Resolution strategy: one pass over the whole photo at ``imgsz`` gives a first estimate of the
tile size, and the photo is then seen at the scale that suits its tiles, in either direction:

- **small tiles** in the network's input (or none found in a big photo): a second pass runs on
  overlapping windows cut from the full-resolution photo, sized so a tile is
  ~:data:`TARGET_TILE_PX` pixels tall in each window's input. Boxes touching a window's inner
  edge are dropped (the window next door sees that tile whole; the overlap exceeds a tile), and
  the rest are merged with the global pass by NMS.
- **middling small tiles** (long side under :data:`FINE_BELOW_PX` in the input, but not small
  enough for windows; typical of a 12 MP photo of a whole table): the whole photo is seen again at
  a finer input, so its tiles are ~:data:`FINE_TILE_PX` long, and that pass replaces the first. At
  18-24 px the detector found such tiles at 0.4-0.6 and the gate dropped them; at ~36 px it is sure.
- **big tiles** (a close-up of a rack: the tiles' longer side at least :data:`LARGE_TILE_PX` in
  the input): the photo is seen again at a coarser input, so its tiles are ~:data:`COARSE_TILE_PX`
  long as in most of the training scenes, and that pass replaces the first. Chosen on the
  calibration set (``python -m training.box_study``, ``python -m training.evaluate``; figures in
  ``models/detector.md``): on photos whose tiles are 80+ px at 640 it lifts the worst boxes (box
  IoU 5th percentile 0.65 → 0.78 with the shipped detector) and end-to-end F1 a little; below
  80 px no coarser input gained anything.

``tiling="never"`` / ``"always"`` force one pass at ``imgsz`` / the tiled pass.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision import yolo_io
from vision.detections import Detections, agreed, median_length
from vision.model_files import ModelFile, check_detector_path, open_model

__all__ = [
    "coarse_input", "detect_tiles", "drop_duplicates_and_fragments", "find_tiles", "fine_input", "first_look", "load_detector",
    "METHOD",
    "SMALL_TILE_PX", "TARGET_TILE_PX", "small_tile_height", "tile_length_px", "tiles_come_out_small", "tiling_windows", "windows",
]

#: Tile height (pixels in the network input) below which the detector starts to miss tiles.
SMALL_TILE_PX = 22.0
#: Tile height a tiled pass aims for in each window's network input.
TARGET_TILE_PX = 32.0
#: A tile's longer side (pixels in the network input) from which the photo is seen again coarser.
LARGE_TILE_PX = 80.0
#: A tile's longer side the coarser pass aims for.
COARSE_TILE_PX = 40.0
#: The smallest input the coarser pass uses (below it the board's context is lost).
MIN_COARSE_INPUT = 320
#: A tile's longer side (pixels in the network input) below which, when the tiles are not small
#: enough for the tiled pass, the whole photo is seen again at a finer input. Chosen with
#: :data:`FINE_TILE_PX` on the selection sets (``models/detector.md``, session 17).
FINE_BELOW_PX = 24.0
#: A tile's longer side the finer pass aims for.
FINE_TILE_PX = 36.0
#: The largest input the finer pass uses (4x the pixels of the first pass).
MAX_FINE_INPUT = 1280
#: Changes with the way boxes are found, so that saved detections of an older method are not reused.
METHOD = "scale-both-ways-3"
_SURE_CONF = 0.25
_NMS_IOU = 0.6
_MAX_DET = 500
_MERGE_IOU = 0.5
_MERGE_OVERLAP = 0.75
_TILING_MODES = ("auto", "never", "always")
#: A box under this share of the median tile area is a fragment (see drop_duplicates_and_fragments).
FRAGMENT_AREA = 0.1
_MIN_TILES_FOR_SIZE = 5
_TYPICAL_TILE_PERCENTILE = 75


def load_detector(weights: str | Path | None = None) -> ModelFile:
    """The detector's ONNX session (default: the shipped ``detector.onnx``), opened once per process.

    Raises :class:`vision.model_files.ModelFileError` when the file is missing or damaged.
    """
    return open_model("detector", weights)


def _predict(model: ModelFile, images: list[np.ndarray], imgsz: int, conf: float) -> list[Detections]:
    """Run the detector on each image (letterboxed to ``imgsz``); boxes in each image's pixels.

    Images whose network inputs come out the same shape (a tiled pass's windows) go through the
    session as one batch.
    """
    inputs = [yolo_io.letterbox(image, imgsz, model.stride) for image in images]
    by_shape: dict[tuple[int, ...], list[int]] = {}
    for i, (blob, _) in enumerate(inputs):
        by_shape.setdefault(blob.shape, []).append(i)
    raw: list[np.ndarray | None] = [None] * len(images)
    for members in by_shape.values():
        batch = np.concatenate([inputs[i][0] for i in members])
        outputs = model.session.run(None, {model.input_name: batch})[0]  # type: ignore[attr-defined]
        for i, output in zip(members, outputs):
            raw[i] = output
    return [yolo_io.decode(out, geometry, conf, _NMS_IOU, _MAX_DET) for out, (_, geometry) in zip(raw, inputs)]


def windows(width: int, height: int, size: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """Overlapping windows (x1, y1, x2, y2) at most ``size`` pixels a side covering a ``width×height`` image.

    Along each side the fewest windows of ``size`` that overlap by ``overlap`` are taken, each then
    only as long as covering that side needs (so a 3000-pixel side in three windows gets windows
    of ~1,080 pixels, not 1,480): the network then sees no more than it must, and a tile is never
    smaller in a window's input than in a ``size`` window's.
    """
    if size <= overlap:
        raise ValueError(f"window size {size} must exceed the overlap {overlap}")

    def spans(length: int) -> list[tuple[int, int]]:
        if length <= size:
            return [(0, length)]
        n = int(np.ceil((length - overlap) / (size - overlap)))
        extent = min(size, int(np.ceil((length + (n - 1) * overlap) / n)))
        step = (length - extent) / (n - 1)
        return [(int(round(i * step)), min(length, int(round(i * step)) + extent)) for i in range(n)]

    return [(x1, y1, x2, y2) for y1, y2 in spans(height) for x1, x2 in spans(width)]


def small_tile_height(short_sides: np.ndarray) -> float:
    """The tile height the tiled pass judges a photo by: the median of its boxes' shorter sides,
    x 1.4 (a tile's height where it lies on its side); 0 without boxes."""
    return float(np.median(np.asarray(short_sides, np.float64) * 1.4)) if len(short_sides) else 0.0


def tiles_come_out_small(tile_height: float, scale: float) -> bool:
    """Whether tiles ``tile_height`` photo pixels tall (:func:`small_tile_height`; 0: none known) come
    out too small for the first pass, at ``scale`` network pixels per photo pixel: the tiled pass
    then looks again, window by window (:data:`SMALL_TILE_PX`)."""
    return tile_height <= 0 or tile_height * scale < SMALL_TILE_PX


def tiling_windows(width: int, height: int, tile_px: float | None, imgsz: int) -> list[tuple[int, int, int, int]]:
    """The windows of the tiled pass over a ``width×height`` photo whose tiles are ``tile_px`` tall
    (None: not known, a 25th of the longer side): each sized so that a tile is
    :data:`TARGET_TILE_PX` in its ``imgsz`` input, overlapping by a tile and a half. Empty when one
    window would cover the whole photo (the first pass already sees it so)."""
    longer = max(height, width)
    tile = tile_px if tile_px else longer / 25.0
    size = int(np.clip(imgsz * tile / TARGET_TILE_PX, imgsz, longer))
    if size >= longer:
        return []
    return windows(width, height, size, int(min(size * 0.5, tile * 1.6)))


def _inner_edge_mask(dets: Detections, window: tuple[int, int, int, int], width: int, height: int) -> np.ndarray:
    """True for boxes that do not touch an edge of the window lying inside the photo."""
    x1, y1, x2, y2 = window
    margin = 2.0
    b = dets.boxes
    keep = np.ones(len(dets), bool)
    if x1 > 0:
        keep &= b[:, 0] > x1 + margin
    if y1 > 0:
        keep &= b[:, 1] > y1 + margin
    if x2 < width:
        keep &= b[:, 2] < x2 - margin
    if y2 < height:
        keep &= b[:, 3] < y2 - margin
    return keep


def drop_duplicates_and_fragments(dets: Detections) -> Detections:
    """Keep one box per tile: drop a box lying mostly inside a more confident one, and slivers.

    The detector's own NMS (IoU 0.7) lets through a second box that covers most of the same tile
    (and tiled passes add half-tile boxes at window borders). A box whose area is under
    :data:`FRAGMENT_AREA` of the photo's median tile is a digit or an edge, not a tile: perspective
    in a photo of one table or rack changes a tile's area far less than tenfold.
    """
    dets = dets.nms(_MERGE_IOU, _MERGE_OVERLAP)
    sure = dets.with_min_confidence(_SURE_CONF)
    if len(sure) < _MIN_TILES_FOR_SIZE:
        return dets
    typical = float(np.percentile(sure.areas, _TYPICAL_TILE_PERCENTILE))
    return dets[dets.areas >= FRAGMENT_AREA * typical]


def tile_length_px(found: Detections, scale: float, conf: float = _SURE_CONF) -> float | None:
    """The median longer side of the confident boxes, in network-input pixels (``scale`` of them per
    photo pixel): the first estimate of tile size that picks the coarser input. None without any."""
    sure = found.with_min_confidence(max(conf, _SURE_CONF))
    return median_length(sure.boxes) * scale if len(sure) else None


def coarse_input(tile_long_px: float, imgsz: int, stride: int) -> int | None:
    """The coarser input size for tiles ``tile_long_px`` long at ``imgsz``, or None when they are not big.

    Aims at :data:`COARSE_TILE_PX`, in whole strides, never under :data:`MIN_COARSE_INPUT`.
    """
    if tile_long_px < LARGE_TILE_PX:
        return None
    size = int(round(imgsz * COARSE_TILE_PX / tile_long_px / stride)) * stride
    size = max(size, MIN_COARSE_INPUT)
    return size if size < imgsz else None


def fine_input(tile_long_px: float, imgsz: int, stride: int, longer_side: int) -> int | None:
    """The finer input size for tiles ``tile_long_px`` long at ``imgsz`` in a photo whose longer
    side is ``longer_side``, or None when they are long enough (or the photo has no more pixels).

    Aims at :data:`FINE_TILE_PX`, in whole strides, never over :data:`MAX_FINE_INPUT` nor the photo.
    """
    if tile_long_px >= FINE_BELOW_PX:
        return None
    size = int(round(imgsz * FINE_TILE_PX / tile_long_px / stride)) * stride
    size = min(size, MAX_FINE_INPUT, longer_side // stride * stride)
    return size if size > imgsz else None


def first_look(image: np.ndarray, weights: str | Path | None = None, imgsz: int = 640, conf: float = 0.35) -> float | None:
    """The tile length :func:`detect_tiles` judges the photo's scale by (see :func:`tile_length_px`)."""
    found = _predict(load_detector(weights), [image], imgsz, conf)[0]
    return tile_length_px(found, imgsz / max(image.shape[:2]), conf)


def detect_tiles(
    image: np.ndarray,
    *,
    weights: str | Path | None = None,
    conf: float = 0.35,
    imgsz: int = 640,
    tiling: str = "auto",
) -> Detections:
    """Tile boxes in ``image`` (BGR uint8) in its own pixels; empty when there are none."""
    if tiling not in _TILING_MODES:
        raise ValueError(f"tiling must be one of {', '.join(_TILING_MODES)}, got {tiling!r}")
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("image must be an H×W×3 BGR uint8 array (see vision.images.load_image)")
    height, width = image.shape[:2]
    if min(height, width) < 8:
        return Detections.empty()
    model = load_detector(weights)
    found = _predict(model, [image], imgsz, conf)[0]
    if tiling == "never":
        return drop_duplicates_and_fragments(found)
    scale = imgsz / max(height, width)  # network input pixels per photo pixel
    sure = found.with_min_confidence(max(conf, _SURE_CONF))  # judge tile size on confident boxes only
    length = tile_length_px(found, scale, conf)
    if tiling == "auto" and length is not None:
        coarse = coarse_input(length, imgsz, model.stride)
        if coarse is not None:
            return drop_duplicates_and_fragments(_predict(model, [image], coarse, conf)[0])
    median_h = small_tile_height(np.minimum(sure.heights, sure.widths))
    small = tiles_come_out_small(median_h, scale)  # median_h is 0 without sure boxes
    if tiling == "auto" and not small and length is not None:
        fine = fine_input(length, imgsz, model.stride, max(height, width))
        if fine is not None:
            return drop_duplicates_and_fragments(_predict(model, [image], fine, conf)[0])
    if scale >= 1.0 or (tiling == "auto" and not small):
        return drop_duplicates_and_fragments(found)
    boxes = tiling_windows(width, height, median_h if len(sure) else None, imgsz)
    if not boxes:
        return drop_duplicates_and_fragments(found)
    parts = [found]
    crops = [image[y1:y2, x1:x2] for x1, y1, x2, y2 in boxes]
    for window, dets in zip(boxes, _predict(model, crops, imgsz, conf)):
        shifted = dets.shifted(window[0], window[1])
        parts.append(shifted[_inner_edge_mask(shifted, window, width, height)])
    return drop_duplicates_and_fragments(Detections.concat(parts))


def find_tiles(
    image: np.ndarray, *, weights: str | Path | None = None, check_weights: str | Path | None = None
) -> Detections:
    """The tiles of a photo as reading finds them: the detector's boxes vetted by a second detector
    (:func:`vision.detections.agreed`), each run as :func:`detect_tiles` runs.

    ``check_weights`` defaults to the shipped second detector (:func:`vision.model_files.check_detector_path`);
    where there is none, the detector's boxes alone.
    """
    found = detect_tiles(image, weights=weights)
    check = Path(check_weights) if check_weights is not None else check_detector_path()
    if check is None:
        return found
    return agreed(found, detect_tiles(image, weights=check))
