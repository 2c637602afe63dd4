"""Render one Rummikub tile face as a small BGRA image, for synthetic photos and classifier crops.

API (stable; the tile reader's training uses it)::

    render_tile(tile: Tile | None, rng: np.random.Generator, height: int, edition: Edition = ASSORTED,
                font_shape: FontShape | None = None) -> np.ndarray

returns a ``(height, width, 4)`` uint8 **BGRA** image, ``width ≈ 0.62..0.78 × height``.
Alpha is 255 on the tile (anti-aliased rounded corners) and 0 outside, so callers can
composite it anywhere. The tile stands upright: number at the top, the small orientation mark
under it, and the tile's visible thickness (its side, a darker strip) at the bottom.
``tile=None`` renders a blank face (a face-down tile, a distractor).

Everything random comes from ``rng``: the same seed gives the same pixels. Variation covers
what real photos show: ivory/cream plastic tones, bevel shading, the side strip, glare,
several bold fonts (DejaVu/STIX from the system or matplotlib, plus OpenCV's Hershey
fonts; nothing is downloaded), ink hues (blue drifting to teal, orange towards red or
yellow, black washed out by glare), mark shapes, and joker faces. ``edition``
(:mod:`datasets.synth.editions`) fixes what one maker's box shares: fonts, palette, marks, a circle
behind the digit, joker faces, body tone and aspect; the default mixes the training fonts and marks
tile by tile, as the generator always did. Training renders may draw an edition in the wide font
pool instead (:mod:`datasets.synth.wide_fonts`, system fonts found by file name).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from datasets.synth.editions import ASSORTED, Edition, JokerFace, Mark, Marked
from datasets.synth.font_shape import FontShape, place_jitter, reshape_glyph
from datasets.synth.wide_fonts import WIDE_FONT_FILES, installed_wide_fonts
from solver.tiles import Colour, Tile

__all__ = ["render_tile", "number_ink", "NumberInk", "font_names", "missing_fonts", "INK_BGR", "MissingFontError"]

#: Nominal ink colours (BGR) before per-tile variation.
INK_BGR: dict[Colour, tuple[int, int, int]] = {
    Colour.BLACK: (34, 30, 30),
    Colour.BLUE: (190, 105, 15),
    Colour.ORANGE: (20, 135, 240),
    Colour.RED: (40, 30, 205),
}

_BOLD_FONT_FILES = (
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSerifCondensed-Bold.ttf",
    "DejaVuSansMono-Bold.ttf",
    "STIXGeneralBol.ttf",
    "DejaVuSans.ttf",
    "cmb10.ttf",
)
#: Fonts only some editions use (the assorted mix keeps to the list above).
_EDITION_FONT_FILES = (
    "LiberationSans-Bold.ttf",
    "LiberationSansNarrow-Bold.ttf",
    "LiberationSerif-Bold.ttf",
    "LiberationMono-Bold.ttf",
)
#: Editions' fonts from Debian's font packages, looked for anywhere under the system's font
#: folder: file name -> package.
_PACKAGED_EDITION_FONTS = {"Lato-Heavy.ttf": "fonts-lato", "Cabin-SemiBold.otf": "fonts-cabin"}
#: Where the system keeps its fonts (the wide training pool is looked for anywhere under it).
_SYSTEM_FONTS = Path("/usr/share/fonts")
_HERSHEY = (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX)


def _font_dirs() -> list[Path]:
    dirs = [
        Path("/usr/share/fonts/truetype/dejavu"),
        Path("/usr/share/fonts/truetype/liberation"),
        Path("/usr/share/fonts/truetype"),
    ]
    try:
        import matplotlib

        dirs.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf")
    except ImportError:  # matplotlib is optional: Hershey fonts still work
        pass
    return dirs


@functools.lru_cache(maxsize=1)
def _installed_fonts() -> dict[str, Path]:
    """Installed TTFs by file name, the first found per name; then the wide training pool's
    (:mod:`datasets.synth.wide_fonts`) and the packaged editions' fonts, anywhere under the
    system's font folder."""
    found: dict[str, Path] = {}
    for directory in _font_dirs():
        for name in _BOLD_FONT_FILES + _EDITION_FONT_FILES:
            path = directory / name
            if name not in found and path.is_file():
                found[name] = path
    if _SYSTEM_FONTS.is_dir():
        for path in sorted(_SYSTEM_FONTS.rglob("*")):
            wanted = path.name in WIDE_FONT_FILES or path.name in _PACKAGED_EDITION_FONTS
            if wanted and path.name not in found and path.is_file():
                found[path.name] = path
    return found


