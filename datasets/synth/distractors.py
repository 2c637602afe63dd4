"""Things near the tiles that a detector may take for tiles: painted as background, never labelled.

``paint_distractor(canvas, rng, kind, centre, size, edition) -> (4, 2) corners`` paints one object
on the table plane (in place) and returns the corners of its extent, so the writer can report it
and the reader can learn it as ``not-tile``. The kinds are what users' photos showed read as
tiles: the end of a rack, a maker's logo, a knot in the wood, keyboard keys, face-down tiles, dice
and coins.
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.synth.editions import ASSORTED, Edition

__all__ = ["DISTRACTOR_KINDS", "paint_distractor"]

DISTRACTOR_KINDS = ("rack-end", "logo", "knot", "keys", "face-down", "dice", "coin")


def _box(cx: float, cy: float, w: float, h: float, angle: float) -> np.ndarray:
    return cv2.boxPoints(((cx, cy), (w, h), angle)).astype(np.float32)


def _blend(canvas: np.ndarray, bgra: np.ndarray, corners: np.ndarray) -> None:
    """Warp an upright BGRA patch onto ``corners`` of the canvas (alpha-blended)."""
    h, w = bgra.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    order = corners[np.argsort(np.arctan2(corners[:, 1] - corners[:, 1].mean(), corners[:, 0] - corners[:, 0].mean()))]
    # boxPoints order differs by angle; keep the patch's own orientation: start at the top-left-most point.
    start = int(np.argmin(order.sum(axis=1)))
    dst = np.roll(order, -start, axis=0).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    H, W = canvas.shape[:2]
    warped = cv2.warpPerspective(bgra, matrix, (W, H), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:].astype(np.float32) / 255.0
    canvas[:] = (canvas.astype(np.float32) * (1 - alpha) + warped[..., :3].astype(np.float32) * alpha).astype(np.uint8)


def _rounded_patch(h: int, w: int, colour: np.ndarray, radius: float) -> np.ndarray:
    patch = np.zeros((h, w, 4), np.uint8)
    patch[..., :3] = np.clip(colour, 0, 255).astype(np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    r = max(1, int(radius))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (x, y), r, 255, -1, cv2.LINE_AA)
    patch[..., 3] = alpha
    return patch


def _text(patch: np.ndarray, text: str, colour: tuple[float, ...], scale: float) -> None:
    h, w = patch.shape[:2]
    thickness = max(1, int(h * 0.06))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thickness)
    cv2.putText(patch, text, ((w - tw) // 2, (h + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, (*colour, 255), thickness, cv2.LINE_AA)


def paint_distractor(
    canvas: np.ndarray, rng: np.random.Generator, kind: str, centre: tuple[float, float], size: float,
    edition: Edition = ASSORTED,
) -> np.ndarray:
    """Paint a ``kind`` object about ``size`` px (a tile's height) at ``centre``; return its corners."""
    from datasets.synth.tiles import render_tile

    cx, cy = centre
    angle = float(rng.uniform(0, 180))
    if kind == "rack-end":  # the rack's moulded end: a plastic block, maybe with the maker's name
        w, h = size * rng.uniform(0.35, 0.7), size * rng.uniform(0.9, 1.6)
        colour = rng.uniform(10, 140, 3) if rng.random() < 0.6 else np.full(3, rng.uniform(20, 230))
        patch = _rounded_patch(int(h) + 2, int(w) + 2, colour, w * 0.2)
        shade = np.linspace(1.25, 0.8, patch.shape[1])[None, :, None]
        patch[..., :3] = np.clip(patch[..., :3] * shade, 0, 255).astype(np.uint8)
        corners = _box(cx, cy, w, h, float(rng.normal(0, 5)))
    elif kind == "logo":  # a printed emblem or word on the rack or the box lid
        w, h = size * rng.uniform(0.8, 2.2), size * rng.uniform(0.5, 1.0)
        patch = _rounded_patch(int(h) + 2, int(w) + 2, rng.uniform(0, 255, 3), h * rng.uniform(0.05, 0.5))
        word = str(rng.choice(["RUMMIKUB", "R", "RUMMY", "OK", "J", "1 2 3", "GAME"]))
        _text(patch, word, tuple(float(c) for c in rng.uniform(0, 255, 3)), max(0.3, h / 40))
        corners = _box(cx, cy, w, h, angle)
    elif kind == "knot":  # a dark knot with rings of grain around it
        a, b = size * rng.uniform(0.2, 0.5), size * rng.uniform(0.3, 0.9)
        dark = np.clip(canvas[int(np.clip(cy, 0, canvas.shape[0] - 1)), int(np.clip(cx, 0, canvas.shape[1] - 1))].astype(float) * 0.5, 0, 255)
        for ring in range(4, 0, -1):
            tone = tuple(float(c) * (0.6 + 0.1 * ring) for c in dark * 1.6)
            cv2.ellipse(canvas, (int(cx), int(cy)), (int(a * ring / 3), int(b * ring / 3)), angle, 0, 360, tone, max(1, int(size * 0.03)), cv2.LINE_AA)
        cv2.ellipse(canvas, (int(cx), int(cy)), (int(a / 3), int(b / 3)), angle, 0, 360, tuple(float(c) for c in dark), -1, cv2.LINE_AA)
        return _box(cx, cy, 2 * a * 4 / 3, 2 * b * 4 / 3, angle)
    elif kind == "keys":  # a few keyboard keys: light rounded squares with a letter
        key = size * rng.uniform(0.45, 0.8)
        cols, rows = int(rng.integers(2, 6)), int(rng.integers(1, 3))
        grey = rng.uniform(30, 60) if rng.random() < 0.4 else rng.uniform(200, 245)
        ink = (230.0,) * 3 if grey < 100 else (50.0,) * 3
        w, h = cols * key * 1.15, rows * key * 1.15
        patch = np.zeros((int(h) + 2, int(w) + 2, 4), np.uint8)
        patch[..., :3] = int(grey * 0.5)
        patch[..., 3] = 255
        for r in range(rows):
            for c in range(cols):
                cap = _rounded_patch(int(key), int(key), np.full(3, grey) + rng.normal(0, 3, 3), key * 0.15)
                _text(cap, str(rng.choice(list("QWERTYASDFGZXCV1234567890"))), ink, max(0.3, key / 60))
                y0, x0 = int(r * key * 1.15 + key * 0.07), int(c * key * 1.15 + key * 0.07)
                region = patch[y0 : y0 + cap.shape[0], x0 : x0 + cap.shape[1]]
                a = cap[: region.shape[0], : region.shape[1], 3:] / 255.0
                region[..., :3] = (region[..., :3] * (1 - a) + cap[: region.shape[0], : region.shape[1], :3] * a).astype(np.uint8)
        corners = _box(cx, cy, w, h, angle)
    elif kind == "face-down":  # a tile lying face down: plain plastic, the edition's tone
        patch = render_tile(None, rng, max(8, int(size)), edition)
        corners = _box(cx, cy, patch.shape[1], patch.shape[0], angle)
    elif kind == "dice":
        side = size * rng.uniform(0.35, 0.6)
        body = np.full(3, rng.uniform(215, 250)) if rng.random() < 0.7 else rng.uniform(20, 220, 3)
        patch = _rounded_patch(int(side) + 2, int(side) + 2, body, side * 0.15)
        pips = {1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
                4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
                5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
                6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)]}[int(rng.integers(1, 7))]
        pip = (20, 20, 20, 255) if body.mean() > 128 else (240, 240, 240, 255)
        for px, py in pips:
            cv2.circle(patch, (int(px * side), int(py * side)), max(1, int(side * 0.09)), pip, -1, cv2.LINE_AA)
        corners = _box(cx, cy, side, side, angle)
    elif kind == "coin":
        radius = size * rng.uniform(0.18, 0.35)
        metal = np.array(rng.choice([[60, 140, 190], [150, 150, 155], [40, 100, 160]]), np.float64) * rng.uniform(0.7, 1.2)
        cv2.circle(canvas, (int(cx), int(cy)), int(radius), tuple(float(c) for c in np.clip(metal, 0, 255)), -1, cv2.LINE_AA)
        cv2.circle(canvas, (int(cx), int(cy)), int(radius * 0.85), tuple(float(c) for c in np.clip(metal * 1.2, 0, 255)), max(1, int(radius * 0.06)), cv2.LINE_AA)
        return _box(cx, cy, 2 * radius, 2 * radius, 0.0)
    else:
        raise ValueError(f"unknown distractor kind {kind!r}; choose from {', '.join(DISTRACTOR_KINDS)}")
    _blend(canvas, patch, corners)
    return corners


