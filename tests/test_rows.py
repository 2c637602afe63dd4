"""Tiles of one edition laid out in known rows (datasets/synth/rows.py): calibration and test photos of a set."""

from __future__ import annotations

import numpy as np

from datasets.synth.editions import HELD_OUT_EDITIONS, edition
from datasets.synth.rows import lay_out_rows
from solver.tiles import parse_tile
from tests.fonts import needs_fonts


@needs_fonts(*HELD_OUT_EDITIONS)
def test_rows_are_laid_out_as_given_and_labelled_in_reading_order():
    rows = [[parse_tile(t) for t in row.split()] for row in ("r1 r2 r3", "j b13")]
    scene = lay_out_rows(rows, edition("us-teal"), np.random.default_rng(0), 800, 600)
    assert scene.image.shape == (600, 800, 3) and scene.edition == "us-teal"
    assert [p.tile.short for p in scene.tiles] == ["r1", "r2", "r3", "j", "b13"]
    assert scene.melds == ((0, 1, 2), (3, 4))
    centres = np.array([[(p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2] for p in scene.tiles])
    assert np.all(np.diff(centres[:3, 0]) > 0) and centres[3, 1] > centres[0, 1]  # left to right, rows downwards
    assert all(0 <= p.box[0] < p.box[2] <= 800 and 0 <= p.box[1] < p.box[3] <= 600 for p in scene.tiles)


@needs_fonts(*HELD_OUT_EDITIONS)
def test_the_same_seed_gives_the_same_photo_and_one_light_seed_the_same_light():
    rows = [[parse_tile("k5")]]
    held = HELD_OUT_EDITIONS[1]
    a = lay_out_rows(rows, held, np.random.default_rng(1), 320, 240, light=7)
    b = lay_out_rows(rows, held, np.random.default_rng(1), 320, 240, light=7)
    c = lay_out_rows(rows, held, np.random.default_rng(1), 320, 240, light=8)
    assert np.array_equal(a.image, b.image) and not np.array_equal(a.image, c.image)


@needs_fonts(*HELD_OUT_EDITIONS)
def test_each_edition_draws_its_own_tiles():
    rows = [[parse_tile(t) for t in "k6 b6 o6 r6".split()]]
    a, b = (lay_out_rows(rows, held, np.random.default_rng(2), 480, 240, light=3) for held in HELD_OUT_EDITIONS)
    assert not np.array_equal(a.image, b.image)
