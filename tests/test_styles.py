"""The synthetic "player's own set" styles of the calibration experiment (datasets/synth/styles.py)."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth.styles import HELD_OUT_STYLES, lay_out_rows, render_styled_tile, style_named
from solver.tiles import JOKER, parse_tile


def test_a_styled_tile_is_bgra_upright_and_the_same_for_the_same_seed():
    style = HELD_OUT_STYLES[0]
    face = render_styled_tile(parse_tile("o6"), style, np.random.default_rng(3), 90)
    assert face.shape == (90, round(90 * style.aspect), 4) and face.dtype == np.uint8
    assert face[0, 0, 3] < 128 and face[45, face.shape[1] // 2, 3] == 255  # rounded corner off, body on
    again = render_styled_tile(parse_tile("o6"), style, np.random.default_rng(3), 90)
    assert np.array_equal(face, again)
    joker = render_styled_tile(JOKER, style, np.random.default_rng(3), 90)
    assert not np.array_equal(joker, face)


def test_rows_are_laid_out_as_given_and_labelled_in_reading_order():
    rows = [[parse_tile(t) for t in row.split()] for row in ("r1 r2 r3", "j b13")]
    scene = lay_out_rows(rows, style_named("mono-pale"), np.random.default_rng(0), 800, 600)
    assert scene.image.shape == (600, 800, 3)
    assert [p.tile.short for p in scene.tiles] == ["r1", "r2", "r3", "j", "b13"]
    assert scene.melds == ((0, 1, 2), (3, 4))
    centres = np.array([[(p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2] for p in scene.tiles])
    assert np.all(np.diff(centres[:3, 0]) > 0) and centres[3, 1] > centres[0, 1]  # left to right, rows downwards
    assert all(0 <= p.box[0] < p.box[2] <= 800 and 0 <= p.box[1] < p.box[3] <= 600 for p in scene.tiles)


def test_one_light_seed_gives_every_photo_the_same_light():
    rows = [[parse_tile("k5")]]
    style = HELD_OUT_STYLES[1]
    a = lay_out_rows(rows, style, np.random.default_rng(1), 320, 240, light=7)
    b = lay_out_rows(rows, style, np.random.default_rng(1), 320, 240, light=7)
    c = lay_out_rows(rows, style, np.random.default_rng(1), 320, 240, light=8)
    assert np.array_equal(a.image, b.image) and not np.array_equal(a.image, c.image)


def test_an_unknown_style_is_refused():
    with pytest.raises(ValueError, match="teal-serif"):
        style_named("nope")
