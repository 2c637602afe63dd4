"""Real photos in another edition's print: each labelled tile's number redrawn in that edition.

Recolouring the real tiles (:mod:`datasets.synth.recolour`) showed that another edition's colours
on real plastic cost the reader almost nothing; what other players' sets differ in most is the
print: the digits' font and weight, the mark under 6 and 9, a light disc behind the number. Here
each real tile keeps its plastic, its light, its shadow and its place in the photo; its printed
number is painted out (inpainted from the plastic around it) and the edition's number is printed
in its place, as :func:`datasets.synth.tiles.number_ink` prints it on a rendered tile, turned like
the tile (:func:`print_angle`: the slant of its sides, and the side the old print leans to for its
top), its top where the old print's top was, in the edition's ink under the photo's light, blurred and grained like
the photo. The plastic takes the edition's body colour as recolouring does. Jokers keep their
faces (not one ink). Numbers and colours do not change, so the labels stay true.

Used to build test sets from the real validation split (``training.testsets``) and, in training
editions, training photos from the real training split; nothing here runs when a photo is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from datasets.synth.editions import Edition
from datasets.synth.recolour import TileInk, measure_tile, repaint_photo, shift_plastic
from datasets.synth.tiles import number_ink
from solver.tiles import Tile

__all__ = ["print_angle", "restyle_tile", "restyle_photo", "mosaic"]

#: The share of an upright tile's height that is its face (the rest, its side, shows below).
FACE_SHARE = 0.92
#: Old print at least this solid is painted out (and a pixel around it, for the anti-aliased rim).
PAINT_OUT_FROM = 0.15
#: The camera's blur on the new print: a Gaussian of this many pixels (drawn per tile).
BLUR_SIGMA = (0.35, 0.8)


def print_angle(measured: TileInk) -> float:
    """How far (degrees, counter-clockwise) the tile is turned from upright. Its sides' slant
    (modulo a quarter turn) is the box's dominant edge direction, its edges and its neighbours'
    lying along the same two directions; which of the four sides is its top, the one the print
    leans to from the box's centre (the print lies in the upper part of an upright face)."""
    grey = cv2.cvtColor(np.clip(measured.region, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    strength = np.hypot(gx, gy) * (1.0 - measured.alpha)  # the sides, not the digits' curves
    # Edge directions four times over: a quarter turn apart they add up instead of cancelling.
    quad = 4.0 * np.arctan2(gy, gx)
    slant = np.degrees(np.arctan2((strength * np.sin(quad)).sum(), (strength * np.cos(quad)).sum()) / 4.0)
    ys, xs = np.nonzero(measured.alpha > 0.5)
    h, w = measured.alpha.shape
    lean = (xs.mean() - (w - 1) / 2, ys.mean() - (h - 1) / 2)
    # The top of a tile turned counter-clockwise by a points to (-sin a, -cos a) in image coordinates.
    toward = np.degrees(np.arctan2(-lean[0], -lean[1])) % 360.0
    sides = [(-slant + 90.0 * k) % 360.0 for k in range(4)]
    return min(sides, key=lambda a: abs((a - toward + 180.0) % 360.0 - 180.0))


def _upright_print(tile: Tile, edition: Edition, rng: np.random.Generator, height: int, width: int):
    """The edition's print for ``tile`` on an upright tile ``height`` x ``width`` pixels: the ink
    (0..1) and the disc (0..1, or None) at that size, and the disc's tone."""
    work_h = int(np.clip(height * 2, 96, 320))
    work_w = max(8, int(round(work_h * width / height)))
    face_h = int(round(work_h * FACE_SHARE))
    printed = number_ink(tile, rng, face_h, work_w, edition, tile_h=work_h)
    ink = np.zeros((work_h, work_w), np.float32)
    ink[:face_h] = printed.ink
    size = (width, height)
    small_ink = cv2.resize(ink, size, interpolation=cv2.INTER_AREA)
    disc = None if printed.disc is None else cv2.resize(printed.disc, size, interpolation=cv2.INTER_AREA)
    return small_ink, disc, printed.disc_tone


def _top_and_middle(mask: np.ndarray) -> tuple[float, float]:
    ys, xs = np.nonzero(mask > 0.5)
    return float(ys.min()), float(xs.mean())


def _rotation(angle: float, size: int) -> np.ndarray:
    """The 3 x 3 turn by ``angle`` degrees counter-clockwise about a square canvas's centre."""
    return np.vstack([cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), angle, 1.0), [0, 0, 1]])


