"""Which detected tiles belong together: melds on a table, tiers on a rack.

API::

    group_into_melds(detections, kind="table") -> list[list[int]]

returns indices into ``detections``, one list per meld (``kind="table"``) or per tier
(``kind="rack"``). Every index appears exactly once; a loose tile is a one-tile meld.

Table: two tiles are linked when they sit side by side - centres about one tile *width* apart
along the direction across the tile's long side (a tall box links left/right, a wide box -
a tile turned 90° - links up/down). A near-square box is a tile turned ~45° or an upright tile
squashed by perspective; the direction to its neighbour says which, and so how far apart touching
tiles lie (``_turned_steps``). Tiles stacked end to end (one tile *height* apart) are not linked,
so two melds laid one above the other stay apart. A meld is straight: in a group that is not,
the links that bend it (a diagonal contact between two offset rows, a loose tile at a corner)
are cut. Linked tiles form a meld, ordered along its main axis: left to right, or top to bottom
for a column. That order is the photo's; whether a meld is upside down (read right to left) is
for the tile reader to say, from the marks under the numbers.

Rack: the tiers' direction is the one along which most near tiles line up (found up to ±50°,
after a quarter turn when the standing tiles look wide); tiles are grouped into tiers by their
height across it, and ordered along it within a tier.

Tuned on 25 annotated real training photos (``datasets/real_melds.yaml``) and synthetic scenes;
figures in ``models/detector.md`` (``python -m training.evaluate_detector --melds-only``).
"""

from __future__ import annotations

import numpy as np

from vision.detections import Detections

__all__ = ["group_into_melds", "rack_tiers", "looks_turned_a_quarter", "LAYOUT_KINDS"]

LAYOUT_KINDS = ("table", "rack")
#: A tile's long side over its short side (Rummikub tiles are about 2:3).
_TILE_ASPECT = 1.4
#: A box this much taller than wide (or wider than tall) shows which way its tile lies.
_ORIENTED = 1.15
#: Oriented boxes up to this aspect may still be a turned tile in a sheared or foreshortened photo.
_NEAR_SQUARE = 1.25
#: Largest centre distance, in tile widths, for two tiles to count as side by side (touching: 1.0).
_MAX_STEP = 1.2
#: The same for near-square boxes, in widths of the tile they would be (see ``_turned_steps``).
_MAX_STEP_TURNED = 1.1
#: The aspect a near-square box's tile is taken to have (1.0-1.35 between squashed and upright).
_SQUASHED_ASPECT = 1.2
#: Largest sideways offset, in tile heights, between two side-by-side tiles.
_MAX_SHIFT = 0.45
#: Rack: neighbours within this many tile heights count when finding the tilt, up to this many degrees.
_RACK_REACH = 2.5
_RACK_MAX_TILT = 50.0
#: A group is straight when no centre lies farther than this many tile widths off its main line.
_STRAIGHT = 0.5
#: Largest angle, in degrees, between two links that continue one straight meld.
_BEND = 25.0


def _tile_widths(dets: Detections) -> np.ndarray:
    """Estimated short side of each tile: a box's short side, less for near-square (rotated) boxes."""
    short = np.minimum(dets.widths, dets.heights)
    long = np.maximum(dets.widths, dets.heights)
    squareness = np.clip((_TILE_ASPECT - long / np.maximum(short, 1e-6)) / (_TILE_ASPECT - 1.0), 0, 1)
    # Upright tile: box short side == tile width. Tile at 45°: box side ≈ (w + h)/√2 ≈ 1.2 w.
    return short / (1.0 + 0.2 * squareness)


