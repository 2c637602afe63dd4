"""One consistent tile look per photo set: the "player's own tiles" of the calibration experiment.

:func:`datasets.synth.tiles.render_tile` draws every tile in a new random look (font, inks, body,
mark), which is what a reader must learn from. A player's set is the opposite: one font, one
palette, one joker, on every tile. :class:`TileStyle` fixes those; :func:`render_styled_tile`
draws a tile in it, and only light, glare and noise still vary from tile to tile. The styles in
:data:`HELD_OUT_STYLES` use fonts and faces the shipped reader never saw (Liberation fonts, a star
joker, circles behind digits), so they measure how far a calibration profile brings it.

    render_styled_tile(tile, style, rng, height) -> (height, width, 4) BGRA uint8, like render_tile
    lay_out_rows(rows, style, rng, width, height) -> Scene   # tiles upright in rows, photographed
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from datasets.synth.backgrounds import background
from datasets.synth.camera import photograph
from datasets.synth.scenes import PlacedTile, Scene
from solver.tiles import Colour, Tile

__all__ = ["TileStyle", "HELD_OUT_STYLES", "render_styled_tile", "lay_out_rows", "style_named"]

_FONT_DIRS = (Path("/usr/share/fonts/truetype/liberation"), Path("/usr/share/fonts/truetype/dejavu"))


@dataclass(frozen=True)
class TileStyle:
    """Everything that is the same on every tile of one set."""

    name: str
    font: str  # a TTF file name, looked up in the system font folders
    inks: tuple[tuple[int, int, int], ...]  # BGR per colour, in Colour order
    body: tuple[int, int, int]  # BGR of the plastic
    joker_ink: tuple[int, int, int]
    joker: str = "smile"  # "smile" | "star"
    mark: str = "none"  # "none" | "dot" | "bar": under every number
    circle: bool = False  # a light disc behind the number
    aspect: float = 0.7
    table: str = "wood"  # the player's table surface (datasets.synth.backgrounds.KINDS)
    digit_height: float = 0.34  # of the face's height
    digit_y: float = 0.32  # the number's centre, of the face's height


HELD_OUT_STYLES: tuple[TileStyle, ...] = (
    TileStyle(
        "teal-serif", "LiberationSerif-Bold.ttf",
        inks=((70, 62, 58), (165, 140, 10), (10, 165, 245), (45, 25, 170)),
        body=(196, 228, 240), joker_ink=(10, 120, 235), joker="star", mark="dot", aspect=0.66, table="wood",
    ),
    TileStyle(
        "circle-narrow", "LiberationSansNarrow-Bold.ttf",
        inks=((40, 75, 105), (205, 150, 40), (0, 120, 250), (60, 40, 225)),
        body=(238, 240, 244), joker_ink=(30, 30, 30), circle=True, mark="bar", aspect=0.74, table="cloth",
        digit_height=0.38,
    ),
    TileStyle(
        "mono-pale", "LiberationMono-Bold.ttf",
        inks=((95, 95, 95), (215, 120, 60), (60, 150, 235), (90, 60, 215)),
        body=(215, 235, 245), joker_ink=(60, 60, 200), joker="star", aspect=0.7, digit_height=0.3, table="white",
    ),
)


def style_named(name: str) -> TileStyle:
    for style in HELD_OUT_STYLES:
        if style.name == name:
            return style
    raise ValueError(f"no tile style {name!r}; styles: {', '.join(s.name for s in HELD_OUT_STYLES)}")


@functools.lru_cache(maxsize=16)
def _font(name: str) -> ImageFont.FreeTypeFont:
    for folder in _FONT_DIRS:
        if (folder / name).is_file():
            return ImageFont.truetype(str(folder / name), 160)
    raise FileNotFoundError(f"font {name} is not installed (looked in {', '.join(map(str, _FONT_DIRS))})")


def _text_mask(text: str, font: str, h: int, w: int, height: float, cy: float) -> np.ndarray:
    face = _font(font)
    left, top, right, bottom = face.getbbox(text)
    canvas = Image.new("L", (right - left + 8, bottom - top + 8), 0)
    ImageDraw.Draw(canvas).text((4 - left, 4 - top), text, fill=255, font=face)
    glyph = np.asarray(canvas, np.float32) / 255.0
    target_h = max(2, int(round(h * height)))
    target_w = max(2, min(int(round(glyph.shape[1] * target_h / glyph.shape[0])), int(w * 0.86)))
    small = cv2.resize(glyph, (target_w, target_h), interpolation=cv2.INTER_AREA)
    mask = np.zeros((h, w), np.float32)
    y0, x0 = int(round(cy - target_h / 2)), int(round(w / 2 - target_w / 2))
    mask[max(0, y0) : y0 + target_h, max(0, x0) : x0 + target_w] = small[max(0, -y0) : h - y0, max(0, -x0) : w - x0]
    return mask


def _joker_mask(style: TileStyle, h: int, w: int) -> np.ndarray:
    mask = np.zeros((h * 4, w * 4), np.uint8)
    cx, cy, r = w * 2, int(h * 4 * style.digit_y * 1.1), int(min(w * 4 * 0.38, h * 4 * 0.22))
    if style.joker == "star":
        angles = np.pi / 2 + np.arange(10) * np.pi / 5
        radii = np.where(np.arange(10) % 2 == 0, r, r * 0.45)
        points = np.stack([cx + radii * np.cos(angles), cy - radii * np.sin(angles)], axis=1).astype(np.int32)
        cv2.fillPoly(mask, [points], 255, cv2.LINE_AA)
    else:
        cv2.circle(mask, (cx, cy), r, 255, max(2, r // 7), cv2.LINE_AA)
        for dx in (-r // 3, r // 3):
            cv2.circle(mask, (cx + dx, cy - r // 4), max(2, r // 8), 255, -1, cv2.LINE_AA)
        cv2.ellipse(mask, (cx, cy + r // 8), (r // 2, r // 3), 0, 20, 160, 255, max(2, r // 7), cv2.LINE_AA)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _mark_mask(style: TileStyle, h: int, w: int) -> np.ndarray:
    mask = np.zeros((h * 4, w * 4), np.uint8)
    cx, cy = w * 2, int(h * 4 * (style.digit_y + style.digit_height / 2 + 0.07))
    size = int(h * 4 * 0.035)
    if style.mark == "dot":
        cv2.circle(mask, (cx, cy), size, 255, -1, cv2.LINE_AA)
    elif style.mark == "bar":
        cv2.rectangle(mask, (cx - 3 * size, cy - size // 2), (cx + 3 * size, cy + size // 2), 255, -1, cv2.LINE_AA)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def render_styled_tile(tile: Tile, style: TileStyle, rng: np.random.Generator, height: int) -> np.ndarray:
    """``tile`` upright in ``style``, ``height`` pixels tall, BGRA uint8 (alpha 0 off the tile)."""
    h = int(np.clip(height * 2, 96, 320))
    w = max(8, int(round(h * style.aspect)))
    side = int(round(h * 0.08))
    face_h = h - side
    body_mask = _rounded(h, w, w * 0.1, h)
    face_mask = _rounded(h, w, w * 0.1, face_h)
    plastic = np.array(style.body, np.float32) * rng.uniform(0.96, 1.03)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    light = 1.0 + (np.cos(angle) * (xx / w - 0.5) + np.sin(angle) * (yy / h - 0.5)) * rng.uniform(0, 0.1)
    img = plastic[None, None, :] * light[..., None]
    edge = cv2.GaussianBlur(face_mask, (0, 0), sigmaX=max(1.0, w * 0.03))
    img *= (1.0 - 0.15 * (1.0 - np.clip(edge * 1.6 - 0.3, 0, 1)))[..., None]
    strip = np.clip(body_mask - face_mask, 0, 1)[..., None]
    img = img * (1 - strip) + plastic * 0.7 * strip
    cy = face_h * style.digit_y
    if style.circle:
        disc = np.zeros((h, w), np.float32)
        cv2.circle(disc, (w // 2, int(cy)), int(min(w * 0.44, face_h * 0.26)), 1.0, -1, cv2.LINE_AA)
        img = img * (1 - 0.12 * disc[..., None]) + 0.12 * disc[..., None] * 255.0
    if tile.is_joker:
        ink, mask = np.array(style.joker_ink, np.float32), _joker_mask(style, face_h, w)
    else:
        assert tile.colour is not None
        ink = np.array(style.inks[list(Colour).index(tile.colour)], np.float32)
        mask = np.maximum(_text_mask(str(tile.number), style.font, face_h, w, style.digit_height, cy), _mark_mask(style, face_h, w))
    ink = np.clip(ink * rng.uniform(0.92, 1.06) + rng.normal(0, 4, 3), 0, 255)
    full = np.zeros((h, w), np.float32)
    full[:face_h] = mask
    full *= face_mask
    img = img * (1 - full[..., None]) + ink * full[..., None]
    if rng.random() < 0.25:
        gx, gy, sigma = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.2, 0.5) * w
        glare = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)) * rng.uniform(0.2, 0.6)
        img = img * (1 - glare[..., None]) + 255.0 * glare[..., None]
    img = np.clip(img + rng.normal(0, 2.0, img.shape), 0, 255)
    out = np.dstack([img, body_mask * 255.0]).astype(np.float32)
    small = cv2.resize(out, (max(4, int(round(height * style.aspect))), height), interpolation=cv2.INTER_AREA)
    return np.clip(np.round(small), 0, 255).astype(np.uint8)


def _rounded(h: int, w: int, radius: float, bottom: int) -> np.ndarray:
    canvas = Image.new("L", (w * 4, h * 4), 0)
    ImageDraw.Draw(canvas).rounded_rectangle((0, 0, w * 4 - 1, bottom * 4 - 1), radius=max(1, int(radius * 4)), fill=255)
    return np.asarray(canvas.resize((w, h), Image.Resampling.BOX), np.float32) / 255.0


def lay_out_rows(
    rows: list[list[Tile]], style: TileStyle, rng: np.random.Generator, width: int = 1600, height: int = 1200,
    gap: float = 0.08, turn: float = 0.0, light: int | None = None,
) -> Scene:
    """Tiles upright in ``rows`` (top row first, each left to right) on a table, photographed.

    The rows fill most of the photo; tiles sit a little apart (``gap`` of a tile's width) with a
    small random tilt each, the camera looks down at a slight angle, turned by ``turn`` degrees,
    and light, colour cast, blur and noise come from :func:`datasets.synth.camera.photograph` -
    drawn from ``rng``, or the same for every photo given the same ``light`` seed (one evening at
    one table). ``melds`` of the scene are the rows.
    """
    longest = max(len(r) for r in rows)
    tile_h = int(min(0.8 * height / (len(rows) * 1.35), 0.85 * width / (longest * style.aspect * (1 + gap))))
    canvas = background(rng, width, height, style.table)
    bare = canvas.copy()  # what the camera sees beyond the laid-out area
    placed: list[tuple[Tile, np.ndarray]] = []
    pitch_y = tile_h * 1.35
    y = (height - pitch_y * len(rows)) / 2 + tile_h * 0.2
    for row in rows:
        x = (width - len(row) * tile_h * style.aspect * (1 + gap)) / 2
        for tile in row:
            patch = render_styled_tile(tile, style, rng, tile_h)
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
    return Scene(image, tuple(tiles), tuple(melds), "table")