def _warped(mask: np.ndarray, warp: np.ndarray, size: int) -> np.ndarray:
    return cv2.warpAffine(mask, warp[:2], (size, size), flags=cv2.INTER_LINEAR, borderValue=0.0)


def _placed(print_mask: np.ndarray, size: int) -> np.ndarray:
    """``print_mask`` (upright, the tile's size) in the middle of the square canvas."""
    canvas = np.zeros((size, size), np.float32)
    h, w = print_mask.shape
    y0, x0 = (size - h) // 2, (size - w) // 2
    canvas[y0:y0 + h, x0:x0 + w] = print_mask
    return canvas


def _new_print(measured: TileInk, angle: float, tile: Tile, edition: Edition, rng: np.random.Generator):
    """The edition's print (ink, disc or None, disc tone) over the box, turned by ``angle`` like
    the tile, its top and middle where the old print's are; None when nothing was printed."""
    h, w = measured.alpha.shape
    size = int(np.ceil(np.hypot(h, w))) + 2
    y0, x0 = (size - h) // 2, (size - w) // 2
    old = np.zeros((size, size), np.float32)
    old[y0:y0 + h, x0:x0 + w] = measured.alpha
    old_upright = _warped(old, _rotation(-angle, size), size)
    if not (old_upright > 0.5).any():
        return None
    # The upright tile's size: the box's, turned back (a turned tile's box is larger than it).
    radians = np.radians(angle)
    c, s_ = abs(np.cos(radians)), abs(np.sin(radians))
    det = c * c - s_ * s_
    if abs(det) > 0.3:
        tile_w, tile_h = (w * c - h * s_) / det, (h * c - w * s_) / det
    else:  # near 45 degrees the box says little: a tile's usual proportions
        tile_h = max(h, w) / (c + 0.7 * s_)
        tile_w = 0.7 * tile_h
    tile_h, tile_w = int(np.clip(tile_h, 8, size)), int(np.clip(tile_w, 6, size))
    ink, disc, tone = _upright_print(tile, edition, rng, tile_h, tile_w)
    if not (ink > 0.5).any():
        return None
    ink_canvas = _placed(ink, size)
    (new_top, new_mid), (old_top, old_mid) = _top_and_middle(ink_canvas), _top_and_middle(old_upright)
    # Moved to the old print's place, then turned like the tile: one warp, so one resampling.
    shift = np.array([[1, 0, old_mid - new_mid], [0, 1, old_top - new_top], [0, 0, 1]])
    warp = _rotation(angle, size) @ shift

    def back(mask: np.ndarray) -> np.ndarray:
        return _warped(_placed(mask, size), warp, size)[y0:y0 + h, x0:x0 + w]

    return back(ink), None if disc is None else back(disc), tone


