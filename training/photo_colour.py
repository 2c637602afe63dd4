"""Colour read relative to the photo (issue 15), measured and not shipped: ``python -m training.evaluate --ink-weight W``.

The reader names a tile's colour from the crop alone, as the inks of the editions it was trained
on looked. Another edition's blue may be teal, its black bronze, and the light tints everything;
within one photo, though, every tile of a colour shares one ink under one light. So:

1. **White balance from the tile bodies** — per photo, the channel gains that make the median
   tile body (each tile's brighter half) grey.
2. **Ink colour per tile** — after the gains, the median CIELAB colour of the darkest
   ``ink_share`` of the pixels in the box's inner part (the digit's ink).
3. **The photo's four inks** — a Gaussian per colour fitted by EM to the photo's tiles, started
   from the reader's own colour belief: what this photo's blue looks like, learnt from this photo.
4. **Joint reading** — number and colour read apart (the reader's number marginal times its
   colour marginal, ``separate``), times the tile's ink likelihood under the photo's inks
   (``weight``); the joker keeps its share. Decoding (rules, copy limits) runs on the result.

Measured with ``models/reader-editions.pt`` (``models/reader.md``): tile F1 unchanged on the
held-out editions and the real validation split, +1.2 points on distractor scenes, -0.4 on
close-ups, 50-100 ms per photo; so the runtime does not use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from solver.tiles import NUM_KINDS, Colour, Tile

__all__ = ["InkSettings", "DEFAULT_INK", "ink_features", "photo_inks", "recolour"]

_COLOURS = len(Colour)
#: Column (tile index) -> colour row, or -1 for the joker.
_COLOUR_OF = np.array([-1 if Tile.from_index(i).is_joker else list(Colour).index(Tile.from_index(i).colour)
                       for i in range(NUM_KINDS)])
_SIDE = 24  # each tile's box is resampled to this many pixels a side


@dataclass(frozen=True)
class InkSettings:
    """Fixed a priori, except ``weight`` (the one setting measured, see models/reader.md)."""

    #: Exponent of the photo-ink likelihood in the joint reading (0: the reader's colours only).
    weight: float = 0.5
    #: How far number and colour are read apart (0: the reader's joint reading; 1: its number
    #: marginal times its colour marginal, so that a new colour keeps the number read).
    separate: float = 1.0
    #: Photos with fewer tiles keep the reader's colours.
    min_tiles: int = 6
    #: EM rounds.
    rounds: int = 4
    #: Variance floor of each Lab coordinate (units of CIELAB squared): an ink never looks sharper than this.
    variance_floor: float = 16.0
    #: Share of a tile's pixels taken as its ink (the darkest ones).
    ink_share: float = 0.15
    #: Inner part of the box read (the rest may be table or a neighbour).
    inner: float = 0.5


DEFAULT_INK = InkSettings()


def _regions(image: np.ndarray, boxes: np.ndarray, inner: float) -> np.ndarray:
    """(n, _SIDE * _SIDE, 3) float32 BGR 0..1 of each box's inner part."""
    h, w = image.shape[:2]
    out = np.zeros((len(boxes), _SIDE * _SIDE, 3), np.float32)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, np.float64)):
        cx, cy, bw, bh = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) * inner, (y2 - y1) * inner
        a, b = int(max(cx - bw / 2, 0)), int(max(cy - bh / 2, 0))
        c, d = int(min(np.ceil(cx + bw / 2), w)), int(min(np.ceil(cy + bh / 2), h))
        if c <= a or d <= b:
            continue
        patch = cv2.resize(image[b:d, a:c], (_SIDE, _SIDE), interpolation=cv2.INTER_AREA)
        out[i] = patch.reshape(-1, 3).astype(np.float32) / 255.0
    return out


