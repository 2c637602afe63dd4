"""Cut one tile out of a photo the same way for training and for reading.

The classifier only ever sees these crops, so the geometry lives here, once: a square
centred on the detection box, its side the box's longer side plus a margin on every edge
(so a slightly tight or loose box, or a tile lying at an angle, still shows the whole
face), everything beyond the box and a smaller margin painted grey (the neighbours' digits
are not the tile's: :func:`hide_beyond_box`), filled by repeating the photo's border where it
runs off the edge, and resized to a fixed size with area averaging (full-resolution photos
shrink without aliasing); the crop of a large tile is then softened a little
(:data:`SOFTEN_FROM_PX`), to look like the tiles the reader learnt from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np

#: Side of a crop in pixels; the reader's input size.
CROP_SIZE = 64
#: Margin added on each side, as a fraction of the box's longer side.
PAD_FRACTION = 0.08
#: A tile at least this long in its photo (its box's longer side, pixels) has its crop softened by
#: a Gaussian of :data:`SOFTEN_SIGMA` pixels of a :data:`CROP_SIZE` crop. Shrinking a 200-800 px tile
#: of a 12 MP close-up by area averaging gives a crop sharper than the reader's training crops,
#: which came mostly from photos of at most 1280 px (where lens, JPEG and upscaling leave a tile
#: softer); softened, large tiles read a little better (measured, not assumed). Chosen on the selection sets and checked on the
#: calibration sets (``models/reader.md``, session 21), never a test set.
SOFTEN_FROM_PX = 200
SOFTEN_SIGMA = 0.6
#: Names the way crops are cut, so that readings cached under another way are not reused
#: (``training.evaluate --cache``).
CROP_METHOD = "masked-softened-1"

Box = tuple[float, float, float, float]


class CropError(ValueError):
    """A box cannot be cut from the image (empty, inverted or entirely outside it)."""


def crop_square(box: Box, pad: float = PAD_FRACTION) -> tuple[float, float, float, float]:
    """The square (x1, y1, x2, y2) a tile crop covers: centred on ``box``, padded by ``pad``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    if not (w > 0 and h > 0):
        raise CropError(f"box has no area: {box}")
    side = max(w, h) * (1.0 + 2.0 * pad)
    cx, cy = (x1 + x2) / 2.0, (y1 + y2) / 2.0
    return cx - side / 2.0, cy - side / 2.0, cx + side / 2.0, cy + side / 2.0


def crop_tile(image: np.ndarray, box: Box, size: int = CROP_SIZE, pad: float = PAD_FRACTION) -> np.ndarray:
    """A ``size`` x ``size`` crop (same channels as ``image``) of the tile inside ``box``."""
    if image.ndim not in (2, 3) or image.shape[0] == 0 or image.shape[1] == 0:
        raise CropError(f"not an image: shape {image.shape}")
    height, width = image.shape[:2]
    sx1, sy1, sx2, sy2 = crop_square(box, pad)
    if sx2 <= 0 or sy2 <= 0 or sx1 >= width or sy1 >= height:
        raise CropError(f"box {box} lies outside the {width}x{height} image")
    x1, y1 = int(round(sx1)), int(round(sy1))
    side = max(int(round(sx2 - sx1)), 1)
    x2, y2 = x1 + side, y1 + side
    region = image[max(y1, 0) : min(y2, height), max(x1, 0) : min(x2, width)]
    if region.size == 0:
        raise CropError(f"box {box} lies outside the {width}x{height} image")
    ox, oy = max(x1, 0), max(y1, 0)
    region = hide_beyond_box(region, (box[0] - ox, box[1] - oy, box[2] - ox, box[3] - oy), pad)
    region = cv2.copyMakeBorder(
        region,
        max(-y1, 0),
        max(y2 - height, 0),
        max(-x1, 0),
        max(x2 - width, 0),
        cv2.BORDER_REPLICATE,
    )
    interpolation = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    crop = cv2.resize(region, (size, size), interpolation=interpolation)
    if max(box[2] - box[0], box[3] - box[1]) >= SOFTEN_FROM_PX:
        crop = cv2.GaussianBlur(crop, (0, 0), SOFTEN_SIGMA * size / CROP_SIZE)
    return crop


def hide_beyond_box(region: np.ndarray, box: Box, pad: float) -> np.ndarray:
    """``region`` with everything beyond ``box`` (in the region's pixels), widened by ``pad`` times
    the box's shorter side, painted one grey: the median brightness of the kept part's edge.

    A tile standing upright in a rack is narrow, and its square crop holds half of each
    neighbour: a blue 1 after a 12 was read as 11. The reader sees only the tile (and a margin
    for a box a little too tight); the grey neither adds an edge inside the kept part nor a colour.
    """
    bx1, by1, bx2, by2 = (float(v) for v in box)
    margin = pad * min(bx2 - bx1, by2 - by1)
    height, width = region.shape[:2]
    kx1, kx2 = (int(np.clip(round(v), 0, width)) for v in (bx1 - margin, bx2 + margin))
    ky1, ky2 = (int(np.clip(round(v), 0, height)) for v in (by1 - margin, by2 + margin))
    if kx2 <= kx1 or ky2 <= ky1 or (kx1, ky1, kx2, ky2) == (0, 0, width, height):
        return region
    kept = region[ky1:ky2, kx1:kx2]
    edge = np.concatenate([kept[0], kept[-1], kept[:, 0], kept[:, -1]]).astype(np.float32)
    grey = np.median(edge.mean(axis=-1) if edge.ndim == 2 else edge)
    out = np.full_like(region, region.dtype.type(grey))
    out[ky1:ky2, kx1:kx2] = kept
    return out


def box_in_crop(box: Box, size: int, pad: float) -> Box:
    """Where ``box`` lies in its ``size`` x ``size`` crop cut at ``pad`` (:func:`crop_tile`)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    sx1, sy1, sx2, _ = crop_square(box, pad)
    scale = size / (sx2 - sx1)
    return (x1 - sx1) * scale, (y1 - sy1) * scale, (x2 - sx1) * scale, (y2 - sy1) * scale


def crop_tiles(
    image: np.ndarray, boxes: Iterable[Box] | np.ndarray, size: int = CROP_SIZE, pad: float = PAD_FRACTION
) -> np.ndarray:
    """All crops stacked into one (n, size, size, channels) array, in box order."""
    crops = [crop_tile(image, tuple(b), size, pad) for b in boxes]  # type: ignore[arg-type]
    if not crops:
        channels: Sequence[int] = image.shape[2:] if image.ndim == 3 else ()
        return np.zeros((0, size, size, *channels), dtype=image.dtype)
    return np.stack(crops)