def _turned_steps(dx: np.ndarray, dy: np.ndarray, widths: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """Centre distance of pairs of near-square boxes in widths of the tile they would be, side by side.

    ``dx``, ``dy`` are the pairs' centre offsets; ``widths`` and ``heights`` the pairs' mean box
    width and height. A near-square box is a tile turned ~45°, or an upright tile squashed by
    perspective; which, the direction between the two centres says. For tiles of width w and
    (apparent) aspect a turned by t, the box's extent along the meld is w (1 + a sin 2t): w itself
    along a row or column of squashed tiles, about w (1 + a) along a diagonal. Touching tiles give 1.0.
    """
    angle = np.arctan2(np.abs(dy), np.abs(dx))
    turn = np.minimum(angle, np.pi / 2 - angle)
    extent = np.cos(angle) * widths + np.sin(angle) * heights
    return np.hypot(dx, dy) * (1 + _SQUASHED_ASPECT * np.sin(2 * turn)) / np.maximum(extent, 1e-6)


def _links(dets: Detections) -> tuple[list[tuple[int, int]], set[tuple[int, int]]]:
    """Pairs of tiles lying side by side, and which of them rest on distance alone (turned tiles).

    Boxes clearly taller than wide (or wider than tall) show which way their meld runs; a pair of
    them must sit along that way. Other pairs - near-square boxes, or oriented ones that fail that
    test but are nearly square (a sheared or foreshortened photo) - link when their distance fits
    tiles lying side by side (``_turned_steps``); such links are *weak*. Every pair is judged at
    once (numpy over the upper triangle), in the order ``(i, j)``, ``i < j``.
    """
    widths = _tile_widths(dets)
    w, h = dets.widths, dets.heights
    centers = dets.centers
    aspect = np.maximum(w, h) / np.maximum(np.minimum(w, h), 1e-6)
    i, j = np.triu_indices(len(dets), k=1)
    dx, dy = centers[j, 0] - centers[i, 0], centers[j, 1] - centers[i, 1]
    is_tall, is_wide = h > w * _ORIENTED, w > h * _ORIENTED
    tall, wide = is_tall[i] & is_tall[j], is_wide[i] & is_wide[j]
    oriented = tall | wide
    # Oriented pairs: a row of tall boxes runs along x, a column of wide boxes along y.
    along, across = np.where(wide, dy, dx), np.where(wide, dx, dy)
    long_sides = np.where(wide, w[i] + w[j], h[i] + h[j]) / 2
    near = np.hypot(dx, dy) <= _MAX_STEP * (widths[i] + widths[j]) / 2
    side_by_side = oriented & near & (np.abs(across) <= _MAX_SHIFT * long_sides) & (np.abs(along) >= np.abs(across))
    # The rest link on distance alone, unless they are clearly oriented or clearly turned apart.
    clearly_oriented = oriented & (np.maximum(aspect[i], aspect[j]) > _NEAR_SQUARE)
    upright_and_turned = (np.minimum(aspect[i], aspect[j]) > _ORIENTED) & ((h[i] > w[i]) != (h[j] > w[j]))
    steps = _turned_steps(dx, dy, (w[i] + w[j]) / 2, (h[i] + h[j]) / 2)
    weak = ~side_by_side & ~clearly_oriented & ~upright_and_turned & (steps <= _MAX_STEP_TURNED)
    chosen = np.flatnonzero(side_by_side | weak)
    links = [(int(i[k]), int(j[k])) for k in chosen]
    return links, {(int(i[k]), int(j[k])) for k in np.flatnonzero(weak)}


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


def _direction(centres: np.ndarray, link: tuple[int, int]) -> float:
    """A link's direction in degrees, 0..180 (a line has no sense)."""
    dx, dy = centres[link[1]] - centres[link[0]]
    return float(np.degrees(np.arctan2(dy, dx)) % 180.0)


def _angle_between(a: float, b: float) -> float:
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def _is_straight(members: list[int], centres: np.ndarray, tolerance: float) -> bool:
    """Whether the tiles' centres lie on one line (within ``tolerance`` pixels)."""
    if len(members) < 3:
        return True
    points = centres[members] - centres[members].mean(axis=0)
    _, _, vt = np.linalg.svd(points, full_matrices=False)
    return float(np.abs(points @ vt[1]).max()) <= tolerance


def _dominant(directions: list[float]) -> float:
    """The direction (degrees, 0..180) that most of ``directions`` lie within ``_BEND`` of."""
    return max(directions, key=lambda d: sum(_angle_between(d, other) <= _BEND for other in directions))


def _straighten(
    links: list[tuple[int, int]], weak: set[tuple[int, int]], centres: np.ndarray, tolerance: float
) -> list[tuple[int, int]]:
    """Drop the links that bend a meld: a meld is a straight row or column of tiles.

    In a group whose tiles do not lie on one line, some link is a chance contact - two rows laid
    with an offset, a loose tile touching a meld's corner. First cut are the links that rest on
    distance alone (turned tiles, whose boxes don't show which way the meld runs) and stray more
    than ``_BEND`` degrees from the group's main direction; then, if the group is still bent, the
    links that continue no other link in a straight line at either end. Repeats until every group
    is straight or nothing more is cut; so an L of two melds of upright tiles keeps its links.
    """
    n = len(centres)
    while True:
        directions = {link: _direction(centres, link) for link in links}
        at: dict[int, list[tuple[int, int]]] = {}
        for link in links:
            for end in link:
                at.setdefault(end, []).append(link)
        bent = [set(g) for g in _components(n, links) if not _is_straight(g, centres, tolerance)]
        cut: set[tuple[int, int]] = set()
        for members in bent:
            inside = [link for link in links if link[0] in members]
            main = _dominant([directions[link] for link in inside])
            cut |= {link for link in inside if link in weak and _angle_between(directions[link], main) > _BEND}
        if not cut:  # only then the lonely links: a stray cut may already have made the group straight
            for members in bent:
                cut |= {
                    link
                    for link in links
                    if link[0] in members
                    and not any(
                        other != link and _angle_between(directions[other], directions[link]) <= _BEND
                        for end in link
                        for other in at[end]
                    )
                }
        if not cut:
            return links
        links = [link for link in links if link not in cut]


def _table(dets: Detections) -> list[list[int]]:
    centres = dets.centers
    tolerance = _STRAIGHT * float(np.median(np.minimum(dets.widths, dets.heights)))
    links, weak = _links(dets)
    groups = _components(len(dets), _straighten(links, weak, centres, tolerance))
    ordered = [_order_along_axis(g, centres) for g in groups]
    return _reading_order(ordered, dets.boxes)


def _tilt(centres: np.ndarray, size: float) -> float:
    """The rack's tilt (radians): the direction along which most tiles have a neighbour level with them.

    Tiles of one tier lie on a line; trying directions up to ±50° and scoring how closely each
    near pair lines up across that direction finds the tiers' line even when the photo is turned
    far (a nearest-neighbour angle breaks down past ~30°, where the tier below comes as close).
    """
    d = centres[None, :, :] - centres[:, None, :]
    distance = np.hypot(d[..., 0], d[..., 1])
    near = (distance > 0) & (distance < _RACK_REACH * size)
    if not near.any():
        return 0.0
    dx, dy = d[..., 0][near], d[..., 1][near]
    candidates = np.radians(np.arange(-_RACK_MAX_TILT, _RACK_MAX_TILT + 0.5, 0.5))
    scores = [float(np.exp(-(((np.cos(t) * dy - np.sin(t) * dx) / (0.15 * size)) ** 2)).sum()) for t in candidates]
    best = max(scores)
    # Among (near-)ties prefer the smallest turn: a tidy rack photographed straight on.
    return float(min((t for t, sc in zip(candidates, scores) if sc >= best - 1e-6), key=abs))


def looks_turned_a_quarter(dets: Detections) -> bool:
    """Whether a rack's standing tiles look wide, so that the photo is turned a quarter."""
    return bool(np.median(dets.widths / np.maximum(dets.heights, 1e-6)) > 1.1)


def rack_tiers(dets: Detections, quarter: bool | None = None) -> list[list[int]]:
    """Indices of ``dets`` per tier of a rack, each ordered along it: the tiers run across the photo,
    or down it when ``quarter`` (the photo turned a quarter; the axes swapped, so a tier is read top
    to bottom and the tiers left to right); ``None``: as the boxes' shape says
    (:func:`looks_turned_a_quarter`). Near-square boxes (a close-up in perspective) say little,
    which is why a caller that knows the tiers' counts tries both (:mod:`vision.calibration`)."""
    if len(dets) == 0:
        return []
    centres, heights = dets.centers, dets.heights
    if looks_turned_a_quarter(dets) if quarter is None else quarter:
        centres, heights = centres[:, ::-1].copy(), dets.widths
    angle = _tilt(centres, float(np.median(np.maximum(dets.widths, dets.heights))))
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
    return _table(detections) if kind == "table" else rack_tiers(detections)
