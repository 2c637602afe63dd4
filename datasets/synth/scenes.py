"""Compose synthetic photos of Rummikub tables and racks with exact labels.

API::

    compose_scene(rng, width=None, height=None, kind=None, editions=(ASSORTED,), distractors=0,
                  tile_px=None, rack_ends=0.0, deal=None, one_set=False) -> Scene
    Scene(image, tiles: tuple[PlacedTile, ...], melds: tuple[tuple[int, ...], ...], kind, edition, distractors, hidden)
    PlacedTile(tile, corners, box, visible, number_visible)
    REAL_CLASS_NAMES, real_class_index(tile)   # the real dataset's 53-class order

A scene is laid out on a flat "table plane" (melds of touching tiles in any orientation, loose
tiles, overlaps, clutter; a rack with one or two tiers; a *close-up* of a rack, 1-3 tiers of
touching upright tiles filling the frame, shot frontally, from the side or in strong perspective; or
a spaced *grid* of tiles shot from above, any way round) and then photographed: a homography gives
perspective, zoom (tiles cut off at the borders) and the phone's rotation, and
:func:`datasets.synth.camera.photograph` adds light, colour cast, blur and noise.

One scene shows one tile edition (drawn from ``editions``, see :mod:`datasets.synth.editions`);
``distractors`` objects (rack ends, logos, wood knots, keyboard keys, face-down tiles, dice, coins;
:mod:`datasets.synth.distractors`) are painted under the tiles and reported in
``Scene.distractors`` as boxes (at least 70 % in view, not under a tile), never as tiles.

Labels are exact: ``corners`` are the tile's four corners in image pixels in the tile's own
upright order (top-left, top-right, bottom-right, bottom-left of the face as read), so a crop can
be rectified; ``box`` is the corner polygon's extent clipped to the image; ``visible`` is the
fraction of the tile not hidden by other tiles or the image border, ``number_visible`` the same of
the area its number lies in (:data:`datasets.synth.tiles.NUMBER_AREA`: a tile whose number is
hidden is there, but no one can read it). Tiles less than ``MIN_VISIBLE`` visible are not labelled;
their boxes are in ``Scene.hidden``. ``melds`` lists, per meld (table) or tier (rack), the
indices of its labelled tiles in reading order; a loose tile is a one-tile meld.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.synth.backgrounds import add_clutter, background
from datasets.synth.camera import photograph
from datasets.synth.distractors import DISTRACTOR_KINDS, paint_distractor, paint_rack_ends
from datasets.synth.editions import ASSORTED, Edition
from datasets.synth.tiles import NUMBER_AREA, render_tile
from solver.tiles import ALL_NUMBERED, JOKER, Colour, Tile

__all__ = [
    "Scene",
    "PlacedTile",
    "compose_scene",
    "random_meld",
    "REAL_CLASS_NAMES",
    "real_class_index",
    "MIN_VISIBLE",
    "SCENE_KINDS",
]

#: The real dataset's class names in its data.yaml order (Roboflow sorts names alphabetically).
REAL_CLASS_NAMES: tuple[str, ...] = tuple(
    sorted([f"{c.value}_{n}" for c in Colour for n in range(1, 14)] + ["joker"])
)
_REAL_INDEX = {name: i for i, name in enumerate(REAL_CLASS_NAMES)}

MIN_VISIBLE = 0.3
SCENE_KINDS = ("table", "rack", "closeup", "grid")
#: Share of a distractor's box that must be in view and not under a tile for it to be reported.
DISTRACTOR_MIN_VISIBLE = 0.7
_SIZES = ((960, 720), (720, 960), (800, 800), (1024, 576), (576, 1024), (640, 480), (480, 640))


def real_class_index(tile: Tile) -> int:
    """Index of ``tile`` in the real dataset's 53 classes (``black_1, black_10, ...``)."""
    name = "joker" if tile.is_joker else f"{tile.colour.value}_{tile.number}"  # type: ignore[union-attr]
    return _REAL_INDEX[name]


@dataclass(frozen=True, eq=False)
class PlacedTile:
    tile: Tile
    corners: np.ndarray  # (4, 2) float32: upright face's TL, TR, BR, BL in image pixels
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in image pixels, clipped
    visible: float
    #: Share of the tile's number area (:data:`NUMBER_AREA`) in view and not under another tile.
    number_visible: float = 1.0


@dataclass(frozen=True, eq=False)
class Scene:
    image: np.ndarray  # BGR uint8
    tiles: tuple[PlacedTile, ...]
    melds: tuple[tuple[int, ...], ...]
    kind: str
    edition: str = ASSORTED.name
    #: Boxes (x1, y1, x2, y2, image pixels) of the distractors in view: background, not tiles.
    distractors: tuple[tuple[float, float, float, float], ...] = ()
    #: Boxes of the tiles in view but too little to label (under ``MIN_VISIBLE``): tiles all the same.
    hidden: tuple[tuple[float, float, float, float], ...] = ()


