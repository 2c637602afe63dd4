"""Photographic degradations applied to a composed scene: light, colour cast, shadows, blur, noise.

``photograph(image, rng) -> BGR uint8`` returns a new image; geometry is untouched, so labels stay
valid. JPEG compression happens when the writer saves the file (quality drawn by the caller).
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.synth.backgrounds import smooth_noise

__all__ = ["photograph", "BLUR_FRAME_PX"]

#: The longer side, in pixels, of the frames the blur is drawn for: the generator's own photo sizes
#: (480-1024 px, a photo as a messenger sends it). A larger frame is the same shot kept at a higher
#: resolution, so its blur (a hand's shake, a missed focus) spans as much of the frame: as many more
#: pixels as the frame is larger. Drawn in pixels whatever the size, a 12 MP photo's blur was a
#: quarter of the 1024 px one's share of its tiles, nearly none.
BLUR_FRAME_PX = 1024


def _lighting(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = np.cos(angle) * (xx / w - 0.5) + np.sin(angle) * (yy / h - 0.5)
    light = 1 + rng.uniform(0, 0.5) * ramp
    vignette = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * rng.uniform(0, 0.8)
    light -= vignette
    light *= rng.uniform(0.65, 1.2)
    return light


def _shadow(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A soft dark region, like the photographer's hand or phone blocking a lamp."""
    points = np.stack([rng.uniform(-0.2, 1.2, 5) * w, rng.uniform(-0.2, 1.2, 5) * h], axis=1).astype(np.int32)
    mask = np.zeros((h, w), np.float32)
    cv2.fillConvexPoly(mask, cv2.convexHull(points), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), sigmaX=max(3.0, min(h, w) * rng.uniform(0.02, 0.08)))
    return 1 - mask * rng.uniform(0.2, 0.55)


def photograph(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Apply random lighting, colour cast, shadow, blur and sensor noise to a BGR uint8 image."""
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    light = _lighting(rng, h, w)
    if rng.random() < 0.3:
        light *= _shadow(rng, h, w)
    out *= light[..., None]
    cast = rng.normal(1.0, 0.07, 3).astype(np.float32)
    if rng.random() < 0.4:  # warm indoor light
        cast *= np.array([0.85, 0.97, 1.08], np.float32)
    out *= cast[None, None, :]
    if rng.random() < 0.2:  # low-frequency colour blotches (white balance drift across the frame)
        blotch = smooth_noise(rng, h, w, min(h, w) / 2) - 0.5
        out *= (1 + 0.12 * blotch)[..., None]
    blur = rng.random()
    scale = max(1.0, max(h, w) / BLUR_FRAME_PX)
    if blur < 0.35:
        out = cv2.GaussianBlur(out, (0, 0), sigmaX=rng.uniform(0.4, 1.6) * scale)
    elif blur < 0.45:
        length = int(rng.integers(3, 9))
        length = length if scale == 1.0 else max(3, int(round(length * scale)) | 1)  # a frame up to BLUR_FRAME_PX keeps its pixels
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rotation, (length, length))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    out += rng.normal(0, rng.uniform(0, 7), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)
