"""How blurred a photo's tiles are: a shaken hand or a missed focus, measured on the tiles themselves.

A blurred photo is the one a player can fix at once (hold still, let the camera focus, take it
again), and on the selection and calibration sets it is where the reader errs most: the photos whose
tiles blur over :data:`vision.reading.BLURRED_PHOTO` of their length were read at tile F1 0.884,
the rest at 0.981 (``docs/reading-history.md``, *Blurred photos*). So the reading says so
(:func:`vision.reading.blurred_photo_note`) rather than only flagging tile after tile.

The measure needs no model, so it means the same on any tile edition. Each tile's crop is shrunk to
at most :data:`WORK_PX` long (so that a 12 MP close-up and a small far tile are measured alike),
and its edges' width is the crop's contrast over its steepest slope, in the direction where the
edges are widest: a shake smears the edges across its own direction only, and the digits' edges
along it stay sharp. What a sharp edge measures anyway (:data:`SHARP_EDGE_PX`) is taken off in
quadrature, and the rest is the blur, as a share of the tile's length.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

__all__ = ["BLUR_METHOD", "SHARP_EDGE_PX", "WORK_PX", "blurred_tiles", "edge_width", "photo_blur", "tile_blur", "tile_blurs", "typical_blur"]

#: Names the way blur is measured, for caches of it (``training.evaluate --cache``).
BLUR_METHOD = "edges-1"

#: Longest side a tile's crop is measured at; larger crops are shrunk to it (area averaging).
WORK_PX = 64
#: The edge width a sharp tile measures at :data:`WORK_PX`: a digit drawn anti-aliased on a tile
#: face and measured by :func:`edge_width` (2.8 px at every size from 64 to 1,000 px;
#: ``tests/test_sharpness.py`` draws it). A blur of σ px measures about √(2.8² + (2.5 σ)²).
SHARP_EDGE_PX = 2.83
#: Directions the edges are measured across (radians): a shake's own direction is among them
#: within 22.5°.
DIRECTIONS = np.deg2rad([0.0, 45.0, 90.0, 135.0])
#: The steepest slope is this percentile of the slopes, not the maximum: one JPEG block's edge or
#: a speck of noise should not make a blurred tile look sharp.
SLOPE_PERCENTILE = 99.5
#: Contrast is the spread between these percentiles of the crop's grey levels (tile face against ink).
CONTRAST_PERCENTILES = (2.0, 98.0)
#: Crops shorter than this on a side (in photo pixels) hold too few edges to measure.
MIN_CROP_PX = 8


def edge_width(grey: np.ndarray) -> float:
    """The width, in pixels, of the edges of a tile's grey crop (at its own size), measured across
    the direction where they are widest. A flat crop (no contrast) measures as sharp as can be."""
    crop = np.asarray(grey, np.float32)
    if crop.ndim != 2 or min(crop.shape) < 3:
        raise ValueError(f"a grey crop of at least 3×3 pixels is needed, got shape {crop.shape}")
    low, high = np.percentile(crop, CONTRAST_PERCENTILES)
    contrast = float(high - low)
    if contrast < 1.0:
        return SHARP_EDGE_PX
    dx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)[1:-1, 1:-1] / 8.0  # per-pixel slopes, borders cut
    dy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)[1:-1, 1:-1] / 8.0
    steepest = [
        float(np.percentile(np.abs(dx * np.cos(a) + dy * np.sin(a)), SLOPE_PERCENTILE)) for a in DIRECTIONS
    ]
    return contrast / max(min(steepest), 1e-3)


def tile_blur(image: np.ndarray, box: Sequence[float]) -> float | None:
    """The blur of the tile at ``box`` (x1, y1, x2, y2 in pixels of the BGR or grey ``image``) as a
    share of its longer side: 0 when sharp, about 0.05 when soft, over 0.1 when smeared. None when
    the box holds too few pixels to measure."""
    height, width = image.shape[:2]
    x1, y1, x2, y2 = (int(round(float(v))) for v in box)
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, width), min(y2, height)
    if min(x2 - x1, y2 - y1) < MIN_CROP_PX:
        return None
    crop = image[y1:y2, x1:x2]
    if crop.ndim == 3:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    longer = max(crop.shape)
    if longer > WORK_PX:
        scale = WORK_PX / longer
        size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
        longer = max(crop.shape)
    spread = edge_width(crop)
    return float(np.sqrt(max(spread * spread - SHARP_EDGE_PX * SHARP_EDGE_PX, 0.0)) / longer)


def tile_blurs(image: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
    """(n,) :func:`tile_blur` of each of ``boxes``; NaN where a box holds too few pixels to measure."""
    blurs = [tile_blur(image, box) for box in boxes]
    return np.array([np.nan if b is None else b for b in blurs], np.float64)


def typical_blur(blurs: np.ndarray) -> float:
    """A photo's blur from its tiles' (:func:`tile_blurs`): the median of those measured (a few
    smeared tiles in a sharp photo are not a blurred photo); 0.0 when none was."""
    measured = np.asarray(blurs, np.float64)
    measured = measured[np.isfinite(measured)]
    return float(np.median(measured)) if len(measured) else 0.0


def photo_blur(image: np.ndarray, boxes: Sequence[Sequence[float]]) -> float:
    """How blurred the tiles at ``boxes`` are (:func:`typical_blur` of their :func:`tile_blurs`)."""
    return typical_blur(tile_blurs(image, boxes))


def blurred_tiles(blurs: np.ndarray, limit: float) -> np.ndarray:
    """(n,) bool: the tiles whose own blur (:func:`tile_blurs`) reaches ``limit``, a share of their
    length; a tile too small to measure is not one of them.

    Why: the reader can be sure of a digit it cannot see. On a smeared tile a flag's 1 becomes a 2
    and an 8 a 3 at a confidence of 0.98 and more, where no flag threshold reaches it; the blur is
    measured without a model, so it means the same on any tile edition
    (:attr:`vision.decoding.DecodingSettings.blurred_tile`)."""
    blurs = np.asarray(blurs, np.float64)
    return np.isfinite(blurs) & (blurs >= limit)
