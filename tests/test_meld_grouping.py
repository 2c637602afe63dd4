"""Layout: which boxes form a meld (table) or a tier (rack), in reading order."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth.scenes import compose_scene
from vision.detections import Detections
from vision.meld_grouping import group_into_melds

TILE_W, TILE_H = 40.0, 56.0


def _row(x: float, y: float, n: int, gap: float = 1.0) -> list[list[float]]:
    return [[x + k * (TILE_W + gap), y, x + k * (TILE_W + gap) + TILE_W, y + TILE_H] for k in range(n)]


def _column(x: float, y: float, n: int, gap: float = 1.0) -> list[list[float]]:
    """Tiles turned 90°: wide boxes stacked top to bottom."""
    return [[x, y + k * (TILE_W + gap), x + TILE_H, y + k * (TILE_W + gap) + TILE_W] for k in range(n)]


def _dets(boxes: list[list[float]]) -> Detections:
    return Detections(np.array(boxes, np.float32), np.ones(len(boxes), np.float32))


def _rotate(boxes: list[list[float]], angle_deg: float, centre=(400.0, 300.0)) -> list[list[float]]:
    """Axis-aligned boxes of tiles rotated (with their whole layout) about ``centre``."""
    t = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    out = []
    for x1, y1, x2, y2 in boxes:
        corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) - centre
        turned = corners @ rot.T + centre
        out.append([*turned.min(axis=0), *turned.max(axis=0)])
    return out


def test_rows_split_at_gaps_and_order_left_to_right():
    boxes = _row(100, 100, 4) + _row(100 + 4 * 41 + 60, 100, 3)  # a gap of 1.5 tile widths
    shuffled = np.random.default_rng(0).permutation(len(boxes))
    dets = _dets([boxes[i] for i in shuffled])
    melds = group_into_melds(dets)
    as_original = [[int(shuffled[i]) for i in meld] for meld in melds]
    assert as_original == [[0, 1, 2, 3], [4, 5, 6]]


def test_melds_stacked_end_to_end_stay_apart():
    boxes = _row(100, 100, 4, gap=0) + _row(100, 100 + TILE_H, 4, gap=0)  # touching top to bottom
    assert group_into_melds(_dets(boxes)) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_columns_of_turned_tiles_order_top_to_bottom():
    boxes = _column(100, 50, 5) + _column(300, 50, 3)
    assert group_into_melds(_dets(boxes)) == [[0, 1, 2, 3, 4], [5, 6, 7]]


def test_touching_columns_side_by_side_stay_apart():
    boxes = _column(100, 50, 4, gap=0) + _column(100 + TILE_H, 50, 4, gap=0)
    assert sorted(map(sorted, group_into_melds(_dets(boxes)))) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_loose_tiles_are_single_melds():
    boxes = [[0, 0, 40, 56], [200, 200, 240, 256], [400, 50, 440, 106]]
    assert sorted(group_into_melds(_dets(boxes))) == [[0], [1], [2]]


@pytest.mark.parametrize("angle", [8.0, -10.0, 180.0, 90.0])
def test_rotated_photo_keeps_melds(angle):
    boxes = _row(200, 200, 4) + _row(200, 320, 3) + _row(420, 200, 3)
    melds = group_into_melds(_dets(_rotate(boxes, angle)))
    assert sorted(map(sorted, melds)) == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    # Order follows the axis: consecutive indices are neighbours (forwards or backwards).
    for meld in melds:
        steps = {b - a for a, b in zip(meld, meld[1:])}
        assert steps in ({1}, {-1})


def test_rack_tiers_in_order_even_when_tilted():
    upper = _row(50, 50, 10, gap=0)
    lower = _row(50, 50 + TILE_H * 1.4, 12, gap=0)
    lower[3:] = [[x1 + 30, y1, x2 + 30, y2] for x1, y1, x2, y2 in lower[3:]]  # a gap within a tier
    boxes = _rotate(upper + lower, 6.0)
    tiers = group_into_melds(_dets(boxes), kind="rack")
    assert tiers == [list(range(10)), list(range(10, 22))]


def test_empty_and_bad_kind():
    assert group_into_melds(Detections.empty()) == []
    assert group_into_melds(Detections.empty(), kind="rack") == []
    with pytest.raises(ValueError, match="kind"):
        group_into_melds(_dets([[0, 0, 1, 1]]), kind="floor")


def test_synthetic_tidy_tables_group_exactly():
    """On generated tables with known melds, most melds are found exactly (same set of tiles)."""
    exact = total = 0
    for seed in range(6):
        scene = compose_scene(np.random.default_rng(500 + seed), 800, 600, "table")
        dets = _dets([list(t.box) for t in scene.tiles])
        found = {frozenset(m) for m in group_into_melds(dets)}
        total += len(scene.melds)
        exact += sum(frozenset(m) in found for m in scene.melds)
    assert total > 20 and exact / total >= 0.75


def _turned_tiles(centres: list[tuple[float, float]], angle_deg: float) -> list[list[float]]:
    """Axis-aligned boxes of TILE_W x TILE_H tiles, each turned by ``angle_deg`` about its centre."""
    t = np.deg2rad(angle_deg)
    c, s = abs(np.cos(t)), abs(np.sin(t))
    w, h = TILE_W * c + TILE_H * s, TILE_W * s + TILE_H * c
    return [[x - w / 2, y - h / 2, x + w / 2, y + h / 2] for x, y in centres]


def _along(n: int, angle_deg: float, step: float, start=(300.0, 300.0)) -> list[tuple[float, float]]:
    t = np.deg2rad(angle_deg)
    return [(start[0] + k * step * np.cos(t), start[1] + k * step * np.sin(t)) for k in range(n)]


@pytest.mark.parametrize("angle", [35.0, -35.0, 45.0])
def test_rack_turned_far_keeps_its_tiers(angle):
    """Past ~30° the tier below is as near as a tile's neighbour; the tiers' line is still found."""
    upper = _row(50, 50, 8, gap=0)
    lower = _row(50, 50 + TILE_H * 1.4, 9, gap=0)
    tiers = group_into_melds(_dets(_rotate(upper + lower, angle)), kind="rack")
    assert tiers == [list(range(8)), list(range(8, 17))]


@pytest.mark.parametrize("angle", [30.0, 40.0, -35.0])
def test_offset_rows_of_turned_tiles_stay_apart(angle):
    """Two rows laid one below the other, half a tile apart sideways, in a photo turned so far that
    every box is near-square: the diagonal contacts between the rows would bend a meld, so they are cut."""
    boxes = _row(100, 100, 4, gap=0) + _row(100 + TILE_W / 2, 100 + TILE_H, 4, gap=0)
    melds = group_into_melds(_dets(_rotate(boxes, angle)))
    assert sorted(map(sorted, melds)) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_tiles_turned_45_link_when_touching_not_with_a_gap():
    meld = _turned_tiles(_along(4, 45.0, TILE_W + 1), 45.0)
    assert group_into_melds(_dets(meld)) == [[0, 1, 2, 3]]
    apart = _turned_tiles(_along(2, 45.0, TILE_W * 1.3), 45.0)  # a gap of 0.3 tile widths
    assert sorted(group_into_melds(_dets(apart))) == [[0], [1]]


def test_squashed_upright_tiles_link_along_their_row():
    """Seen at a low angle an upright tile's box is square; along a row such tiles touch one box apart."""
    touching = [[100 + k * 41, 100, 140 + k * 41, 140] for k in range(4)]
    assert group_into_melds(_dets(touching)) == [[0, 1, 2, 3]]
    apart = [[100 + k * 52, 100, 140 + k * 52, 140] for k in range(3)]  # gaps of 0.3 box widths
    assert sorted(group_into_melds(_dets(apart))) == [[0], [1], [2]]


def test_nearly_square_oriented_boxes_along_a_diagonal_link():
    """A sheared photo can leave turned tiles' boxes slightly wide (aspect 1.15-1.25) while their meld runs
    diagonally; the direction test for oriented boxes fails, the near-square step still links them."""
    centres = _along(3, 40.0, 28.0)
    boxes = [[x - 24, y - 20, x + 24, y + 20] for x, y in centres]  # 48 x 40: aspect 1.2
    assert group_into_melds(_dets(boxes)) == [[0, 1, 2]]


def test_upright_tiles_a_quarter_tile_apart_are_not_one_meld():
    """Players lay a meld's tiles touching; a gap of a quarter tile is two groups (a fifth still links)."""
    assert group_into_melds(_dets(_row(100, 100, 2, gap=0.25 * TILE_W))) == [[0], [1]]
    assert group_into_melds(_dets(_row(100, 100, 2, gap=0.15 * TILE_W))) == [[0, 1]]