def restyle_tile(
    image: np.ndarray, box: Sequence[float], tile: Tile, edition: Edition, ink: Sequence[float],
    body: Sequence[float], rng: np.random.Generator, recoloured: np.ndarray | None = None,
) -> None:
    """Print ``tile``'s number in ``edition`` on the real tile in ``box`` of ``image`` (BGR, in
    place), in the nominal ``ink`` on the nominal ``body`` (BGR); ``recoloured`` as in
    :func:`datasets.synth.recolour.recolour_tile`. A joker, or a box too small or too faint to
    measure, is left alone."""
    if tile.is_joker:
        return
    measured = measure_tile(image, box)
    if measured is None or not (measured.alpha > 0.5).any():
        return
    printed = _new_print(measured, print_angle(measured), tile, edition, rng)
    if printed is None:
        return
    ink_mask, disc, tone = printed
    painted = _painted_out(measured)
    # The old print is plastic now: it takes the new body colour with the rest.
    as_plastic = replace(measured, plastic=np.clip(measured.plastic + measured.alpha, 0.0, 1.0))
    out = painted + shift_plastic(as_plastic, body, recoloured)
    new_body = np.asarray(body, np.float32) * measured.light
    if disc is not None:
        disc_colour = np.clip(new_body * tone + 6, 0, 255)
        out = out * (1 - disc[..., None]) + disc_colour * disc[..., None]
    sigma = rng.uniform(*BLUR_SIGMA)
    ink_mask = cv2.GaussianBlur(np.ascontiguousarray(ink_mask, np.float32), (0, 0), sigmaX=sigma)
    h, w = ink_mask.shape
    grain = _grain(measured) * rng.standard_normal((h, w, 3)).astype(np.float32)
    new_ink = np.asarray(ink, np.float32) * measured.light
    out = out * (1 - ink_mask[..., None]) + (new_ink + grain) * ink_mask[..., None]
    image[measured.y1:measured.y1 + h, measured.x1:measured.x1 + w] = np.clip(out, 0, 255).astype(np.uint8)


def _painted_out(measured: TileInk) -> np.ndarray:
    """The box with its old print inpainted from the plastic around it (float32 BGR)."""
    mask = cv2.dilate((measured.alpha > PAINT_OUT_FROM).astype(np.uint8), np.ones((3, 3), np.uint8))
    region = np.clip(measured.region, 0, 255).astype(np.uint8)
    return cv2.inpaint(region, mask, 3, cv2.INPAINT_TELEA).astype(np.float32)


def _grain(measured: TileInk) -> float:
    """The photo's grain on this tile: the spread of the plastic around its own blur."""
    smooth = cv2.GaussianBlur(measured.region, (0, 0), sigmaX=1.5)
    plastic = measured.plastic > 0.9
    if plastic.sum() < 8:
        return 0.0
    return float(np.std((measured.region - smooth)[plastic]))


def restyle_photo(
    image: np.ndarray, tiles: Sequence[tuple[Tile, Sequence[float]]], edition: Edition, rng: np.random.Generator,
) -> np.ndarray:
    """A copy of ``image`` with every (tile, box) printed in ``edition`` (:func:`restyle_tile`),
    in its inks on its body (:func:`datasets.synth.recolour.repaint_photo`)."""
    def paint(out, box, tile, ink, body, recoloured) -> None:
        restyle_tile(out, box, tile, edition, ink, body, rng, recoloured)

    return repaint_photo(image, tiles, edition, rng, paint)


def mosaic(
    parts: Sequence[tuple[np.ndarray, Sequence[tuple[Tile, Sequence[float]]]]], n: int,
) -> tuple[np.ndarray, list[tuple[Tile, tuple[float, float, float, float]]]]:
    """``n`` x ``n`` photos (image, [(tile, box)]) in one of the first one's size, each shrunk to
    fit its cell, row by row: the tiles of a table as small as a photo from further away shows
    them. The image, and every tile with its box in it."""
    if len(parts) != n * n:
        raise ValueError(f"a mosaic of {n} x {n} needs {n * n} photos, got {len(parts)}")
    if n == 1:
        image, own = parts[0]
        return image, [(tile, tuple(float(v) for v in box)) for tile, box in own]
    height, width = parts[0][0].shape[:2]
    cell_h, cell_w = height // n, width // n
    out = np.zeros((cell_h * n, cell_w * n, 3), np.uint8)
    labelled = []
    for k, (image, own) in enumerate(parts):
        y0, x0 = (k // n) * cell_h, (k % n) * cell_w
        out[y0:y0 + cell_h, x0:x0 + cell_w] = cv2.resize(image, (cell_w, cell_h), interpolation=cv2.INTER_AREA)
        sx, sy = cell_w / image.shape[1], cell_h / image.shape[0]
        labelled += [(tile, (x0 + box[0] * sx, y0 + box[1] * sy, x0 + box[2] * sx, y0 + box[3] * sy)) for tile, box in own]
    return out, labelled
