"""Which detected tiles belong together: melds on a table, tiers on a rack.

API::

    group_into_melds(detections, kind="table") -> list[list[int]]

returns indices into ``detections``, one list per meld (``kind="table"``) or per tier
(``kind="rack"``). Every index appears exactly once; a loose tile is a one-tile meld.

Table: two tiles are linked when they sit side by side - centres about one tile *width* apart
along the direction across the tile's long side (a tall box links left/right, a wide box -
a tile turned 90° - links up/down; a near-square box, a tile turned ~45°, links by distance
alone). Tiles stacked end to end (one tile *height* apart) are not linked, so two melds laid
one above the other stay apart. Linked tiles form a meld, ordered along its main axis:
left to right, or top to bottom for a column. That order is the photo's; whether a meld is
upside down (read right to left) is for the tile reader to say, from the marks under the numbers.

Rack: tiles are grouped into tiers by their height on the rack after undoing the photo's tilt
(and a quarter turn, when the standing tiles look wide), and ordered left to right within a tier.
"""

from __future__ import annotations

import numpy as np

from vision.detections import Detections

__all__ = ["group_into_melds", "LAYOUT_KINDS"]

LAYOUT_KINDS = ("table", "rack")
#: A tile's long side over its short side (Rummikub tiles are about 2:3).
_TILE_ASPECT = 1.4
#: Largest centre distance, in tile widths, for two tiles to count as side by side.
_MAX_STEP = 1.3
#: The same for tiles turned ~20-70° (their boxes say less about where their neighbours sit).
_MAX_STEP_TURNED = 1.2
#: Largest sideways offset, in tile heights, between two side-by-side tiles.
_MAX_SHIFT = 0.45


def _tile_widths(dets: Detections) -> np.ndarray:
    """Estimated short side of each tile: a box's short side, less for near-square (rotated) boxes."""
    short = np.minimum(dets.widths, dets.heights)
    long = np.maximum(dets.widths, dets.heights)
    squareness = np.clip((_TILE_ASPECT - long / np.maximum(short, 1e-6)) / (_TILE_ASPECT - 1.0), 0, 1)
    # Upright tile: box short side == tile width. Tile at 45°: box side ≈ (w + h)/√2 ≈ 1.2 w.
    return short / (1.0 + 0.2 * squareness)


def _links(dets: Detections) -> list[tuple[int, int]]:
    centres = dets.centers
    widths = _tile_widths(dets)
    w, h = dets.widths, dets.heights
    aspect = np.maximum(w, h) / np.maximum(np.minimum(w, h), 1e-6)
    links: list[tuple[int, int]] = []
    n = len(dets)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = centres[j] - centres[i]
            distance = float(np.hypot(dx, dy))
            width = (widths[i] + widths[j]) / 2
            # Direction test for boxes that show their orientation (tall: row, wide: column).
            tall = h[i] > w[i] * 1.15 and h[j] > w[j] * 1.15
            wide = w[i] > h[i] * 1.15 and w[j] > h[j] * 1.15
            if distance > (_MAX_STEP if tall or wide else _MAX_STEP_TURNED) * width:
                continue
            if tall and abs(dy) > _MAX_SHIFT * (h[i] + h[j]) / 2:
                continue
            if wide and abs(dx) > _MAX_SHIFT * (w[i] + w[j]) / 2:
                continue
            if (tall and abs(dx) < abs(dy)) or (wide and abs(dy) < abs(dx)):
                continue
            if not (tall or wide) and min(aspect[i], aspect[j]) > 1.15 and (h[i] > w[i]) != (h[j] > w[j]):
                continue  # one tile upright, the other turned: not the same meld
            links.append((i, j))
    return links


def _components(n: int, links: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in links:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _order_along_axis(members: list[int], centres: np.ndarray) -> list[int]:
    """Sort a meld along its main axis: left→right, or top→bottom when it runs more vertically."""
    if len(members) < 2:
        return list(members)
    points = centres[members]
    spread = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(spread, full_matrices=False)
    axis = vt[0]
    if abs(axis[0]) >= abs(axis[1]):
        axis = axis if axis[0] >= 0 else -axis
    else:
        axis = axis if axis[1] >= 0 else -axis
    order = np.argsort(spread @ axis, kind="stable")
    return [members[k] for k in order]


def _reading_order(groups: list[list[int]], boxes: np.ndarray) -> list[list[int]]:
    """Melds top to bottom (by their top edge, in bands a tile tall), then left to right."""
    if not groups:
        return []
    band = max(float(np.median(boxes[:, 3] - boxes[:, 1])), 1e-6)
    keys = [(int(boxes[g, 1].min() // band), float(boxes[g, 0].min())) for g in groups]
    return [g for _, g in sorted(zip(keys, groups), key=lambda kg: kg[0])]


def _table(dets: Detections) -> list[list[int]]:
    groups = _components(len(dets), _links(dets))
    centres = dets.centers
    ordered = [_order_along_axis(g, centres) for g in groups]
    return _reading_order(ordered, dets.boxes)


def _tilt(centres: np.ndarray, widths: np.ndarray) -> float:
    """The photo's tilt: median angle from each tile to its nearest roughly-horizontal neighbour."""
    angles = []
    for i, c in enumerate(centres):
        d = centres - c
        dist = np.hypot(d[:, 0], d[:, 1])
        dist[i] = np.inf
        horizontal = np.abs(d[:, 1]) < np.abs(d[:, 0]) * 0.6
        candidates = np.where(horizontal & (dist < 2.5 * widths[i]))[0]
        if len(candidates):
            j = candidates[np.argmin(dist[candidates])]
            dx, dy = d[j]
            if dx < 0:
                dx, dy = -dx, -dy
            angles.append(np.arctan2(dy, dx))
    return float(np.median(angles)) if angles else 0.0


def _rack(dets: Detections) -> list[list[int]]:
    centres, heights = dets.centers, dets.heights
    if np.median(dets.widths / np.maximum(dets.heights, 1e-6)) > 1.1:
        # Standing tiles look wide: the photo is turned a quarter; work in swapped axes.
        centres, heights = centres[:, ::-1].copy(), dets.widths
    angle = _tilt(centres, np.minimum(dets.widths, dets.heights))
    c, s = np.cos(-angle), np.sin(-angle)
    upright = centres @ np.array([[c, s], [-s, c]])
    order = np.argsort(upright[:, 1], kind="stable")
    gap = 0.5 * float(np.median(heights))
    tiers: list[list[int]] = [[int(order[0])]]
    for previous, current in zip(order, order[1:]):
        if upright[current, 1] - upright[previous, 1] > gap:
            tiers.append([])
        tiers[-1].append(int(current))
    return [sorted(tier, key=lambda k: upright[k, 0]) for tier in tiers]


def group_into_melds(detections: Detections, kind: str = "table") -> list[list[int]]:
    """Indices of ``detections`` per meld (table) or tier (rack), each in reading order."""
    if kind not in LAYOUT_KINDS:
        raise ValueError(f"kind must be one of {', '.join(LAYOUT_KINDS)}, got {kind!r}")
    if len(detections) == 0:
        return []
    return _table(detections) if kind == "table" else _rack(detections)
