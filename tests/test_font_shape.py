"""Font-shape augmentation (datasets/synth/font_shape.py): training renders of unseen-looking fonts."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth import tiles as tiles_module
from datasets.synth.editions import TRAINING_EDITIONS
from datasets.synth.font_shape import FONT_SHAPE, FontShape, reshape_glyph
from datasets.synth.tiles import font_names, render_tile
from solver.tiles import Tile


def _glyph(text: str = "8") -> np.ndarray:
    return tiles_module._glyph_mask(text, font_names()[0])


def test_reshape_glyph_is_deterministic_per_seed_and_differs_by_seed():
    glyph = _glyph()
    one = reshape_glyph(glyph, np.random.default_rng(4))
    again = reshape_glyph(glyph, np.random.default_rng(4))
    other = reshape_glyph(glyph, np.random.default_rng(5))
    assert np.array_equal(one, again)
    assert one.shape != other.shape or not np.array_equal(one, other)


def test_reshape_glyph_changes_the_glyph_and_keeps_its_ink():
    glyph = _glyph()
    for seed in range(8):
        shaped = reshape_glyph(glyph, np.random.default_rng(seed))
        assert shaped.min() >= 0.0 and shaped.max() <= 1.0
        assert (shaped > 0.5).sum() >= 0.3 * (glyph > 0.5).sum()  # thinner at most, never erased
        if shaped.shape == glyph.shape:
            assert np.abs(shaped - glyph).mean() > 0.01
    widths = [reshape_glyph(glyph, np.random.default_rng(s)).shape[1] / glyph.shape[1] for s in range(20)]
    assert min(widths) < 0.95 and max(widths) > 1.05  # narrow and wide faces both occur


def test_each_change_alone_moves_the_glyph():
    glyph = _glyph()
    still = FontShape(stroke=(0, 0), x_scale=(1, 1), shear_deg=0, perspective=0, elastic=0, size=(1, 1), shift=0)
    same = reshape_glyph(glyph, np.random.default_rng(0), still)
    assert same.shape == glyph.shape and np.abs(same - glyph).max() < 0.02
    thick = reshape_glyph(glyph, np.random.default_rng(0), FontShape(stroke=(0.08, 0.08), x_scale=(1, 1), shear_deg=0,
                                                                    perspective=0, elastic=0))
    thin = reshape_glyph(glyph, np.random.default_rng(0), FontShape(stroke=(-0.05, -0.05), x_scale=(1, 1), shear_deg=0,
                                                                   perspective=0, elastic=0))
    assert (thick > 0.5).sum() > 1.2 * (glyph > 0.5).sum() > 1.4 * (thin > 0.5).sum()
    slanted = reshape_glyph(glyph, np.random.default_rng(0), FontShape(stroke=(0, 0), x_scale=(1, 1), shear_deg=12,
                                                                      perspective=0, elastic=0))
    assert slanted.shape[1] > glyph.shape[1] + 5  # a sheared glyph is wider


@pytest.mark.parametrize("bad", [dict(stroke=(0.1, -0.1)), dict(x_scale=(0.0, 1.0)), dict(shear_deg=-1.0)])
def test_font_shape_rejects_bad_ranges(bad):
    with pytest.raises(ValueError):
        FontShape(**bad)


def test_reshape_glyph_rejects_an_empty_glyph():
    with pytest.raises(ValueError, match="ink"):
        reshape_glyph(np.zeros((10, 10), np.float32), np.random.default_rng(0))


def _digit_ink(font_shape, seed: int, edition=TRAINING_EDITIONS[1]) -> tuple[np.ndarray, int, int]:
    rng = np.random.default_rng(seed)
    mask, _, _, _ = tiles_module._number_mask(12, rng, 120, 84, edition, font_shape)
    return mask, 120, 84


def test_augmented_digit_differs_from_the_plain_one_and_stays_inside_the_face():
    differs = 0
    for seed in range(12):
        plain, h, w = _digit_ink(None, seed)
        shaped, _, _ = _digit_ink(FONT_SHAPE, seed)
        differs += int(np.abs(shaped - plain).mean() > 0.005)
        ys, xs = np.nonzero(shaped > 0.05)
        assert len(ys) > 50
        assert ys.min() >= 0.03 * h and ys.max() <= 0.97 * h and xs.min() >= 0.03 * w and xs.max() <= 0.97 * w
        assert shaped[: int(0.03 * h)].max() < 0.05 and shaped[:, : int(0.03 * w)].max() < 0.05
    assert differs == 12


def test_render_tile_with_font_shape_is_seeded_and_without_it_unchanged():
    tile = Tile.from_index(20)
    edition = TRAINING_EDITIONS[2]
    plain = render_tile(tile, np.random.default_rng(7), 64, edition)
    assert np.array_equal(plain, render_tile(tile, np.random.default_rng(7), 64, edition, font_shape=None))
    shaped = render_tile(tile, np.random.default_rng(7), 64, edition, font_shape=FONT_SHAPE)
    assert np.array_equal(shaped, render_tile(tile, np.random.default_rng(7), 64, edition, font_shape=FONT_SHAPE))
    assert shaped.shape[0] == 64 and shaped.shape[2] == 4
    assert shaped.shape != plain.shape or np.abs(shaped.astype(int) - plain.astype(int)).mean() > 0.5
