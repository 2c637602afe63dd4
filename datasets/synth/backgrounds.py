"""Procedural table surfaces and clutter, so the detector learns tiles, not the real set's one table.

``background(rng, width, height) -> BGR uint8`` picks wood, cloth, white, marble or a dark
table; ``add_clutter(image, rng)`` paints cups, cards, paper with writing and other objects.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["background", "add_clutter", "smooth_noise", "KINDS"]

KINDS = ("wood", "cloth", "white", "marble", "dark")
_KIND_WEIGHTS = (0.4, 0.15, 0.2, 0.15, 0.1)


def smooth_noise(rng: np.random.Generator, height: int, width: int, cell: float) -> np.ndarray:
    """Value noise in 0..1 with features about ``cell`` pixels across (bicubic-upsampled random grid)."""
    gh, gw = max(2, int(height / cell) + 2), max(2, int(width / cell) + 2)
    grid = rng.random((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _turbulence(rng: np.random.Generator, h: int, w: int, cell: float, octaves: int = 3) -> np.ndarray:
    total = np.zeros((h, w), np.float32)
    for octave in range(octaves):
        total += smooth_noise(rng, h, w, cell / 2**octave) / 2**octave
    return total / (2 - 2 ** (1 - octaves))


def _colour(rng: np.random.Generator, low: tuple[int, int, int], high: tuple[int, int, int]) -> np.ndarray:
    return np.array([rng.uniform(lo, hi) for lo, hi in zip(low, high)], np.float32)


def _wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    vertical = rng.random() < 0.5
    if vertical:
        h, w = w, h
    base = _colour(rng, (30, 60, 100), (120, 160, 215))  # BGR: walnut .. light oak
    period = rng.uniform(6, 30)
    yy = np.arange(h, dtype=np.float32)[:, None]
    warp = _turbulence(rng, h, w, rng.uniform(80, 300)) * rng.uniform(10, 60)
    grain = 0.5 + 0.5 * np.sin(2 * np.pi * (yy + warp) / period)
    streak_noise = rng.random((h, max(2, w // 60))).astype(np.float32)
    streaks = cv2.resize(streak_noise, (w, h), interpolation=cv2.INTER_LINEAR)
    shade = 1.0 - rng.uniform(0.08, 0.3) * grain - rng.uniform(0.05, 0.2) * streaks
    shade *= 1.0 + rng.uniform(-0.1, 0.1) * (_turbulence(rng, h, w, 200) - 0.5)
    if rng.random() < 0.5:  # planks
        plank = int(rng.uniform(80, 300))
        for y in range(int(rng.uniform(0, plank)), h, plank):
            shade[max(0, y - 1) : y + 1] *= 0.55
    image = base[None, None, :] * shade[..., None]
    if vertical:
        image = image.transpose(1, 0, 2)
    return image


def _cloth(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = _colour(rng, (20, 20, 20), (200, 200, 200))
    period = rng.uniform(2.5, 6)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    weave = np.sin(2 * np.pi * xx / period) * np.sin(2 * np.pi * yy / period)
    shade = 1 + 0.06 * weave + 0.15 * (_turbulence(rng, h, w, 120) - 0.5)
    shade += rng.normal(0, 0.04, (h, w)).astype(np.float32)
    return base[None, None, :] * shade[..., None]


def _white(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    grey = rng.uniform(185, 250)
    base = np.array([grey, grey, grey], np.float32) + rng.normal(0, 6, 3).astype(np.float32)
    shade = 1 + 0.1 * (_turbulence(rng, h, w, 300) - 0.5) + rng.normal(0, 0.01, (h, w)).astype(np.float32)
    return base[None, None, :] * shade[..., None]


def _marble(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    dark = rng.random() < 0.25
    base = np.full(3, rng.uniform(40, 70) if dark else rng.uniform(200, 245), np.float32) + rng.normal(0, 5, 3).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    u = xx * np.cos(angle) + yy * np.sin(angle)
    turb = _turbulence(rng, h, w, rng.uniform(100, 300), 4)
    veins = np.abs(np.sin(u / rng.uniform(40, 120) + rng.uniform(4, 9) * turb))
    vein_strength = np.exp(-veins / rng.uniform(0.03, 0.12))
    vein_colour = np.full(3, 230.0 if dark else rng.uniform(90, 170), np.float32)
    amount = (vein_strength * rng.uniform(0.3, 0.8))[..., None]
    return base[None, None, :] * (1 - amount) + vein_colour[None, None, :] * amount


def _dark(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = _colour(rng, (15, 15, 15), (70, 70, 70))
    shade = 1 + 0.2 * (_turbulence(rng, h, w, 150) - 0.5) + rng.normal(0, 0.03, (h, w)).astype(np.float32)
    return base[None, None, :] * shade[..., None]


_MAKERS = {"wood": _wood, "cloth": _cloth, "white": _white, "marble": _marble, "dark": _dark}


def background(rng: np.random.Generator, width: int, height: int, kind: str | None = None) -> np.ndarray:
    """A ``height×width`` BGR uint8 table surface of ``kind`` (random if ``None``)."""
    if kind is None:
        kind = KINDS[int(rng.choice(len(KINDS), p=_KIND_WEIGHTS))]
    if kind not in _MAKERS:
        raise ValueError(f"unknown background kind {kind!r}; choose from {', '.join(KINDS)}")
    return np.ascontiguousarray(np.clip(_MAKERS[kind](rng, height, width), 0, 255).astype(np.uint8))


def add_clutter(image: np.ndarray, rng: np.random.Generator, count: int) -> None:
    """Paint ``count`` objects (cups, cards, paper with writing, pens, blobs) onto ``image`` in place."""
    h, w = image.shape[:2]
    scale = min(h, w)
    for _ in range(count):
        kind = rng.integers(0, 5)
        colour = tuple(float(c) for c in rng.uniform(0, 255, 3))
        cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        if kind == 0:  # cup / coaster seen from above
            r = int(scale * rng.uniform(0.05, 0.15))
            cv2.circle(image, (cx, cy), r, colour, -1, cv2.LINE_AA)
            cv2.circle(image, (cx, cy), int(r * 0.8), tuple(c * 0.6 for c in colour), -1, cv2.LINE_AA)
        elif kind == 1:  # paper / score sheet with writing
            pw, ph = int(scale * rng.uniform(0.15, 0.4)), int(scale * rng.uniform(0.2, 0.5))
            box = cv2.boxPoints(((cx, cy), (pw, ph), rng.uniform(0, 180))).astype(np.int32)
            paper = float(rng.uniform(215, 255))
            cv2.fillConvexPoly(image, box, (paper, paper, paper * rng.uniform(0.92, 1.0)), cv2.LINE_AA)
            x0, y0 = box.min(axis=0)
            for line in range(int(rng.integers(2, 8))):
                text = "".join(rng.choice(list("0123456789 ABCDEFabcdef+-="), int(rng.integers(4, 12))))
                org = (int(x0 + pw * 0.1), int(y0 + ph * 0.15 + line * ph * 0.1))
                cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, max(0.3, ph / 400), (60, 50, 40), 1, cv2.LINE_AA)
        elif kind == 2:  # card / phone / box
            bw, bh = int(scale * rng.uniform(0.08, 0.3)), int(scale * rng.uniform(0.08, 0.3))
            box = cv2.boxPoints(((cx, cy), (bw, bh), rng.uniform(0, 180))).astype(np.int32)
            cv2.fillConvexPoly(image, box, colour, cv2.LINE_AA)
        elif kind == 3:  # pen
            length = scale * rng.uniform(0.15, 0.4)
            angle = rng.uniform(0, np.pi)
            end = (int(cx + length * np.cos(angle)), int(cy + length * np.sin(angle)))
            cv2.line(image, (cx, cy), end, colour, max(2, int(scale * 0.012)), cv2.LINE_AA)
        else:  # soft blob (bag, hand, fabric fold)
            axes = (int(scale * rng.uniform(0.04, 0.2)), int(scale * rng.uniform(0.04, 0.2)))
            cv2.ellipse(image, (cx, cy), axes, rng.uniform(0, 180), 0, 360, colour, -1, cv2.LINE_AA)