@functools.lru_cache(maxsize=1)
def _font_paths() -> tuple[Path, ...]:
    """The assorted mix's bold TTFs, in a fixed order (so seeds reproduce on one machine)."""
    return tuple(_installed_fonts()[name] for name in _BOLD_FONT_FILES if name in _installed_fonts())


def font_names() -> list[str]:
    """Names of the fonts the renderer draws digits with (TTF files, then Hershey fonts)."""
    extra = [name for name in _EDITION_FONT_FILES + tuple(_PACKAGED_EDITION_FONTS) if name in _installed_fonts()]
    extra += list(installed_wide_fonts(set(_installed_fonts())))
    return [p.name for p in _font_paths()] + extra + [f"hershey-{i}" for i in range(len(_HERSHEY))]


class MissingFontError(RuntimeError):
    """An edition's font is not installed on this machine.

    Rendering it in another font would be silent and wrong: a held-out edition drawn in a training
    font no longer measures generalisation, and a training edition loses its look.
    """


#: Where the fonts of the editions come from (Debian / Ubuntu), for the error message.
FONT_PACKAGES = {name: "fonts-liberation" for name in _EDITION_FONT_FILES} | {
    "STIXGeneralBol.ttf": "matplotlib (pip)", "cmb10.ttf": "matplotlib (pip)",
} | WIDE_FONT_FILES | _PACKAGED_EDITION_FONTS


def missing_fonts(edition: Edition) -> list[str]:
    """The fonts ``edition`` draws with that are not installed here (empty: it can be rendered)."""
    available = set(font_names())
    return [f for f in edition.fonts if f not in available]


def _edition_fonts(edition: Edition) -> list[str]:
    """The edition's fonts; every one must be installed (:class:`MissingFontError` otherwise)."""
    missing = missing_fonts(edition)
    if missing:
        packages = sorted({FONT_PACKAGES.get(f, "a package that has it") for f in missing})
        raise MissingFontError(
            f"edition {edition.name!r} needs the font(s) {', '.join(missing)}, not installed here; "
            f"install {' and '.join(packages)} (e.g. apt-get install {packages[0]}) and run again"
        )
    return list(edition.fonts)


