"""Real photos in another edition's colours: each labelled tile's ink and body recoloured.

The real photos show one edition: its inks, its cream plastic, under a few tables' light.
Other players' sets differ first in colour (teal or cyan blues, bronze or grey blacks, yellowed
bodies) and the synthetic editions show those colours only on rendered tiles. Recolouring the
real tiles gives both at once: real plastic, real light, real blur and noise, another edition's
inks. Per tile, in Lab: the body is the median of the brightest half of the tile's inner part;
the ink, the pixels far from it that the plastic encloses (a soft mask, so anti-aliased edges
blend; not the table beside a tilted tile, which touches the box's border); the plastic, the
pixels near the body's colour. The ink's pixels move by the difference between the new ink and
the old ink's median, the plastic's by the difference between the new body and the old one
(once, where neighbours' boxes overlap), both seen under the photo's light (the old body
against the real edition's nominal body gives the light's gains per channel). Jokers keep their colours (their faces are not one ink). Numbers, shapes and
positions do not change, so the labels stay true.

Used to build a test set from the real validation split (``training.testsets``); nothing here
runs when a photo is read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.synth import editions
from datasets.synth.editions import Edition
from solver.tiles import Colour, Tile

__all__ = ["REAL_BODY", "REAL_INKS", "TileInk", "measure_tile", "shift_plastic", "recolour_tile", "recolour_photo", "drifted_ink", "nominal_body"]

#: The real photos' edition, nominal BGR: its cream body and its inks, as the "classic" training
#: edition drawn after it has them (datasets.synth.editions).
_REAL = editions.edition("classic")
REAL_BODY = np.array(_REAL.body, np.float32)
REAL_INKS = {colour: _REAL.ink(colour) for colour in Colour}
#: The inner part of a box the body and ink are measured in (the sides and shadow left out).
INNER = 0.18
#: Lab distance from the body where a pixel starts to count as ink, and where it counts fully.
INK_FROM, INK_FULL = 14.0, 34.0
#: Lab distance from the body within which a pixel is the body's plastic, fully and not at all.
BODY_FROM, BODY_FULL = 10.0, 22.0


@dataclass(frozen=True, eq=False)
class TileInk:
    """One real tile's printed ink and plastic as measured in its box of a photo."""

    x1: int
    y1: int
    region: np.ndarray  # (h, w, 3) float32 BGR: the box's pixels
    alpha: np.ndarray  # (h, w) 0..1: how far each pixel is ink the plastic encloses
    plastic: np.ndarray  # (h, w) 0..1: how far each pixel is the tile's plastic
    old_body: np.ndarray  # BGR median of the plastic's brightest half
    old_ink: np.ndarray  # BGR median of the solid ink
    light: np.ndarray  # the photo's light per channel, seen on the plastic (old body / nominal)


def measure_tile(image: np.ndarray, box: Sequence[float]) -> TileInk | None:
    """The ink and plastic of the tile in ``box`` (x1, y1, x2, y2 pixels) of ``image`` (BGR);
    None for a box too small to measure or one with too little ink."""
    height, width = image.shape[:2]
    x1, y1 = max(int(np.floor(box[0])), 0), max(int(np.floor(box[1])), 0)
    x2, y2 = min(int(np.ceil(box[2])), width), min(int(np.ceil(box[3])), height)
    if x2 - x1 < 6 or y2 - y1 < 6:
        return None
    region = image[y1:y2, x1:x2].astype(np.float32)
    h, w = region.shape[:2]
    iy, ix = int(h * INNER), int(w * INNER)
    inner = np.zeros((h, w), bool)
    inner[iy:h - iy, ix:w - ix] = True
    lab = cv2.cvtColor(image[y1:y2, x1:x2], cv2.COLOR_BGR2LAB).astype(np.float32)
    lightness = lab[..., 0][inner]
    bright = inner & (lab[..., 0] >= np.median(lightness))
    body_lab = np.median(lab[bright], axis=0)
    distance = np.linalg.norm(lab - body_lab, axis=2)
    alpha = np.clip((distance - INK_FROM) / (INK_FULL - INK_FROM), 0.0, 1.0) * _enclosed(distance > INK_FROM)
    solid = alpha > 0.8
    if solid.sum() < 4:
        return None
    old_body = np.median(region[bright], axis=0)
    # The plastic: pixels near the body's colour, anywhere in the box (not the table around a
    # tilted tile, nor its neighbours' ink).
    plastic = np.clip((BODY_FULL - distance) / (BODY_FULL - BODY_FROM), 0.0, 1.0) * (1.0 - alpha)
    return TileInk(
        x1, y1, region, alpha, plastic, old_body, np.median(region[solid], axis=0), old_body / REAL_BODY,
    )