@dataclass
class _Placement:
    patch: np.ndarray  # BGRA tile image, upright
    matrix: np.ndarray  # 2x3 affine: patch pixels -> plane pixels
    tile: Tile
    group: int  # meld/tier id, in paint order


def random_meld(rng: np.random.Generator, joker_rate: float = 0.12) -> list[Tile]:
    """A valid run or group, in reading order, sometimes with a joker standing in."""
    if rng.random() < 0.55:
        length = int(rng.choice([3, 3, 3, 4, 4, 5, 6, 7, 9, 13][: 10]))
        start = int(rng.integers(1, 15 - length))
        colour = list(Colour)[int(rng.integers(0, 4))]
        tiles = [Tile(colour, n) for n in range(start, start + length)]
    else:
        number = int(rng.integers(1, 14))
        colours = list(rng.permutation(list(Colour)))[: int(rng.integers(3, 5))]
        tiles = [Tile(c, number) for c in colours]
    if rng.random() < joker_rate:
        tiles[int(rng.integers(0, len(tiles)))] = JOKER
    return tiles


def _random_tile(rng: np.random.Generator) -> Tile:
    index = int(rng.integers(0, 53))
    return JOKER if index == 52 else ALL_NUMBERED[index]


class _OneSet:
    """The tiles left of one set (two of each tile, two jokers): a photo of one game shows no tile
    more often than the game holds it, which drawing each tile at random does not ensure."""

    def __init__(self) -> None:
        self.left: Counter[Tile] = Counter({tile: 2 for tile in ALL_NUMBERED})
        self.left[JOKER] = 2

    def tile(self, rng: np.random.Generator) -> Tile | None:
        """One tile drawn from those left (None when none is)."""
        bag = [tile for tile in sorted(self.left, key=lambda t: t.index) for _ in range(self.left[tile])]
        if not bag:
            return None
        tile = bag[int(rng.integers(0, len(bag)))]
        self.left[tile] -= 1
        return tile

    def meld(self, rng: np.random.Generator) -> list[Tile] | None:
        """A random meld (:func:`random_meld`) whose tiles are all left, taken (None after 20 tries)."""
        for _ in range(20):
            meld = random_meld(rng)
            need = Counter(meld)
            if all(self.left[tile] >= n for tile, n in need.items()):
                self.left.subtract(need)
                return meld
        return None

    def put_back(self, tiles: Sequence[Tile]) -> None:
        self.left.update(tiles)


def _draw_tile(rng: np.random.Generator, pool: _OneSet | None) -> Tile | None:
    """A tile drawn at random, or from ``pool`` when one is given."""
    return _random_tile(rng) if pool is None else pool.tile(rng)


def _rotation(theta_deg: float, cx: float, cy: float, px: float, py: float) -> np.ndarray:
    """Affine that maps patch point (px, py) to plane (cx, cy), rotating by ``theta_deg`` clockwise."""
    t = np.deg2rad(theta_deg)
    c, s = np.cos(t), np.sin(t)
    rot = np.array([[c, -s], [s, c]], np.float32)
    offset = np.array([cx, cy], np.float32) - rot @ np.array([px, py], np.float32)
    return np.hstack([rot, offset[:, None]]).astype(np.float32)