def ink_features(image: np.ndarray, boxes: np.ndarray, settings: InkSettings = DEFAULT_INK) -> np.ndarray:
    """(n, 3) CIELAB ink colour of each tile, white-balanced on the photo's tile bodies."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if len(boxes) == 0:
        return np.zeros((0, 3))
    pixels = _regions(image, boxes, settings.inner)
    brightness = pixels.max(axis=2)
    # the body: each tile's brighter half; the photo's gains make its mean grey.
    bright = (brightness >= np.median(brightness, axis=1, keepdims=True))[:, :, None]
    bodies = (pixels * bright).sum(axis=1) / np.maximum(bright.sum(axis=1), 1)
    body = np.median(bodies, axis=0).astype(np.float32)
    gains = body.mean() / np.maximum(body, 1e-3)
    balanced = np.clip(pixels * gains.astype(np.float32), 0.0, 1.0)
    lab = cv2.cvtColor(balanced.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(balanced.shape)
    body_light = (lab[:, :, 0] * bright[:, :, 0]).sum(axis=1) / np.maximum(bright[:, :, 0].sum(axis=1), 1)
    darkness = body_light[:, None] - lab[:, :, 0]
    k = max(int(round(settings.ink_share * lab.shape[1])), 1)
    ink_idx = np.argpartition(-darkness, k - 1, axis=1)[:, :k]
    ink = np.take_along_axis(lab, ink_idx[:, :, None], axis=1)
    return np.median(ink, axis=1)


def photo_inks(features: np.ndarray, colour_belief: np.ndarray, settings: InkSettings = DEFAULT_INK) -> np.ndarray:
    """(n, 4) log-likelihood of each tile's ink under the photo's four inks (colour order of
    :class:`solver.tiles.Colour`), fitted by EM from ``colour_belief`` (n, 4: the reader's colour
    probabilities, rows summing to 1 or to 0 for tiles to leave out, e.g. jokers)."""
    x = np.asarray(features, np.float64)
    prior = np.asarray(colour_belief, np.float64)
    resp = prior.copy()
    floor = np.full(3, settings.variance_floor)
    for _ in range(settings.rounds):
        mass = resp.sum(axis=0) + 1e-9
        means = resp.T @ x / mass[:, None]
        var = np.stack([(resp[:, c, None] * (x - means[c]) ** 2).sum(axis=0) / mass[c] for c in range(_COLOURS)])
        var = np.maximum(var, floor)
        loglik = -0.5 * (((x[:, None, :] - means[None]) ** 2) / var[None] + np.log(var)[None]).sum(axis=2)
        absent = mass < 1.0  # an ink the photo barely shows: no evidence for or against it
        if absent.any() and not absent.all():
            loglik[:, absent] = loglik[:, ~absent].max(axis=1, keepdims=True)
        post = np.log(np.clip(prior, 1e-6, None)) + loglik
        post = np.exp(post - post.max(axis=1, keepdims=True))
        resp = post / post.sum(axis=1, keepdims=True) * (prior.sum(axis=1, keepdims=True) > 0)
    return loglik


def _colour_marginals(probs: np.ndarray) -> np.ndarray:
    """(n, 4) each tile's probability of each colour, given that it is not a joker."""
    belief = np.stack([probs[:, _COLOUR_OF == c].sum(axis=1) for c in range(_COLOURS)], axis=1)
    return belief / np.maximum(belief.sum(axis=1, keepdims=True), 1e-12)


def recolour(probs: np.ndarray, image: np.ndarray, boxes: np.ndarray, settings: InkSettings = DEFAULT_INK) -> np.ndarray:
    """The reader's (n, 53) probabilities with colour read relative to the photo (module docstring)."""
    probs = np.asarray(probs, np.float64)
    if len(probs) < settings.min_tiles or settings.weight == 0:
        return probs
    tiles = _COLOUR_OF >= 0
    joker = probs[:, ~tiles].sum(axis=1)
    belief = _colour_marginals(probs)
    loglik = photo_inks(ink_features(image, boxes, settings), belief * (joker <= 0.5)[:, None], settings)
    loglik -= loglik.max(axis=1, keepdims=True)
    numbers = sum(probs[:, c * 13 : (c + 1) * 13] for c in range(_COLOURS))
    apart = belief[:, _COLOUR_OF[tiles]] * np.tile(numbers, _COLOURS)
    log_joint = (1.0 - settings.separate) * np.log(np.clip(probs[:, tiles], 1e-12, None)) + settings.separate * np.log(
        np.clip(apart, 1e-12, None)
    )
    out_tiles = np.exp(log_joint + settings.weight * loglik[:, _COLOUR_OF[tiles]])
    out = probs.copy()
    # the ink says which colour, not whether the tile is a joker: the joker keeps its share.
    out[:, tiles] = out_tiles * ((1.0 - joker) / np.maximum(out_tiles.sum(axis=1), 1e-300))[:, None]
    keep = joker > 0.5  # a tile read as a joker keeps its reading
    out[keep] = probs[keep]
    return out