def shift_plastic(measured: TileInk, body: Sequence[float], recoloured: np.ndarray | None) -> np.ndarray:
    """How far each pixel of ``measured``'s box moves for its plastic to become the nominal
    ``body`` under the photo's light (h, w, 3); ``recoloured`` as in :func:`recolour_tile`."""
    plastic = measured.plastic
    if recoloured is not None:
        h, w = plastic.shape
        done = recoloured[measured.y1:measured.y1 + h, measured.x1:measured.x1 + w]
        plastic = plastic * (1.0 - done)
        done += plastic
    new_body = np.asarray(body, np.float32) * measured.light
    return plastic[..., None] * (new_body - measured.old_body)


def recolour_tile(
    image: np.ndarray, box: Sequence[float], tile: Tile, ink: Sequence[float], body: Sequence[float],
    recoloured: np.ndarray | None = None,
) -> None:
    """Recolour ``tile`` in ``image`` (BGR, in place) inside ``box`` (x1, y1, x2, y2 pixels) to
    the nominal ``ink`` and ``body`` (BGR). A joker, or a box too small to measure, is left alone.
    ``recoloured`` (the image's height and width, 0..1, updated in place) says how far each
    pixel's plastic was recoloured already, by a neighbour whose box overlaps this one: what is
    done is not done twice.
    """
    if tile.is_joker:
        return
    measured = measure_tile(image, box)
    if measured is None:
        return
    new_ink = np.asarray(ink, np.float32) * measured.light
    # Each keeps its shading relative to its median (texture, blur), on the new colour.
    shifted = measured.region + measured.alpha[..., None] * (new_ink - measured.old_ink)
    shifted += shift_plastic(measured, body, recoloured)
    h, w = measured.alpha.shape
    image[measured.y1:measured.y1 + h, measured.x1:measured.x1 + w] = np.clip(shifted, 0, 255).astype(np.uint8)


def _enclosed(far: np.ndarray) -> np.ndarray:
    """Of the pixels far from the body's colour, those the plastic encloses (the printed number
    and marks), not those joined to the box's border (the table beside a tilted tile, a shadow,
    a neighbour), grown by a pixel for the anti-aliased rim."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(far.astype(np.uint8), connectivity=8)
    h, w = far.shape
    x, y, bw, bh = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
    touches = (x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h)
    keep = ~touches
    keep[0] = False  # the background label
    inside = keep[labels].astype(np.uint8)
    return cv2.dilate(inside, np.ones((3, 3), np.uint8)).astype(np.float32)


def nominal_body(edition: Edition) -> np.ndarray:
    """``edition``'s plastic (BGR); the real edition's for one that draws its body per tile."""
    return np.asarray(edition.body if edition.body is not None else REAL_BODY, np.float32)


def drifted_ink(edition: Edition, tile: Tile, rng: np.random.Generator) -> np.ndarray:
    """``edition``'s ink for ``tile``'s colour (BGR; the real edition's where it has none), drifting
    a little per tile as printed inks do (``edition.ink_drift``)."""
    nominal = edition.ink(tile.colour)
    ink = np.asarray(nominal if nominal is not None else REAL_INKS[tile.colour], np.float32)
    return np.clip(ink + rng.normal(0.0, 8.0 * edition.ink_drift, 3), 0, 255)


#: Repaints one numbered tile in place: (photo, box, tile, ink, body, recoloured mask).
TilePainter = Callable[[np.ndarray, Sequence[float], Tile, np.ndarray, np.ndarray, np.ndarray], None]


def repaint_photo(
    image: np.ndarray, tiles: Sequence[tuple[Tile, Sequence[float]]], edition: Edition, rng: np.random.Generator,
    paint: TilePainter,
) -> np.ndarray:
    """A copy of ``image`` with ``paint`` applied to every numbered (tile, box), each in its ink of
    ``edition`` (:func:`drifted_ink`, drawn tile by tile) on the edition's body (:func:`nominal_body`);
    the mask of plastic already recoloured is shared, so overlapping boxes are recoloured once.
    Jokers keep their faces."""
    out = image.copy()
    recoloured = np.zeros(image.shape[:2], np.float32)
    for tile, box in tiles:
        if not tile.is_joker:
            paint(out, box, tile, drifted_ink(edition, tile, rng), nominal_body(edition), recoloured)
    return out


def recolour_photo(
    image: np.ndarray, tiles: Sequence[tuple[Tile, Sequence[float]]], edition: Edition, rng: np.random.Generator,
) -> np.ndarray:
    """A copy of ``image`` with every (tile, box) recoloured to ``edition``'s inks and body."""
    return repaint_photo(image, tiles, edition, rng, recolour_tile)