@functools.lru_cache(maxsize=256)
def _truetype(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


def _glyph_mask(text: str, font: str) -> np.ndarray:
    """A tight float mask (0..1) of ``text`` in the font named ``font`` at a fixed large size."""
    if not font.startswith("hershey-"):
        font = _truetype(_installed_fonts()[font], 96)
        left, top, right, bottom = font.getbbox(text)
        canvas = Image.new("L", (right - left + 8, bottom - top + 8), 0)
        ImageDraw.Draw(canvas).text((4 - left, 4 - top), text, fill=255, font=font)
        mask = np.asarray(canvas, dtype=np.float32) / 255.0
    else:
        face = _HERSHEY[int(font.split("-")[1]) % len(_HERSHEY)]
        (w, h), base = cv2.getTextSize(text, face, 3.0, 9)
        canvas = np.zeros((h + base + 20, w + 20), np.uint8)
        cv2.putText(canvas, text, (10, h + 10), face, 3.0, 255, 9, cv2.LINE_AA)
        mask = canvas.astype(np.float32) / 255.0
    ys, xs = np.nonzero(mask > 0.05)
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


_GLYPH_CACHE: dict[tuple[str, str], np.ndarray] = {}


def _cached_glyph(text: str, font: str) -> np.ndarray:
    key = (text, font)
    if key not in _GLYPH_CACHE:
        _GLYPH_CACHE[key] = _glyph_mask(text, font)
    return _GLYPH_CACHE[key]


def _rounded_rect_mask(h: int, w: int, radius: float, top: int = 0, bottom: int | None = None) -> np.ndarray:
    """Anti-aliased mask (float 0..1) of a rounded rectangle spanning rows ``top..bottom``."""
    bottom = h if bottom is None else bottom
    scale = 4
    canvas = Image.new("L", (w * scale, h * scale), 0)
    r = max(1, int(radius * scale))
    ImageDraw.Draw(canvas).rounded_rectangle(
        (0, top * scale, w * scale - 1, bottom * scale - 1), radius=r, fill=255
    )
    small = canvas.resize((w, h), Image.Resampling.BOX)
    return np.asarray(small, dtype=np.float32) / 255.0


def _vary_bgr(bgr: tuple[int, int, int], rng: np.random.Generator, amount: float) -> np.ndarray:
    return np.clip(np.array(bgr, np.float32) + rng.normal(0, amount, 3), 0, 255)


def _ink_colour(colour: Colour, rng: np.random.Generator, edition: Edition = ASSORTED) -> np.ndarray:
    """Ink colour with the drifts real photos show (teal blue, red-ish orange, grey black)."""
    b, g, r = edition.ink(colour) or INK_BGR[colour]
    drift = edition.ink_drift
    if colour is Colour.BLUE:
        g += rng.uniform(-30, 60) * drift  # towards teal
        b += rng.uniform(-40, 40) * drift
    elif colour is Colour.ORANGE:
        g += rng.uniform(-45, 40) * drift  # towards red or yellow
    elif colour is Colour.RED:
        g += rng.uniform(-10, 35) * drift
        b += rng.uniform(-10, 40) * drift
    else:
        grey = rng.uniform(-10, 45) * drift
        b, g, r = b + grey, g + grey, r + grey
        if edition.black_sheen:  # bronze or grey where light catches the ink
            sheen = rng.uniform(0, 1) * edition.black_sheen
            b, g, r = b + 25 * sheen, g + 45 * sheen, r + 70 * sheen
    base = np.array([b, g, r], np.float32)
    brightness = rng.uniform(0.75, 1.15)
    return np.clip(base * brightness + rng.normal(0, 6, 3), 0, 255)


def _paste_mask(dst: np.ndarray, mask: np.ndarray, cx: float, cy: float) -> None:
    """Max-combine ``mask`` into ``dst`` centred at (cx, cy), clipped to ``dst``."""
    mh, mw = mask.shape
    x0, y0 = int(round(cx - mw / 2)), int(round(cy - mh / 2))
    xa, ya = max(0, x0), max(0, y0)
    xb, yb = min(dst.shape[1], x0 + mw), min(dst.shape[0], y0 + mh)
    if xb <= xa or yb <= ya:
        return
    region = mask[ya - y0 : yb - y0, xa - x0 : xb - x0]
    np.maximum(dst[ya:yb, xa:xb], region, out=dst[ya:yb, xa:xb])


def _pick_font(rng: np.random.Generator, edition: Edition) -> str:
    if edition.fonts:
        fonts = _edition_fonts(edition)
        return fonts[int(rng.integers(0, len(fonts)))]
    names = font_names()
    n_ttf = len(_font_paths())
    # TTF fonts look most like real tiles: prefer them.
    if n_ttf and rng.random() < 0.8:
        return names[int(rng.integers(0, n_ttf))]
    return f"hershey-{int(rng.integers(0, len(_HERSHEY)))}"


def _number_mask(
    number: int, rng: np.random.Generator, h: int, w: int, edition: Edition = ASSORTED,
    font_shape: FontShape | None = None,
) -> tuple[np.ndarray, float, float, float]:
    """Mask of the number on an ``h×w`` face; returns the mask, its centre row, height and width.

    ``font_shape`` (training renders only) changes the glyph's shape, size and place at random;
    the digit still lies inside the face.
    """
    glyph = _cached_glyph(str(number), _pick_font(rng, edition))
    target_h = h * rng.uniform(*edition.digit_height)
    if font_shape is not None:
        glyph = reshape_glyph(glyph, rng, font_shape)
        size, shift_x, shift_y = place_jitter(rng, font_shape)
        target_h = min(target_h * size, h * 0.6)
    scale = target_h / glyph.shape[0]
    max_w = w * rng.uniform(0.72, 0.88)
    sx = min(scale * rng.uniform(0.9, 1.15), max_w / glyph.shape[1])
    gw, gh = max(1, int(round(glyph.shape[1] * sx))), max(1, int(round(target_h)))
    small = cv2.resize(glyph, (gw, gh), interpolation=cv2.INTER_AREA)
    low, high = edition.stroke
    weight = rng.uniform(low, high) if edition is not ASSORTED else float(rng.random() < 0.5)
    k = int(round(weight * h / 60))
    if k >= 1:  # bolder strokes
        small = cv2.dilate(small, np.ones((k, k), np.float32))
    mask = np.zeros((h, w), np.float32)
    cy = h * rng.uniform(0.27, 0.35)
    cx = w / 2 + rng.normal(0, w * 0.015)
    if font_shape is not None:  # moved, but kept inside the face (a margin of 4 % each side)
        small = small[: int(h * 0.92), : int(w * 0.92)]
        gh, gw = small.shape
        cx = float(np.clip(cx + shift_x * w, gw / 2 + w * 0.04, w * 0.96 - gw / 2))
        cy = float(np.clip(cy + shift_y * h, gh / 2 + h * 0.04, h * 0.96 - gh / 2))
    _paste_mask(mask, small, cx, cy)
    return mask, cy, gh, gw


_ASSORTED_MARKS = (Mark.DOT, Mark.BAR, Mark.RING)


def _mark_mask(rng: np.random.Generator, h: int, w: int, top: float, kind: Mark | None) -> np.ndarray:
    """The small mark under the number (a dot, bar, ring or emblem) that tells which way is up.

    ``kind=None`` (the assorted mix) draws the shape here, after the position, in the order the
    generator always drew them, so that old seeds still give the old pixels.
    """
    mask = np.zeros((h * 4, w * 4), np.uint8)
    cx, cy = w * 4 // 2, int((top + h * rng.uniform(0.07, 0.12)) * 4)
    if kind is None:
        kind = _ASSORTED_MARKS[int(rng.integers(0, 3))]
    size = h * 4 * rng.uniform(0.035, 0.06)
    if kind is Mark.DOT:
        cv2.circle(mask, (cx, cy), int(size), 255, -1, cv2.LINE_AA)
    elif kind is Mark.BAR:
        half_w = int(size * rng.uniform(1.6, 3.0))
        half_h = max(2, int(size * 0.45))
        cv2.rectangle(mask, (cx - half_w, cy - half_h), (cx + half_w, cy + half_h), 255, -1, cv2.LINE_AA)
    elif kind is Mark.RING:
        cv2.circle(mask, (cx, cy), int(size * 1.2), 255, max(2, int(size * 0.5)), cv2.LINE_AA)
    else:  # LOGO: a diamond inside a ring
        r = int(size * 1.6)
        cv2.circle(mask, (cx, cy), r, 255, max(2, int(size * 0.3)), cv2.LINE_AA)
        diamond = np.array([[cx, cy - r // 2], [cx + r // 2, cy], [cx, cy + r // 2], [cx - r // 2, cy]], np.int32)
        cv2.fillConvexPoly(mask, diamond, 255, cv2.LINE_AA)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _face(mask: np.ndarray, cx: int, cy: int, radius: int, thick: int, rng: np.random.Generator, flip: bool = False) -> None:
    """A smiling face in a circle, drawn into ``mask`` (upside down when ``flip``)."""
    sign = -1 if flip else 1
    cv2.circle(mask, (cx, cy), radius, 255, thick, cv2.LINE_AA)
    eye_dx, eye_dy, eye_r = int(radius * 0.38), int(radius * 0.3), max(2, int(radius * 0.13))
    cv2.circle(mask, (cx - eye_dx, cy - sign * eye_dy), eye_r, 255, -1, cv2.LINE_AA)
    cv2.circle(mask, (cx + eye_dx, cy - sign * eye_dy), eye_r, 255, -1, cv2.LINE_AA)
    mouth = (int(radius * 0.55), int(radius * rng.uniform(0.3, 0.5)))
    start, end = (15, 165) if not flip else (195, 345)
    cv2.ellipse(mask, (cx, cy + sign * int(radius * 0.1)), mouth, 0, start, end, 255, max(2, thick), cv2.LINE_AA)
    if rng.random() < 0.5:  # a nose
        cv2.circle(mask, (cx, cy + sign * int(radius * 0.05)), max(2, eye_r // 2), 255, -1, cv2.LINE_AA)


def _joker_mask(rng: np.random.Generator, h: int, w: int, face: JokerFace = JokerFace.SMILE) -> np.ndarray:
    """The joker's picture: a smiling face, two faces head to foot, a face under a jester's hat, or
    Okey's clover."""
    s = 4
    mask = np.zeros((h * s, w * s), np.uint8)
    cx = w * s // 2
    if face is JokerFace.CLOVER:
        cy = int(h * s * rng.uniform(0.32, 0.38))
        leaf = int(min(w * s * 0.16, h * s * 0.1))
        for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            cv2.circle(mask, (cx + dx * leaf, cy + dy * leaf), leaf, 255, -1, cv2.LINE_AA)
        cv2.line(mask, (cx, cy), (cx + leaf, cy + 3 * leaf), 255, max(2, leaf // 3), cv2.LINE_AA)
    elif face is JokerFace.TWO_FACED:
        radius = int(min(w * s * rng.uniform(0.26, 0.34), h * s * 0.17))
        thick = max(2, int(radius * rng.uniform(0.1, 0.2)))
        _face(mask, cx, int(h * s * 0.24), radius, thick, rng)
        _face(mask, cx, int(h * s * 0.62), radius, thick, rng, flip=True)
        cv2.line(mask, (int(w * s * 0.2), int(h * s * 0.43)), (int(w * s * 0.8), int(h * s * 0.43)), 255, thick, cv2.LINE_AA)
    else:
        cy = int(h * s * rng.uniform(0.3, 0.38))
        radius = int(min(w * s * rng.uniform(0.32, 0.42), h * s * 0.24))
        thick = max(2, int(radius * rng.uniform(0.1, 0.2)))
        if face is JokerFace.JESTER:
            cy = int(h * s * 0.42)
            radius = int(radius * 0.8)
            top = cy - radius
            points = np.array(
                [[cx - radius, top], [cx - radius * 1.3, top - radius * 1.1], [cx - radius * 0.3, top - radius * 0.4],
                 [cx, top - radius * 1.3], [cx + radius * 0.3, top - radius * 0.4], [cx + radius * 1.3, top - radius * 1.1],
                 [cx + radius, top]], np.int32)
            cv2.fillPoly(mask, [points], 255, cv2.LINE_AA)
        _face(mask, cx, cy, radius, thick, rng)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _plastic(rng: np.random.Generator, edition: Edition = ASSORTED) -> np.ndarray:
    """The body colour (BGR): the edition's tone, or ivory/cream/white for the assorted mix."""
    if edition.body is not None:
        return np.clip(np.array(edition.body, np.float32) + rng.normal(0, 4, 3), 0, 255)
    r = rng.uniform(236, 252)
    g = r - rng.uniform(2, 12)
    b = g - rng.uniform(0, 30)
    base = np.array([b, g, r], np.float32)
    if rng.random() < 0.25:  # near-white editions
        base = np.array([rng.uniform(238, 250)] * 3, np.float32) + rng.normal(0, 3, 3)
    return np.clip(base, 0, 255)


def _is_marked(number: int, edition: Edition) -> bool:
    if edition.marked is Marked.NONE:
        return False
    return edition.marked is Marked.ALL or number in (6, 9)


@dataclass(frozen=True, eq=False)
class NumberInk:
    """What a numbered tile's face has printed on it, upright: the number and its mark (``ink``,
    0..1 over the face), and the light disc behind the number some editions print (``disc``, over
    the whole tile, with its tone as a factor of the plastic's colour; None when there is none)."""

    ink: np.ndarray
    disc: np.ndarray | None = None
    disc_tone: float = 1.0


def number_ink(
    tile: Tile, rng: np.random.Generator, face_h: int, w: int, edition: Edition = ASSORTED,
    font_shape: FontShape | None = None, tile_h: int | None = None,
) -> NumberInk:
    """The printed number of ``tile`` (not a joker) on an upright ``face_h`` x ``w`` face of
    ``edition``: its digits, the mark under them where the edition has one, and the disc behind
    them (on a tile ``tile_h`` tall, the face and the side below it). What :func:`render_tile`
    prints, and what :mod:`datasets.synth.restyle` prints on real tiles."""
    assert tile.number is not None
    h = face_h if tile_h is None else tile_h
    number, centre, digit_h, digit_w = _number_mask(tile.number, rng, face_h, w, edition, font_shape)
    disc_mask, tone = None, 1.0
    if edition.digit_circle:
        disc = np.zeros((h * 4, w * 4), np.uint8)
        radius = int(max(digit_h * 0.75, digit_w * 0.62) * 4)
        cv2.circle(disc, (w * 2, int(centre * 4)), radius, 255, -1, cv2.LINE_AA)
        disc_mask = cv2.resize(disc, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        tone = float(rng.uniform(1.02, 1.08))
    bottom = centre + digit_h / 2
    if edition is ASSORTED:
        if rng.random() < 0.9:
            mark = _mark_mask(rng, face_h, w, bottom, None)
            number = np.maximum(number, mark * rng.uniform(0.5, 1.0))
    elif _is_marked(tile.number, edition):
        kind = edition.marks[int(rng.integers(0, len(edition.marks)))]
        mark = _mark_mask(rng, face_h, w, bottom, kind)
        number = np.maximum(number, mark * rng.uniform(0.7, 1.0))
    return NumberInk(number, disc_mask, tone)


#: Where a tile's number (or joker face) lies on its upright face, as shares of the tile's width
#: and height (x1, y1, x2, y2): the digit is centred at 27-35 % of the face's height, 27-38 % of it
#: tall and at most 88 % of the width wide (:func:`_number_mask`). A scene says how much of this
#: area shows, since a tile whose number is hidden cannot be read by anyone.
NUMBER_AREA = (0.1, 0.08, 0.9, 0.55)


def render_tile(
    tile: Tile | None, rng: np.random.Generator, height: int, edition: Edition = ASSORTED,
    font_shape: FontShape | None = None,
) -> np.ndarray:
    """Render ``tile`` (or a blank face for ``None``) of ``edition`` upright, ``height`` pixels tall, as BGRA.

    ``font_shape`` (:mod:`datasets.synth.font_shape`; training renders only) changes the digit's
    stroke, width, slant, warp, size and place at random; ``None`` draws the edition as defined.
    """
    if height < 8:
        raise ValueError(f"tile height must be at least 8 pixels, got {height}")
    aspect = rng.uniform(*edition.aspect)
    # Draw at a comfortable working size, then shrink with area averaging (anti-aliasing).
    work_h = int(np.clip(height * 2, 96, 320))
    work_w = max(8, int(round(work_h * aspect)))
    h, w = work_h, work_w

    side = int(round(h * rng.uniform(0.0, 0.13)))  # visible thickness at the bottom
    radius = w * rng.uniform(0.07, 0.16)
    body = _rounded_rect_mask(h, w, radius)
    face = _rounded_rect_mask(h, w, radius, 0, h - side) if side > 0 else body

    plastic = _plastic(rng, edition)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # Soft light falling across the face.
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(angle) * (xx / w - 0.5) + np.sin(angle) * (yy / h - 0.5)) * rng.uniform(0, 0.12)
    img = plastic[None, None, :] * (1.0 + ramp[..., None])

    # Bevel: darker near the face border.
    edge = cv2.GaussianBlur(face, (0, 0), sigmaX=max(1.0, w * 0.03))
    bevel = 1.0 - rng.uniform(0.08, 0.25) * (1.0 - np.clip(edge * 1.6 - 0.3, 0, 1))
    img *= bevel[..., None]

    # Lower part of many editions: a faint embossed panel line.
    if rng.random() < 0.6:
        y_line = int(h * rng.uniform(0.6, 0.7))
        cv2.line(img, (int(w * 0.12), y_line), (int(w * 0.88), y_line), (plastic * 0.88).tolist(), max(1, h // 90))

    # Side strip (the tile's thickness), darker and a bit warmer.
    if side > 0:
        side_colour = plastic * rng.uniform(0.6, 0.82) * np.array([0.93, 0.98, 1.0], np.float32)
        side_only = np.clip(body - face, 0, 1)[..., None]
        img = img * (1 - side_only) + side_colour[None, None, :] * side_only

    # Ink.
    face_h = h - side
    if tile is None:
        ink_mask = np.zeros((h, w), np.float32)
        ink = np.zeros(3, np.float32)
    elif tile.is_joker:
        if edition is ASSORTED:
            colour = [Colour.RED, Colour.BLACK, Colour.ORANGE, Colour.BLUE][int(rng.choice(4, p=[0.45, 0.4, 0.1, 0.05]))]
            face_kind = JokerFace.SMILE
        else:
            colour = edition.joker_inks[int(rng.integers(0, len(edition.joker_inks)))]
            face_kind = edition.jokers[int(rng.integers(0, len(edition.jokers)))]
        ink = _ink_colour(colour, rng, edition)
        ink_mask = np.zeros((h, w), np.float32)
        ink_mask[:face_h] = _joker_mask(rng, face_h, w, face_kind)
    else:
        assert tile.colour is not None
        ink = _ink_colour(tile.colour, rng, edition)
        ink_mask = np.zeros((h, w), np.float32)
        printed = number_ink(tile, rng, face_h, w, edition, font_shape, h)
        if printed.disc is not None:  # a light disc printed behind the number
            tone = np.clip(plastic * printed.disc_tone + 6, 0, 255)
            img = img * (1 - printed.disc[..., None]) + tone[None, None, :] * printed.disc[..., None]
        ink_mask[:face_h] = printed.ink
    ink_mask *= face
    img = img * (1 - ink_mask[..., None]) + ink[None, None, :] * ink_mask[..., None]

    # Glare: a soft bright spot that washes out plastic and ink alike.
    if rng.random() < 0.35:
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        sigma = rng.uniform(0.15, 0.5) * w
        glare = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)) * rng.uniform(0.3, 0.85)
        img = img * (1 - glare[..., None]) + 255.0 * glare[..., None]

    img = np.clip(img + rng.normal(0, 2.0, img.shape), 0, 255)
    out = np.dstack([img, body * 255.0]).astype(np.float32)
    width = max(4, int(round(height * aspect)))
    small = cv2.resize(out, (width, height), interpolation=cv2.INTER_AREA)
    return np.clip(np.round(small), 0, 255).astype(np.uint8)