def paint_rack_ends(
    canvas: np.ndarray, rng: np.random.Generator, left: float, right: float, top: float, bottom: float,
    tile_w: float, body: tuple[float, ...],
) -> list[np.ndarray]:
    """Paint the moulded end caps of a rack spanning ``left``..``right`` and ``top``..``bottom`` on
    the plane, flush with its ends (beside the first and last tiles of every tier, where a real
    rack's ends stand in a close-up); return their corners. A cap is as tall as the tiers, a
    third to most of a tile wide, in the rack's own plastic, a tile-like cream, or another
    colour, shaded like a block and sometimes carrying the maker's name: what a detector that
    learnt "a tile at the end of a row" takes for one more tile.
    """
    corners = []
    height = bottom - top
    for side in (-1, 1):
        w = tile_w * float(rng.uniform(0.3, 0.9))
        h = height * float(rng.uniform(1.0, 1.15))
        draw = rng.random()
        if draw < 0.55:
            colour = np.clip(np.array(body, np.float32) * rng.uniform(0.8, 1.5) + rng.normal(0, 8, 3), 0, 255)
        elif draw < 0.8:  # cream, like the tiles themselves
            colour = np.array([rng.uniform(185, 230), rng.uniform(215, 245), rng.uniform(230, 252)], np.float32)
        else:
            colour = rng.uniform(10, 230, 3)
        patch = _rounded_patch(int(h) + 2, int(w) + 2, colour, w * float(rng.uniform(0.05, 0.3)))
        ramp = np.linspace(1.2, 0.8, patch.shape[1]) if side < 0 else np.linspace(0.8, 1.2, patch.shape[1])
        patch[..., :3] = np.clip(patch[..., :3] * ramp[None, :, None], 0, 255).astype(np.uint8)
        if rng.random() < 0.3:  # the maker's name, printed along the cap
            turned = np.ascontiguousarray(np.rot90(patch))
            _text(turned, str(rng.choice(["RUMMIKUB", "RUMMY", "R"])), tuple(float(c) for c in rng.uniform(0, 255, 3)),
                  max(0.3, turned.shape[0] / 45))
            patch = np.ascontiguousarray(np.rot90(turned, -1))
        cx = left - w / 2 if side < 0 else right + w / 2
        box = _box(cx, (top + bottom) / 2 + float(rng.normal(0, 0.03 * height)), w, h, float(rng.normal(0, 1.0)))
        _blend(canvas, patch, box)
        corners.append(box)
    return corners

