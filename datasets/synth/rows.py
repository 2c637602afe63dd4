"""Tiles of one edition laid out in given rows and photographed: calibration and test photos of a set.

:func:`datasets.synth.scenes.compose_scene` invents its own layouts; a calibration photo needs the
player's tiles in a *known* order (rows top first, each left to right), and the calibration
experiment (:mod:`training.evaluate_profiles`) needs test photos of that same set. Every tile is
drawn by :func:`datasets.synth.tiles.render_tile` in one :class:`datasets.synth.editions.Edition`,
so the photos show one box of tiles, as a player's photos do.

    lay_out_rows(rows, edition, rng, width, height, gap=0.08, turn=0.0, light=None, table="wood") -> Scene
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.synth.backgrounds import background
from datasets.synth.camera import photograph
from datasets.synth.editions import Edition
from datasets.synth.scenes import PlacedTile, Scene
from datasets.synth.tiles import render_tile
from solver.tiles import Tile

__all__ = ["lay_out_rows"]


def lay_out_rows(
    rows: list[list[Tile]], edition: Edition, rng: np.random.Generator, width: int = 1600, height: int = 1200,
    gap: float = 0.08, turn: float = 0.0, light: int | None = None, table: str | None = "wood",
) -> Scene:
    """Tiles upright in ``rows`` (top row first, each left to right) on a table, photographed.

    The rows fill most of the photo; tiles sit a little apart (``gap`` of a tile's width) with a
    small random tilt each, the camera looks down at a slight angle, turned by ``turn`` degrees,
    and light, colour cast, blur and noise come from :func:`datasets.synth.camera.photograph` -
    drawn from ``rng``, or the same for every photo given the same ``light`` seed (one evening at
    one table). ``table`` is the surface (:data:`datasets.synth.backgrounds.KINDS`; ``None``: drawn
    from ``rng``). ``melds`` of the scene are the rows.
    """
    longest = max(len(r) for r in rows)
    aspect = float(np.mean(edition.aspect))
    tile_h = int(min(0.8 * height / (len(rows) * 1.35), 0.85 * width / (longest * aspect * (1 + gap))))
    canvas = background(rng, width, height, table)
    bare = canvas.copy()  # what the camera sees beyond the laid-out area
    placed: list[tuple[Tile, np.ndarray]] = []
    pitch_y = tile_h * 1.35
    y = (height - pitch_y * len(rows)) / 2 + tile_h * 0.2
    for row in rows:
        x = (width - len(row) * tile_h * aspect * (1 + gap)) / 2
        for tile in row:
            patch = render_tile(tile, rng, tile_h, edition)
            ph, pw = patch.shape[:2]
            angle = np.deg2rad(rng.normal(0, 2.0))
            c, s = np.cos(angle), np.sin(angle)
            centre = np.array([x + pw / 2, y + ph / 2 + rng.normal(0, tile_h * 0.03)], np.float32)
            matrix = np.array([[c, -s, 0], [s, c, 0]], np.float32)
            matrix[:, 2] = centre - matrix[:, :2] @ np.array([pw / 2, ph / 2], np.float32)
            warped = cv2.warpAffine(patch, matrix, (width, height), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
            alpha = warped[..., 3:].astype(np.float32) / 255.0
            canvas = (canvas * (1 - alpha) + warped[..., :3] * alpha).astype(np.uint8)
            corners = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32) @ matrix[:, :2].T + matrix[:, 2]
            placed.append((tile, corners))
            x += pw * (1 + gap)
        y += pitch_y
    squeeze, theta = rng.uniform(0.85, 1.0), np.deg2rad(turn + rng.normal(0, 2.0))
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    half = np.array([width / 2, height / 2], np.float32)
    top = rng.uniform(0.9, 1.0)
    dst = (src - half) * np.array([[top, squeeze], [top, squeeze], [1, squeeze], [1, squeeze]], np.float32)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]], np.float32)
    dst = dst @ rot.T * 0.95 + half
    homography = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    image = cv2.warpPerspective(canvas, homography, (width, height))
    covered = cv2.warpPerspective(np.ones((height, width), np.uint8), homography, (width, height))
    beyond = cv2.warpPerspective(bare, homography, (width, height), borderMode=cv2.BORDER_REFLECT)
    image = np.where(cv2.erode(covered, np.ones((3, 3), np.uint8))[..., None] > 0, image, beyond)
    image = photograph(image, rng if light is None else np.random.default_rng(light))
    tiles = []
    for tile, corners in placed:
        projected = cv2.perspectiveTransform(corners[None], homography)[0]
        x1, y1 = projected.min(axis=0)
        x2, y2 = projected.max(axis=0)
        tiles.append(PlacedTile(tile, projected, (float(x1), float(y1), float(x2), float(y2)), 1.0))
    melds, start = [], 0
    for row in rows:
        melds.append(tuple(range(start, start + len(row))))
        start += len(row)
    return Scene(image, tuple(tiles), tuple(melds), "table", edition.name)