def _patch_corners(patch: np.ndarray) -> np.ndarray:
    h, w = patch.shape[:2]
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def _apply_affine(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return points @ matrix[:, :2].T + matrix[:, 2]


def _meld_angle(rng: np.random.Generator, style: str) -> float:
    if style == "any":
        return float(rng.uniform(0, 360))
    base = float(rng.choice([0, 180, 90, 270], p=[0.55, 0.25, 0.1, 0.1]))
    return base + float(rng.normal(0, 6 if style == "tidy" else 20))


def _median_height(placements: Sequence[_Placement]) -> float | None:
    """The median height of the placed tiles' faces on the plane (None: no tile placed)."""
    return float(np.median([p.patch.shape[0] for p in placements])) if placements else None


def _table_layout(
    rng: np.random.Generator, wp: int, hp: int, edition: Edition = ASSORTED, tile_px: float | None = None,
    deal: Sequence[Sequence[Tile]] | None = None, pool: _OneSet | None = None, keep_clear: Sequence[np.ndarray] = (),
) -> list[_Placement]:
    """Melds and loose tiles laid out on the plane: drawn at random (from ``pool`` when given), or
    the melds ``deal`` gives, in order (those that find no room are left out). No meld touches the
    polygons ``keep_clear`` gives (plane corners, as a rack's): the layout's own melds may overlap
    now and then, as tiles pushed together do, but nothing lies on a rack."""
    drawn = float(np.exp(rng.uniform(np.log(20), np.log(150))))  # drawn even when given: seeds keep their scenes
    tile_h = drawn if tile_px is None else float(tile_px)
    style = str(rng.choice(["tidy", "messy", "any"], p=[0.5, 0.3, 0.2]))
    occupancy = np.zeros((hp // 4 + 1, wp // 4 + 1), np.uint8)
    blocked = np.zeros_like(occupancy)
    for polygon in keep_clear:
        cv2.fillConvexPoly(blocked, np.round(np.asarray(polygon, np.float32) / 4).astype(np.int32), 1)
    placements: list[_Placement] = []
    capacity = wp * hp / (tile_h * tile_h * 0.7)
    target_tiles = int(min(110, capacity * rng.uniform(0.1, 0.45))) + 1
    queue = None if deal is None else [list(meld) for meld in deal if meld]
    if queue is not None:
        target_tiles = sum(len(meld) for meld in queue)
    placed_tiles = 0
    group = 0
    attempts = 0
    while placed_tiles < target_tiles and attempts < (60 if queue is None else 30 * len(deal or ())):
        attempts += 1
        if queue is None:
            loose = rng.random() < 0.2
            if pool is None:
                tiles = [_random_tile(rng)] if loose else random_meld(rng)
            else:
                taken = [pool.tile(rng)] if loose else pool.meld(rng)
                if taken is None or None in taken:
                    break  # what is left of the set makes no meld
                tiles = taken  # type: ignore[assignment]
        else:
            tiles = queue[0]
            loose = len(tiles) == 1
        height = tile_h * rng.uniform(0.95, 1.05)
        patches = [render_tile(t, rng, max(8, int(round(height))), edition) for t in tiles]
        gaps = [0.0] + [
            float(rng.choice([0.0, rng.uniform(0, 0.04), rng.uniform(0.04, 0.15)], p=[0.5, 0.4, 0.1])) * height
            for _ in tiles[1:]
        ]
        widths = [p.shape[1] for p in patches]
        offsets = np.cumsum(np.array(gaps) + np.array([0] + widths[:-1], np.float32))
        length = offsets[-1] + widths[-1]
        angle = float(rng.uniform(0, 360)) if loose else _meld_angle(rng, style)
        margin = height * float(rng.choice([0.05, rng.uniform(0.2, 0.8)], p=[0.25, 0.75]))
        cx, cy = rng.uniform(-0.05, 1.05) * wp, rng.uniform(-0.05, 1.05) * hp
        rect = cv2.boxPoints(((cx, cy), (length + 2 * margin, height + 2 * margin), angle)).astype(np.float32)
        footprint = np.zeros_like(occupancy)
        cv2.fillConvexPoly(footprint, np.round(rect / 4).astype(np.int32), 1)
        overlap_ok = rng.random() < 0.08
        if np.any(footprint & blocked) or (not overlap_ok and np.any(footprint & occupancy)):
            if pool is not None and queue is None:
                pool.put_back(tiles)
            continue
        cv2.fillConvexPoly(
            occupancy, np.round(cv2.boxPoints(((cx, cy), (length, height), angle)) / 4).astype(np.int32), 1
        )
        for patch, tile, offset in zip(patches, tiles, offsets):
            # Tile centre in the meld's frame: along x from the meld's left end.
            local_x = offset + patch.shape[1] / 2 - length / 2
            t = np.deg2rad(angle)
            tx, ty = cx + local_x * np.cos(t), cy + local_x * np.sin(t)
            jitter = float(rng.normal(0, 1.5)) if style != "any" else 0.0
            matrix = _rotation(angle + jitter, tx, ty, patch.shape[1] / 2, patch.shape[0] / 2)
            placements.append(_Placement(patch, matrix, tile, group))
        placed_tiles += len(tiles)
        group += 1
        if queue is not None:
            queue.pop(0)
            if not queue:
                break
    return placements


def _rack_layout(
    rng: np.random.Generator, wp: int, hp: int, canvas: np.ndarray, edition: Edition = ASSORTED, rack_ends: float = 0.0,
    caps: list[np.ndarray] | None = None, deal: Sequence[Tile] | None = None, pool: _OneSet | None = None,
) -> tuple[list[_Placement], np.ndarray]:
    """A rack of 1-2 tiers on the table, of random tiles (from ``pool`` when given) or of ``deal``'s
    in order, and the rack's corners on the plane; with probability ``rack_ends`` its end caps are
    painted and their corners added to ``caps``."""
    if deal is None:
        tiers = 1 if rng.random() < 0.4 else 2
        per_tier = [int(rng.integers(3, 19)) for _ in range(tiers)]
    else:
        per_tier = _tiers_of(len(deal), 1 if len(deal) <= 10 else 2)
        tiers = len(per_tier)
    queue = None if deal is None else list(deal)
    tile_h = min(hp / (tiers * 1.6 + 0.6), wp / (max(per_tier) * 0.8 + 1)) * rng.uniform(0.5, 0.95)
    tile_w = tile_h * 0.7
    rack_w = min(wp * 0.98, max(per_tier) * tile_w * rng.uniform(1.05, 1.5) + tile_w)
    x0 = rng.uniform(0.01 * wp, wp - rack_w)
    tier_pitch = tile_h * rng.uniform(1.3, 1.5)
    y0 = rng.uniform(0.1 * hp, max(0.1 * hp + 1, hp - tiers * tier_pitch - 0.3 * tile_h))
    body = _rack_body(rng)
    top = int(y0 - 0.3 * tile_h)
    bottom = y0 + tiers * tier_pitch
    cv2.rectangle(canvas, (int(x0), top), (int(x0 + rack_w), int(bottom)), body, -1, cv2.LINE_AA)
    rack = np.array([[x0, top], [x0 + rack_w, top], [x0 + rack_w, bottom], [x0, bottom]], np.float32)
    if caps is not None and rack_ends > 0 and rng.random() < rack_ends:  # no draw when off: old scenes stay
        caps += paint_rack_ends(canvas, rng, x0, x0 + rack_w, top, bottom, tile_w, body)
    placements: list[_Placement] = []
    for tier in range(tiers):
        base_y = y0 + tier * tier_pitch + tile_h
        ledge = tuple(min(255.0, c * rng.uniform(1.1, 1.6) + 10) for c in body)
        cv2.rectangle(canvas, (int(x0), int(base_y)), (int(x0 + rack_w), int(base_y + 0.28 * tile_h)), ledge, -1, cv2.LINE_AA)
        cv2.line(canvas, (int(x0), int(base_y)), (int(x0 + rack_w), int(base_y)), tuple(min(255.0, c + 40) for c in ledge), 1, cv2.LINE_AA)
        x = x0 + rng.uniform(0.1, 0.5) * tile_w
        for _ in range(per_tier[tier]):
            tile = _draw_tile(rng, pool) if queue is None else queue.pop(0)
            if tile is None:
                break
            patch = render_tile(tile, rng, max(8, int(round(tile_h * rng.uniform(0.97, 1.03)))), edition)
            pw, ph = patch.shape[1], patch.shape[0]
            if x + pw > x0 + rack_w:
                break
            matrix = _rotation(float(rng.normal(0, 1.0)), x + pw / 2, base_y - ph / 2, pw / 2, ph / 2)
            placements.append(_Placement(patch, matrix, tile, tier))
            gap = float(rng.choice([0.0, rng.uniform(0, 0.05), rng.uniform(0.3, 1.5)], p=[0.5, 0.4, 0.1]))
            x += pw + gap * pw
    return placements, rack


def _tiers_of(count: int, tiers: int) -> list[int]:
    """``count`` tiles shared over ``tiers`` tiers as evenly as may be, the upper tiers fuller."""
    tiers = max(1, min(tiers, count))
    return [count // tiers + (1 if t < count % tiers else 0) for t in range(tiers)]


def _rack_body(rng: np.random.Generator) -> tuple[float, ...]:
    if rng.random() < 0.6:
        return tuple(float(c) for c in rng.uniform(10, 120, 3))
    return tuple([float(rng.uniform(15, 60))] * 3)


def _closeup_layout(
    rng: np.random.Generator, wp: int, hp: int, canvas: np.ndarray, edition: Edition, rack_ends: float = 0.0,
    caps: list[np.ndarray] | None = None, deal: Sequence[Tile] | None = None, pool: _OneSet | None = None,
) -> list[_Placement]:
    """A rack filling the frame: 1-3 tiers of touching upright tiles (about a ninth of the width each),
    random (from ``pool`` when given) or ``deal``'s in order; with probability ``rack_ends`` the
    rack's end caps beside them (corners added to ``caps``)."""
    if deal is None:
        tiers = int(rng.choice([1, 2, 3], p=[0.25, 0.35, 0.4]))
        per_tier = int(rng.choice([int(rng.integers(3, 8)), int(rng.integers(8, 11)), int(rng.integers(11, 15))], p=[0.2, 0.6, 0.2]))
        counts = None
    else:
        counts = _tiers_of(len(deal), 1 if len(deal) <= 7 else 2 if len(deal) <= 16 else 3)
        tiers, per_tier = len(counts), max(counts)
    queue = None if deal is None else list(deal)
    aspect = float(np.mean(edition.aspect))
    tile_w = wp * rng.uniform(0.85, 1.0) / per_tier
    tile_h = tile_w / aspect
    pitch_share = rng.uniform(1.1, 1.3)
    fit = hp * rng.uniform(0.9, 1.1) / (tiers * tile_h * pitch_share + 0.2 * tile_h)
    if fit < 1:
        tile_h *= fit
        tile_w *= fit
    pitch = tile_h * pitch_share
    body = _rack_body(rng)
    rack_w = min(wp * 1.05, per_tier * tile_w * rng.uniform(1.0, 1.08) + tile_w * 0.3)
    x0 = (wp - rack_w) / 2 + rng.normal(0, wp * 0.02)
    y0 = (hp - tiers * pitch) / 2 + tile_h * 0.1
    cv2.rectangle(canvas, (int(x0), int(y0 - 0.2 * tile_h)), (int(x0 + rack_w), int(y0 + tiers * pitch + 0.2 * tile_h)), body, -1, cv2.LINE_AA)
    if caps is not None and rack_ends > 0 and rng.random() < rack_ends:  # no draw when off: old scenes stay
        caps += paint_rack_ends(canvas, rng, x0, x0 + rack_w, y0 - 0.2 * tile_h, y0 + tiers * pitch + 0.2 * tile_h, tile_w, body)
    placements: list[_Placement] = []
    for tier in range(tiers):
        base_y = y0 + tier * pitch + tile_h
        ledge = tuple(min(255.0, c * rng.uniform(1.1, 1.6) + 10) for c in body)
        cv2.rectangle(canvas, (int(x0), int(base_y)), (int(x0 + rack_w), int(base_y + (pitch - tile_h) * 0.8)), ledge, -1, cv2.LINE_AA)
        x = x0 + rng.uniform(0.0, 0.2) * tile_w
        if counts is None:
            count = per_tier if rng.random() < 0.7 else int(rng.integers(max(1, per_tier // 2), per_tier + 1))
        else:
            count = counts[tier]
        for _ in range(count):
            tile = _draw_tile(rng, pool) if queue is None else queue.pop(0)
            if tile is None:
                break
            patch = render_tile(tile, rng, max(8, int(round(tile_h * rng.uniform(0.98, 1.02)))), edition)
            pw, ph = patch.shape[1], patch.shape[0]
            if x + pw > x0 + rack_w + 0.5 * pw:
                break
            matrix = _rotation(float(rng.normal(0, 1.2)), x + pw / 2, base_y - ph / 2, pw / 2, ph / 2)
            placements.append(_Placement(patch, matrix, tile, tier))
            x += pw * (1.0 + float(rng.choice([0.0, rng.uniform(0, 0.03), rng.uniform(0.05, 0.4)], p=[0.6, 0.3, 0.1])))
    return placements


def _grid_layout(rng: np.random.Generator, wp: int, hp: int, edition: Edition, pool: _OneSet | None = None) -> list[_Placement]:
    """Tiles laid out in a spaced grid, shot from above: every tile the same way round, or any way
    (random tiles, or from ``pool`` when given, until it is used up)."""
    tile_h = float(np.exp(rng.uniform(np.log(min(wp, hp) / 14), np.log(min(wp, hp) / 3.2))))
    spacing = rng.uniform(0.15, 1.0)
    step_x, step_y = tile_h * (0.75 + spacing), tile_h * (1.0 + spacing)
    cols, rows = max(1, int(wp / step_x)), max(1, int(hp / step_y))
    turn = float(rng.choice([0, 90, 180, 270]))
    any_way = rng.random() < 0.3
    placements: list[_Placement] = []
    ox, oy = (wp - (cols - 1) * step_x) / 2, (hp - (rows - 1) * step_y) / 2
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.15:
                continue
            tile = _draw_tile(rng, pool)
            if tile is None:
                return placements
            patch = render_tile(tile, rng, max(8, int(round(tile_h))), edition)
            angle = float(rng.uniform(0, 360)) if any_way else turn + float(rng.normal(0, 3))
            matrix = _rotation(angle, ox + c * step_x, oy + r * step_y, patch.shape[1] / 2, patch.shape[0] / 2)
            placements.append(_Placement(patch, matrix, tile, r * cols + c))
    return placements


def _paint_distractors(
    canvas: np.ndarray, rng: np.random.Generator, count: int, size: float, edition: Edition
) -> list[np.ndarray]:
    """Paint ``count`` distractors about ``size`` px across on the plane; their corners."""
    h, w = canvas.shape[:2]
    corners = []
    for _ in range(count):
        kind = DISTRACTOR_KINDS[int(rng.integers(0, len(DISTRACTOR_KINDS)))]
        centre = (float(rng.uniform(0.05, 0.95) * w), float(rng.uniform(0.05, 0.95) * h))
        corners.append(paint_distractor(canvas, rng, kind, centre, size * float(rng.uniform(0.8, 1.3)), edition))
    return corners


def _number_corners(patch: np.ndarray) -> np.ndarray:
    """The corners of the patch's :data:`NUMBER_AREA`, in patch pixels (TL, TR, BR, BL)."""
    h, w = patch.shape[:2]
    x1, y1, x2, y2 = NUMBER_AREA
    return np.array([[x1 * w, y1 * h], [x2 * w, y1 * h], [x2 * w, y2 * h], [x1 * w, y2 * h]], np.float32)


def _paint(
    canvas: np.ndarray, placements: list[_Placement], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Paint shadows then tiles onto ``canvas``; return the id map (0 = no tile, i+1 = placement
    i) and the same map of the tiles' number areas (a tile painted later hides both)."""
    h, w = canvas.shape[:2]
    ids = np.zeros((h, w), np.uint16)
    number_ids = np.zeros((h, w), np.uint16)
    shadow = np.zeros((h, w), np.float32)
    windows: list[tuple[np.ndarray, int, int, int, int]] = []
    light = rng.normal(0, 1, 2)
    light = light / max(np.linalg.norm(light), 1e-6)
    for index, placement in enumerate(placements):
        corners = _apply_affine(placement.matrix, _patch_corners(placement.patch))
        x1, y1 = np.floor(corners.min(axis=0)).astype(int) - 1
        x2, y2 = np.ceil(corners.max(axis=0)).astype(int) + 1
        xa, ya, xb, yb = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
        if xb <= xa or yb <= ya:
            continue
        local = placement.matrix.copy()
        local[:, 2] -= (xa, ya)
        warped = cv2.warpAffine(placement.patch, local, (xb - xa, yb - ya), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        placement_alpha = warped[..., 3:].astype(np.float32) / 255.0
        size = placement.patch.shape[0]
        dx, dy = (light * size * 0.08).astype(int)
        sx1, sy1, sx2, sy2 = xa + dx, ya + dy, xb + dx, yb + dy
        cxa, cya, cxb, cyb = max(0, sx1), max(0, sy1), min(w, sx2), min(h, sy2)
        if cxb > cxa and cyb > cya:
            shadow[cya:cyb, cxa:cxb] = np.maximum(
                shadow[cya:cyb, cxa:cxb], placement_alpha[cya - sy1 : cyb - sy1, cxa - sx1 : cxb - sx1, 0]
            )
        windows.append((warped, xa, ya, xb, yb))
        cv2.fillConvexPoly(ids, np.round(corners).astype(np.int32), index + 1)
        cv2.fillConvexPoly(number_ids, np.round(corners).astype(np.int32), 0)
        number = _apply_affine(placement.matrix, _number_corners(placement.patch))
        cv2.fillConvexPoly(number_ids, np.round(number).astype(np.int32), index + 1)
    blur = max(1.0, float(np.median([p.patch.shape[0] for p in placements])) * 0.08) if placements else 1.0
    shadow = cv2.GaussianBlur(shadow, (0, 0), sigmaX=blur) * rng.uniform(0.25, 0.6)
    canvas[:] = np.clip(canvas.astype(np.float32) * (1 - shadow[..., None]), 0, 255).astype(np.uint8)
    for warped, xa, ya, xb, yb in windows:
        alpha = warped[..., 3:].astype(np.float32) / 255.0
        region = canvas[ya:yb, xa:xb].astype(np.float32)
        canvas[ya:yb, xa:xb] = (region * (1 - alpha) + warped[..., :3] * alpha).astype(np.uint8)
    return ids, number_ids


def _camera(rng: np.random.Generator, wp: int, hp: int, wo: int, ho: int, kind: str, quarter: int) -> np.ndarray:
    """Homography from the plane to the photo: zoom, tilt (perspective), rotation, shift."""
    if kind in ("closeup", "grid"):
        return _near_camera(rng, wp, hp, wo, ho, kind, quarter)
    zoom = rng.uniform(0.85, 1.25)
    squeeze = rng.uniform(0.7, 1.0) if kind == "table" else rng.uniform(0.75, 1.0)
    top = rng.uniform(0.65, 1.0) if rng.random() < 0.7 else 1.0
    # Unrotated frame has the plane's aspect; quarter turns map it onto the photo.
    fw, fh = (wo, ho) if quarter % 2 == 0 else (ho, wo)
    half_w, half_h = fw * zoom / 2, fh * zoom * squeeze / 2
    dst = np.array(
        [[-half_w * top, -half_h], [half_w * top, -half_h], [half_w, half_h], [-half_w, half_h]], np.float32
    )
    if rng.random() < 0.5:  # the near (wider) edge may be the top: photographed from the other side
        dst = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w * top, half_h], [-half_w * top, half_h]], np.float32)
    angle = np.deg2rad(90 * quarter + rng.normal(0, 4 if kind == "rack" else 8))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    shift = np.array([wo / 2 + rng.normal(0, wo * 0.04), ho / 2 + rng.normal(0, ho * 0.04)], np.float32)
    dst = dst @ rot.T + shift
    src = np.array([[0, 0], [wp, 0], [wp, hp], [0, hp]], np.float32)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def _near_camera(rng: np.random.Generator, wp: int, hp: int, wo: int, ho: int, kind: str, quarter: int) -> np.ndarray:
    """Close-ups: frontal, from the side (about 30 degrees: one end nearer) or in strong perspective."""
    zoom = rng.uniform(0.95, 1.2)
    fw, fh = (wo, ho) if quarter % 2 == 0 else (ho, wo)
    half_w, half_h = fw * zoom / 2, fh * zoom / 2
    view = str(rng.choice(["front", "side", "steep"], p=[0.4, 0.3, 0.3])) if kind == "closeup" else "front"
    left = right = top = bottom = 1.0
    if view == "front":
        top = rng.uniform(0.85, 1.0)
    elif view == "side":  # one end of the rack nearer the camera
        near = rng.uniform(0.6, 0.8)
        left, right = (near, 1.0) if rng.random() < 0.5 else (1.0, near)
    else:
        top = rng.uniform(0.5, 0.7)
    dst = np.array([
        [-half_w * top, -half_h * left], [half_w * top, -half_h * right],
        [half_w * bottom, half_h * right], [-half_w * bottom, half_h * left],
    ], np.float32)
    angle = np.deg2rad(90 * quarter + rng.normal(0, 5))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    shift = np.array([wo / 2 + rng.normal(0, wo * 0.03), ho / 2 + rng.normal(0, ho * 0.03)], np.float32)
    dst = dst @ rot.T + shift
    src = np.array([[0, 0], [wp, 0], [wp, hp], [0, hp]], np.float32)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def compose_scene(
    rng: np.random.Generator,
    width: int | None = None,
    height: int | None = None,
    kind: str | None = None,
    editions: tuple[Edition, ...] = (ASSORTED,),
    distractors: int = 0,
    tile_px: float | None = None,
    rack_ends: float = 0.0,
    deal: Sequence[Sequence[Tile]] | None = None,
    one_set: bool = False,
) -> Scene:
    """Render one labelled photo of one of ``editions`` with ``distractors`` non-tiles. Same ``rng``, same scene.

    ``tile_px`` is the height of a table's tiles on the plane, in pixels (default: drawn, 20-150 px
    whatever the photo's size); racks, close-ups and grids size their tiles by the frame and ignore it.
    ``rack_ends`` is the chance that a rack or close-up shows the rack's end caps beside its tiers
    (reported with the distractors; 0 draws nothing, so older scenes keep their pixels).
    ``deal`` gives the tiles instead of drawing them, as a game dealt them: a table's melds (in
    order; a meld that finds no room is left out), or a rack's or close-up's tiles as one sequence in
    reading order (tiers filled in turn). Only tables, racks and close-ups take one. ``one_set``
    draws the random tiles from one set (two of each, two jokers), as a photo of one game shows them.
    """
    if kind is None:
        kind = "table" if rng.random() < 0.75 else "rack"
    if kind not in SCENE_KINDS:
        raise ValueError(f"unknown scene kind {kind!r}; choose from {', '.join(SCENE_KINDS)}")
    if not editions:
        raise ValueError("compose_scene needs at least one edition")
    if deal is not None and (kind == "grid" or not any(deal)):
        raise ValueError("a deal needs tiles, and a table, rack or close-up to show them")
    edition = editions[0] if len(editions) == 1 else editions[int(rng.integers(0, len(editions)))]
    if width is None or height is None:
        width, height = _SIZES[int(rng.integers(0, len(_SIZES)))]
    quarter = int(rng.choice([0, 1, 2, 3], p=[0.7, 0.1, 0.1, 0.1]))
    if kind == "closeup":  # the rack lies along the plane's longer side, whichever way the phone is held
        wp, hp = (max(width, height), min(width, height))
        quarter = (0 if width >= height else 1) + 2 * int(rng.random() < 0.15)
    else:
        wp, hp = (width, height) if quarter % 2 == 0 else (height, width)
    canvas = background(rng, wp, hp)
    add_clutter(canvas, rng, int(rng.integers(0, 5)))
    caps: list[np.ndarray] = []
    pool = _OneSet() if one_set and deal is None else None
    if kind == "table":
        placements = _table_layout(rng, wp, hp, edition, tile_px, deal, pool)
    elif kind == "closeup":
        placements = _closeup_layout(rng, wp, hp, canvas, edition, rack_ends, caps, _in_order(deal), pool)
    elif kind == "grid":
        placements = _grid_layout(rng, wp, hp, edition, pool)
    else:
        placements, rack = _rack_layout(rng, wp, hp, canvas, edition, rack_ends, caps, _in_order(deal), pool)
        if deal is None and rng.random() < 0.3:  # a few tiles of the same set lying on the table beside the rack
            extra = _table_layout(rng, wp, hp, edition, _median_height(placements), pool=pool, keep_clear=[rack, *caps])
            extra = extra[: int(rng.integers(1, 6))]
            for p in extra:
                p.group += 1000
            placements += extra
    tile_size = _median_height(placements) or min(wp, hp) / 10
    distractor_corners = _paint_distractors(canvas, rng, distractors, tile_size, edition) if distractors else []
    distractor_corners = caps + distractor_corners
    bare = canvas.copy()  # the table without tiles, to fill what the camera sees beyond the plane
    corners_plane = [_apply_affine(p.matrix, _patch_corners(p.patch)) for p in placements]
    groups = [p.group for p in placements]
    tiles = [p.tile for p in placements]
    ids, number_ids = _paint(canvas, placements, rng)

    homography = _camera(rng, wp, hp, width, height, kind, quarter)
    image = cv2.warpPerspective(canvas, homography, (width, height), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    covered = cv2.warpPerspective(np.ones((hp, wp), np.uint8), homography, (width, height), flags=cv2.INTER_NEAREST)
    beyond = cv2.warpPerspective(bare, homography, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    covered = cv2.erode(covered, np.ones((3, 3), np.uint8))  # the plane's anti-aliased rim comes from `beyond`
    image = np.where(covered[..., None] > 0, image, beyond)
    id_image = cv2.warpPerspective(ids, homography, (width, height), flags=cv2.INTER_NEAREST, borderValue=0)
    counts = np.bincount(id_image.ravel(), minlength=len(placements) + 1)
    number_image = cv2.warpPerspective(number_ids, homography, (width, height), flags=cv2.INTER_NEAREST, borderValue=0)
    number_counts = np.bincount(number_image.ravel(), minlength=len(placements) + 1)
    numbers_plane = [_apply_affine(p.matrix, _number_corners(p.patch)) for p in placements]
    image = photograph(image, rng)

    placed: list[PlacedTile] = []
    hidden: list[tuple[float, float, float, float]] = []
    index_of: dict[int, int] = {}
    for i, corners in enumerate(corners_plane):
        projected = cv2.perspectiveTransform(corners[None], homography)[0]
        area = abs(cv2.contourArea(projected))
        if area <= 1:
            continue
        visible = float(min(1.0, counts[i + 1] / area))
        x1, y1 = np.clip(projected.min(axis=0), 0, (width, height))
        x2, y2 = np.clip(projected.max(axis=0), 0, (width, height))
        if x2 - x1 < 3 or y2 - y1 < 3:
            continue
        if visible < MIN_VISIBLE:
            if counts[i + 1] > 0:
                hidden.append((float(x1), float(y1), float(x2), float(y2)))
            continue
        index_of[i] = len(placed)
        number_area = abs(cv2.contourArea(cv2.perspectiveTransform(numbers_plane[i][None], homography)[0]))
        number_visible = float(min(1.0, number_counts[i + 1] / max(number_area, 1.0)))
        placed.append(PlacedTile(
            tiles[i], projected.astype(np.float32), (float(x1), float(y1), float(x2), float(y2)), visible, number_visible,
        ))
    melds: dict[int, list[int]] = {}
    for i, group in enumerate(groups):
        if i in index_of:
            melds.setdefault(group, []).append(index_of[i])
    shown = _visible_distractors(distractor_corners, homography, id_image, width, height)
    return Scene(image, tuple(placed), tuple(tuple(m) for m in melds.values()), kind, edition.name, shown, tuple(hidden))


def _in_order(deal: Sequence[Sequence[Tile]] | None) -> list[Tile] | None:
    """A deal's tiles as one sequence (a rack's)."""
    return None if deal is None else [tile for part in deal for tile in part]


def _visible_distractors(
    corners: list[np.ndarray], homography: np.ndarray, id_image: np.ndarray, width: int, height: int
) -> tuple[tuple[float, float, float, float], ...]:
    """Image boxes of the distractors mostly in view and not under a tile."""
    boxes = []
    for plane_corners in corners:
        projected = cv2.perspectiveTransform(plane_corners[None].astype(np.float32), homography)[0]
        area = abs(cv2.contourArea(projected))
        if area <= 16:
            continue
        mask = np.zeros((height, width), np.uint8)
        cv2.fillConvexPoly(mask, np.round(projected).astype(np.int32), 1)
        free = int(np.count_nonzero(mask & (id_image == 0)))
        if free / area < DISTRACTOR_MIN_VISIBLE:
            continue
        x1, y1 = np.clip(projected.min(axis=0), 0, (width, height))
        x2, y2 = np.clip(projected.max(axis=0), 0, (width, height))
        boxes.append((float(x1), float(y1), float(x2), float(y2)))
    return tuple(boxes)
