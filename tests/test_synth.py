"""Synthetic data: tile renderer, scene composer and dataset writer."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.synth.__main__ import main as synth_main
from datasets.synth.backgrounds import KINDS, background
from datasets.synth.camera import BLUR_FRAME_PX, photograph
from datasets.synth.scenes import (
    REAL_CLASS_NAMES, _apply_affine, _patch_corners, _table_layout, compose_scene, random_meld, real_class_index,
)
from datasets.synth.tiles import INK_BGR, font_names, render_tile
from solver.melds import check_meld
from solver.rules import STANDARD
from solver.tiles import ALL_NUMBERED, JOKER, Colour, Tile, parse_melds, parse_tiles
from tests.synthetic_photos import edge_rise_px, step_photo

REAL_DATA_YAML = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "rummikub-real" / "data.yaml"


def test_render_tile_shape_alpha_and_determinism():
    a = render_tile(Tile(Colour.RED, 7), np.random.default_rng(5), 90)
    b = render_tile(Tile(Colour.RED, 7), np.random.default_rng(5), 90)
    assert a.dtype == np.uint8 and a.shape[0] == 90 and a.shape[2] == 4
    assert 0.6 * 90 <= a.shape[1] <= 0.8 * 90
    assert np.array_equal(a, b)
    assert a[45, a.shape[1] // 2, 3] == 255  # opaque middle
    assert a[0, 0, 3] < 128  # rounded corner is transparent


def test_render_tile_ink_has_the_tile_colour():
    """The darkest pixels of the number carry the ink colour's dominant channel."""
    for colour, channel in ((Colour.BLUE, 0), (Colour.RED, 2)):
        tile = render_tile(Tile(colour, 8), np.random.default_rng(1), 120)
        bgr = tile[..., :3].astype(int)
        ink = bgr[tile[..., 3] == 255]
        darkest = ink[np.argsort(ink.sum(axis=1))[:50]]
        assert np.all(darkest.argmax(axis=1) == channel), colour


def test_render_tile_blank_joker_and_small_sizes():
    rng = np.random.default_rng(0)
    blank = render_tile(None, rng, 60)
    joker = render_tile(JOKER, rng, 60)
    assert blank[..., :3][blank[..., 3] == 255].std() < joker[..., :3][joker[..., 3] == 255].std()
    assert render_tile(ALL_NUMBERED[12], rng, 20).shape[0] == 20
    with pytest.raises(ValueError):
        render_tile(ALL_NUMBERED[0], rng, 4)


def test_several_fonts_are_available():
    assert len(font_names()) >= 4
    assert set(INK_BGR) == set(Colour)


def test_backgrounds_all_kinds_and_unknown_kind():
    rng = np.random.default_rng(2)
    for kind in KINDS:
        image = background(rng, 64, 48, kind)
        assert image.shape == (48, 64, 3) and image.dtype == np.uint8 and image.flags.c_contiguous
    with pytest.raises(ValueError, match="unknown background"):
        background(rng, 64, 48, "lava")


def test_random_melds_are_legal():
    rng = np.random.default_rng(3)
    for _ in range(200):
        meld = random_meld(rng)
        assert check_meld(meld, STANDARD).valid, meld


def test_real_class_order_matches_the_real_data_yaml():
    assert REAL_CLASS_NAMES[:5] == ("black_1", "black_10", "black_11", "black_12", "black_13")
    assert REAL_CLASS_NAMES[26] == "joker" and real_class_index(JOKER) == 26
    assert real_class_index(Tile(Colour.RED, 9)) == 52
    if REAL_DATA_YAML.exists():
        import yaml

        assert tuple(yaml.safe_load(REAL_DATA_YAML.read_text())["names"]) == REAL_CLASS_NAMES


@pytest.mark.parametrize("kind", ["table", "rack"])
def test_scene_labels_are_consistent(kind):
    scene = compose_scene(np.random.default_rng(11), 480, 360, kind)
    assert scene.image.shape == (360, 480, 3) and scene.kind == kind
    assert len(scene.tiles) > 0
    for tile in scene.tiles:
        x1, y1, x2, y2 = tile.box
        assert 0 <= x1 < x2 <= 480 and 0 <= y1 < y2 <= 360
        assert tile.corners.shape == (4, 2) and 0.3 <= tile.visible <= 1.0
    covered = sorted(i for meld in scene.melds for i in meld)
    assert covered == list(range(len(scene.tiles)))  # every labelled tile in exactly one meld


def test_scene_is_deterministic_and_tiles_are_where_labels_say():
    a = compose_scene(np.random.default_rng(21), 480, 360, "table")
    b = compose_scene(np.random.default_rng(21), 480, 360, "table")
    assert np.array_equal(a.image, b.image) and len(a.tiles) == len(b.tiles)
    for tile in a.tiles:
        assert cv2.contourArea(tile.corners) > 0  # a real quadrilateral
        if tile.visible == 1.0:  # whole tile in view: its box is its corners' extent
            assert np.allclose(tile.box, [*tile.corners.min(axis=0), *tile.corners.max(axis=0)], atol=0.01)


