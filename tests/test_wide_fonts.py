"""The wide training font pool: many fonts for the reader to learn digits from, none of a held-out edition's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datasets.synth import tiles as tiles_module
from datasets.synth.editions import HELD_OUT_EDITIONS, TRAINING_EDITIONS
from datasets.synth.tiles import MissingFontError, font_names, render_tile
from datasets.synth.wide_fonts import (
    HELD_OUT_LOOK_ALIKES, WIDE_FONT_FILES, WIDE_FONT_PACKAGES, installed_wide_fonts, with_wide_fonts,
)
from solver.tiles import Colour, Tile

CONFIGS = Path(__file__).resolve().parents[1] / "datasets" / "configs"


def test_the_pool_holds_no_held_out_font_nor_a_look_alike_of_one():
    held_out_fonts = {f for e in HELD_OUT_EDITIONS for f in e.fonts}
    assert held_out_fonts and all(any(f.startswith(p) for p in HELD_OUT_LOOK_ALIKES) for f in held_out_fonts)
    assert not [f for f in WIDE_FONT_FILES if any(f.lower().startswith(p.lower()) for p in HELD_OUT_LOOK_ALIKES)]
    assert len(WIDE_FONT_FILES) >= 30 and len(WIDE_FONT_PACKAGES) >= 15
    assert all(p.startswith("fonts-") for p in WIDE_FONT_PACKAGES)


def test_only_installed_fonts_of_the_pool_are_used_in_its_order():
    some = ["Hack-Bold.ttf", "Roboto-Bold.ttf", "LiberationSans-Bold.ttf", "not-a-font.ttf"]
    assert installed_wide_fonts(set(some)) == ("Roboto-Bold.ttf", "Hack-Bold.ttf")


def test_an_edition_in_wide_fonts_keeps_everything_but_its_fonts(monkeypatch):
    monkeypatch.setattr(tiles_module, "font_names", lambda: ["DejaVuSans-Bold.ttf", "Inter-Bold.otf", "C059-Bold.otf"])
    classic = TRAINING_EDITIONS[1]
    wide = with_wide_fonts(classic)
    assert wide.fonts == ("Inter-Bold.otf", "C059-Bold.otf") and wide.name == f"{classic.name}+wide-fonts"
    assert (wide.inks, wide.marks, wide.jokers, wide.body, wide.aspect) == (
        classic.inks, classic.marks, classic.jokers, classic.body, classic.aspect)


def test_no_installed_font_of_the_pool_is_a_clear_error_naming_the_packages(monkeypatch):
    monkeypatch.setattr(tiles_module, "font_names", lambda: ["DejaVuSans-Bold.ttf"])
    with pytest.raises(MissingFontError, match="fonts-roboto"):
        with_wide_fonts(TRAINING_EDITIONS[0])


@pytest.mark.skipif(not installed_wide_fonts(set(font_names())), reason="no font of the wide pool installed")
def test_a_tile_renders_in_each_installed_font_of_the_pool():
    """Every font of the pool draws the digits (a face without them would draw empty boxes)."""
    for name in installed_wide_fonts(set(font_names())):
        glyph = tiles_module._glyph_mask("13", name)
        assert glyph.shape[1] > glyph.shape[0] * 0.6, name  # two digits side by side, not one box
        assert 0.1 < glyph.mean() < 0.9, name
    edition = with_wide_fonts(TRAINING_EDITIONS[1])
    a = render_tile(Tile(Colour.RED, 6), np.random.default_rng(5), 96, edition)
    b = render_tile(Tile(Colour.RED, 6), np.random.default_rng(5), 96, edition)
    assert np.array_equal(a, b) and a.shape[2] == 4


def test_the_wide_fonts_stage_continues_the_more_photos_stage_on_its_crops():
    from training.configs import load_config

    later, earlier = load_config(CONFIGS / "reader_wide_fonts.yaml"), load_config(CONFIGS / "reader_more_photos.yaml")
    assert later["editions"] == earlier["editions"] and later["dataset"] == earlier["dataset"]  # same crops, same validation
    assert later["fonts"]["out"] != earlier["fonts"]["out"]  # the earlier stage's crops are not overwritten
    assert 0 < later["fonts"]["wide_font_share"] < 1 and "wide_font_share" not in earlier["fonts"]
    assert later["fonts"]["per_class"] > earlier["fonts"]["per_class"]


def test_ci_installs_every_package_of_the_pool():
    run = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    line = next(l for l in run.splitlines() if l.startswith("WIDE_FONTS="))
    assert line.split("=", 1)[1].strip('"').split() == list(WIDE_FONT_PACKAGES)


@pytest.mark.skipif(not installed_wide_fonts(set(font_names())), reason="no font of the wide pool installed")
def test_a_recipe_draws_the_wide_fonts_in_its_share_of_photos_and_only_then():
    from dataclasses import replace

    from datasets.synth.writer import RECIPES

    always = replace(RECIPES["generalised"], wide_fonts=1.0)
    scenes = [always.compose(np.random.default_rng([4, i])) for i in range(3)]
    assert all(s.edition.endswith("+wide-fonts") for s in scenes)
    assert {s.edition.removesuffix("+wide-fonts") for s in scenes} <= {e.name for e in TRAINING_EDITIONS}
    # a recipe without the share draws nothing for it: its scenes stay pixel for pixel
    plain = RECIPES["generalised"].compose(np.random.default_rng([4, 0]))
    again = replace(RECIPES["generalised"], wide_fonts=0.0).compose(np.random.default_rng([4, 0]))
    assert np.array_equal(plain.image, again.image) and not plain.edition.endswith("+wide-fonts")
    mixed = RECIPES["generalised-wide-fonts"]
    assert 0 < mixed.wide_fonts < 1 and not mixed.uses_held_out()
    names = [mixed.compose(np.random.default_rng([9, i])).edition for i in range(12)]
    assert any(n.endswith("+wide-fonts") for n in names) and not all(n.endswith("+wide-fonts") for n in names)


def test_the_detector_stage_5_continues_stage_4_on_new_scenes_with_the_wide_fonts():
    from datasets.synth.writer import RECIPES
    from training.configs import load_config

    later, earlier = load_config(CONFIGS / "detector_wide_fonts.yaml"), load_config(CONFIGS / "detector_more_scenes.yaml")
    assert later["synthetic"]["recipe"] in RECIPES and RECIPES[later["synthetic"]["recipe"]].wide_fonts > 0
    assert later["synthetic"]["seed"] != earlier["synthetic"]["seed"]  # new scenes
    assert later["train"] == earlier["train"] and later["real_copies_per_photo"] == earlier["real_copies_per_photo"]
