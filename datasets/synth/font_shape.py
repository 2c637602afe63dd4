"""Font-shape augmentation of a digit glyph, for training renders only (issue 15).

The reader learns digits from a handful of fonts; an edition's font it has never seen (other
stroke weight, narrower or wider, slanted, slightly irregular print) then lies outside what it
knows. Each training tile's glyph is therefore changed at random within :class:`FontShape`'s
ranges, so that an unseen font lies *inside* the training distribution rather than beside it.

``datasets.synth.tiles.render_tile(..., font_shape=FONT_SHAPE)`` applies it; without
``font_shape`` (the default, and always for the test sets' editions) nothing changes and old seeds
give the old pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["FontShape", "FONT_SHAPE", "reshape_glyph", "place_jitter"]


@dataclass(frozen=True)
class FontShape:
    """Ranges of the per-tile changes (each drawn uniformly)."""

    #: Stroke weight change as a share of the glyph's height: below 0 thins (erodes), above 0 thickens.
    stroke: tuple[float, float] = (-0.05, 0.07)
    #: Horizontal scale of the glyph (narrow to wide faces).
    x_scale: tuple[float, float] = (0.8, 1.2)
    #: Shear (italic) in degrees, either way.
    shear_deg: float = 12.0
    #: Perspective: each corner moves up to this share of the glyph's size.
    perspective: float = 0.06
    #: Elastic warp: displacement (share of the glyph's height) of a smooth random field.
    elastic: float = 0.025
    #: Digit height multiplied by a factor in this range.
    size: tuple[float, float] = (0.88, 1.12)
    #: Digit centre moved by up to this share of the face's width and height.
    shift: float = 0.04

    def __post_init__(self) -> None:
        for low, high in (self.stroke, self.x_scale, self.size):
            if low > high:
                raise ValueError(f"a range must run from low to high, got {(low, high)}")
        if self.x_scale[0] <= 0 or self.size[0] <= 0:
            raise ValueError("scales must be positive")
        if min(self.shear_deg, self.perspective, self.elastic, self.shift) < 0:
            raise ValueError("shear, perspective, elastic and shift must not be negative")


#: The ranges the font-robust reader was trained with.
FONT_SHAPE = FontShape()


def _tight(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 0.05)
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _stroke(mask: np.ndarray, change: float) -> np.ndarray:
    k = int(round(abs(change) * mask.shape[0]))
    if k < 1:
        return mask
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    changed = cv2.dilate(mask, kernel) if change > 0 else cv2.erode(mask, kernel)
    return changed if (changed > 0.5).sum() >= 0.3 * (mask > 0.5).sum() else mask  # never erase the digit


def _warp(mask: np.ndarray, rng: np.random.Generator, shape: FontShape) -> np.ndarray:
    """Shear, perspective and a smooth elastic field, on a canvas padded so nothing is cut off."""
    h, w = mask.shape
    pad = int(0.35 * h) + 4
    canvas = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0.0)
    ch, cw = canvas.shape
    shear = np.tan(np.radians(rng.uniform(-shape.shear_deg, shape.shear_deg)))
    corners = np.float32([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]])
    moved = corners.copy()
    moved[:, 0] -= shear * (moved[:, 1] - ch / 2)  # top leans right for a positive slant
    moved += rng.uniform(-shape.perspective, shape.perspective, (4, 2)).astype(np.float32) * (w, h)
    matrix = cv2.getPerspectiveTransform(corners, moved.astype(np.float32))
    warped = cv2.warpPerspective(canvas, matrix, (cw, ch), flags=cv2.INTER_LINEAR, borderValue=0.0)
    if shape.elastic > 0:
        sigma = 0.12 * h
        field = [cv2.GaussianBlur(rng.uniform(-1, 1, (ch, cw)).astype(np.float32), (0, 0), sigma) for _ in range(2)]
        field = [f / max(float(np.abs(f).max()), 1e-6) * shape.elastic * h for f in field]
        yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
        warped = cv2.remap(warped, xx + field[0], yy + field[1], cv2.INTER_LINEAR, borderValue=0.0)
    return warped


def reshape_glyph(glyph: np.ndarray, rng: np.random.Generator, shape: FontShape = FONT_SHAPE) -> np.ndarray:
    """A tight float mask (0..1) of ``glyph`` with a random stroke weight, width, slant and warp."""
    if glyph.ndim != 2 or not (glyph > 0.05).any():
        raise ValueError("glyph must be a 2-D mask with some ink")
    mask = _stroke(glyph.astype(np.float32), rng.uniform(*shape.stroke))
    scale = rng.uniform(*shape.x_scale)
    mask = cv2.resize(mask, (max(1, int(round(mask.shape[1] * scale))), mask.shape[0]), interpolation=cv2.INTER_AREA)
    return np.clip(_tight(_warp(mask, rng, shape)), 0.0, 1.0)


def place_jitter(rng: np.random.Generator, shape: FontShape = FONT_SHAPE) -> tuple[float, float, float]:
    """(height factor, x shift, y shift) of the digit on its face: shifts are shares of the face's size."""
    return rng.uniform(*shape.size), rng.uniform(-shape.shift, shape.shift), rng.uniform(-shape.shift, shape.shift)