def test_a_tile_laid_over_another_hides_its_number():
    """number_visible follows paint order: the tile painted later hides the number area below it."""
    from datasets.synth.scenes import _number_corners, _paint, _Placement

    patch = np.full((40, 30, 4), 255, np.uint8)
    below = _Placement(patch, np.array([[1, 0, 10], [0, 1, 30]], np.float32), Tile(Colour.RED, 5), 0)
    # The second tile covers the first one's upper half (its number): y 12-52 over y 30-70.
    above = _Placement(patch, np.array([[1, 0, 10], [0, 1, 12]], np.float32), Tile(Colour.BLUE, 7), 1)
    canvas = np.zeros((80, 60, 3), np.uint8)
    ids, numbers = _paint(canvas, [below, above], np.random.default_rng(0))
    area = cv2.contourArea(_number_corners(patch))
    assert np.count_nonzero(numbers == 1) < 0.05 * area  # the first tile's number is under the second
    assert np.count_nonzero(numbers == 2) == pytest.approx(area, rel=0.15)
    assert np.count_nonzero(ids == 1) > 0.3 * 40 * 30  # while its lower part still shows
    alone = _paint(canvas.copy(), [below], np.random.default_rng(0))[1]
    assert np.count_nonzero(alone == 1) == pytest.approx(area, rel=0.15)


def test_tiles_too_little_in_view_to_label_are_kept_as_hidden_boxes():
    """A tile under MIN_VISIBLE in view is not labelled, but its box is reported: a reading there
    lies on a tile, not on nothing."""
    scenes = [compose_scene(np.random.default_rng(seed), 480, 360, kind) for seed in range(6) for kind in ("rack", "table")]
    hidden = [box for scene in scenes for box in scene.hidden]
    assert hidden  # tiles at the frame's edge, tiles under tiles
    for scene in scenes:
        for x1, y1, x2, y2 in scene.hidden:
            assert 0 <= x1 < x2 <= 480 and 0 <= y1 < y2 <= 360
        labelled = {tuple(t.box) for t in scene.tiles}
        assert not labelled & set(scene.hidden)


def test_whole_tiles_show_their_whole_number():
    scene = compose_scene(np.random.default_rng(21), 480, 360, "table")
    whole = [t for t in scene.tiles if t.visible == 1.0]
    assert whole and all(t.number_visible > 0.9 for t in whole)
    assert all(0.0 <= t.number_visible <= 1.0 for t in scene.tiles)


DEALT_TABLE = "r1 r2 r3 | k5 b5 o5 | j o7 o8 | b9 b10 b11 b12 | k13 r13 o13 b13"
DEALT_RACK = "r1 r4 k4 k5 o6 o7 o8 b9 b10 b11 j r13 k1 k2"


@pytest.mark.parametrize("kind", ["table", "rack", "closeup"])
def test_a_scene_shows_the_tiles_it_was_dealt_in_their_order(kind):
    dealt = parse_melds(DEALT_TABLE) if kind == "table" else (parse_tiles(DEALT_RACK),)
    for seed in range(3):
        scene = compose_scene(np.random.default_rng(seed), 960, 720, kind, tile_px=40, deal=dealt)
        shown = [[scene.tiles[i].tile for i in meld] for meld in scene.melds]
        assert sum(map(len, shown)) >= 0.5 * sum(map(len, dealt))  # the camera may cut a few off
        # Each labelled meld is a stretch of one dealt meld; each tier a stretch of the rack, in order.
        parts = dealt if kind == "table" else ([t for m in dealt for t in m],)
        for meld in shown:
            assert any(meld == list(part[k:k + len(meld)]) for part in parts for k in range(len(part))), meld


@pytest.mark.parametrize("kind", ["table", "rack", "closeup", "grid"])
def test_a_photo_of_one_game_shows_no_tile_more_often_than_the_game_holds_it(kind):
    from collections import Counter

    shown = []
    for seed in range(6):
        scene = compose_scene(np.random.default_rng(seed), 960, 720, kind, tile_px=18, one_set=True)
        shown.append(len(scene.tiles))
        assert max(Counter(t.tile for t in scene.tiles).values(), default=0) <= 2
    assert sum(shown) > 0
    if kind == "table":  # small tiles on a whole table: without one set, some tile shows three times
        drawn = [compose_scene(np.random.default_rng(seed), 960, 720, kind, tile_px=18) for seed in range(6)]
        assert any(max(Counter(t.tile for t in s.tiles).values()) > 2 for s in drawn)


def test_a_deal_needs_tiles_and_a_scene_that_shows_them():
    with pytest.raises(ValueError, match="deal"):
        compose_scene(np.random.default_rng(0), 480, 360, "grid", deal=[parse_tiles("r1 r2")])
    with pytest.raises(ValueError, match="deal"):
        compose_scene(np.random.default_rng(0), 480, 360, "rack", deal=[()])


def test_scene_rejects_unknown_kind():
    with pytest.raises(ValueError, match="unknown scene kind"):
        compose_scene(np.random.default_rng(0), kind="floor")


def test_cli_writes_a_yolo_dataset(tmp_path, capsys):
    assert synth_main(["--out", str(tmp_path), "--count", "2", "--seed", "4"]) == 0
    images = sorted((tmp_path / "images").glob("*.jpg"))
    assert [p.name for p in images] == ["synth_000000.jpg", "synth_000001.jpg"]
    for image in images:
        labels = (tmp_path / "labels" / f"{image.stem}.txt").read_text().split("\n")
        labels = [line.split() for line in labels if line]
        tiles = [line.split() for line in (tmp_path / "labels_tiles" / f"{image.stem}.txt").read_text().split("\n") if line]
        meta = json.loads((tmp_path / "meta" / f"{image.stem}.json").read_text())
        assert len(labels) == len(tiles) == len(meta["tiles"])
        assert all(line[0] == "0" and len(line) == 5 for line in labels)
        assert all(0.0 <= float(v) <= 1.0 for line in labels for v in line[1:])
        assert [int(t[0]) for t in tiles] == [t["real_class"] for t in meta["tiles"]]
        assert [line[1:] for line in labels] == [t[1:] for t in tiles]
        assert all(0.0 <= t["number_visible"] <= 1.0 for t in meta["tiles"])
        assert all(len(box) == 4 for box in meta["hidden"])
    assert "nc: 1" in (tmp_path / "data.yaml").read_text()
    # Same seed, same first image bytes (image i depends only on seed and i).
    again = tmp_path / "again"
    synth_main(["--out", str(again), "--count", "1", "--seed", "4"])
    assert (again / "images" / "synth_000000.jpg").read_bytes() == images[0].read_bytes()


def test_cli_rejects_negative_count(tmp_path):
    with pytest.raises(SystemExit):
        synth_main(["--out", str(tmp_path), "--count", "-1"])


def test_a_table_layout_leaves_the_polygons_it_is_told_to_keep_clear_free():
    """A rack photo's loose tiles lie beside the rack, never on it: no tile of the layout reaches
    into a polygon ``keep_clear`` gives (more than the occupancy grid's 4 px)."""
    rack = np.array([[200, 300], [1000, 300], [1000, 600], [200, 600]], np.float32)
    placed = 0
    for seed in range(6):
        layout = _table_layout(np.random.default_rng(seed), 1200, 900, tile_px=60.0, keep_clear=[rack])
        for p in layout:
            corners = _apply_affine(p.matrix, _patch_corners(p.patch))
            centre = corners.mean(axis=0)
            for x, y in [*corners, centre]:
                assert cv2.pointPolygonTest(rack, (float(x), float(y)), True) < 4
        placed += len(layout)
    assert placed > 20  # the rest of the plane still takes tiles


def test_the_tiles_lying_beside_a_rack_are_as_large_as_its_own():
    """One set's tiles lie on one plane, so a rack photo's loose tiles are drawn at the rack tiles'
    size: they were drawn at 20-150 px whatever the rack's, down to a ninth of its tiles' size in
    a 12 MP photo. These seeds draw loose tiles beside the rack."""
    for seed in (0, 8, 12):
        scene = compose_scene(np.random.default_rng([seed, 38]), 4000, 3000, "rack")
        assert len(scene.melds) == 3  # the rack's tier or tiers, and the loose tiles' meld or tiles
        faces = np.array([max(t.box[2] - t.box[0], t.box[3] - t.box[1]) for t in scene.tiles if t.visible > 0.9])
        assert len(faces) > 3 and np.median(faces) / faces.min() < 1.5


def _edge_width(width: int, seed: int) -> int:
    """How wide the generator's photograph of seed ``seed`` blurs a sharp edge across a ``width`` px photo."""
    return edge_rise_px(photograph(step_photo(width), np.random.default_rng(seed)))


def test_a_larger_photo_is_as_blurred_for_its_size():
    """A 12 MP photo is the generator's shot kept at a higher resolution: its blur spans as much of
    the frame, so as many more pixels (drawn in pixels, it was a quarter as much for its tiles).
    Seeds 1 and 3 draw a blur; the noise blurs the 10-90 % count a little."""
    for seed in (1, 3):
        frame, large = _edge_width(BLUR_FRAME_PX, seed), _edge_width(4 * BLUR_FRAME_PX, seed)
        assert frame > 0 and large >= 2.5 * frame
