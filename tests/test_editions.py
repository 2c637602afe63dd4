"""Tile editions, distractors, close-up racks and grids in the generator; held-out editions stay out of training."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth import tiles as tiles_module
from datasets.synth.distractors import DISTRACTOR_KINDS, paint_distractor
from datasets.synth.editions import (
    CATALOGUE,
    HELD_OUT,
    HELD_OUT_EDITIONS,
    NEVER_TRAINED,
    SELECTION_ONLY,
    SIBLING_GAMES,
    TRAINING_EDITIONS,
    Edition,
    Mark,
    Marked,
    edition,
)
from datasets.synth.scenes import compose_scene
from datasets.synth.tiles import MissingFontError, missing_fonts, render_tile
from datasets.synth.wide_fonts import HELD_OUT_LOOK_ALIKES, WIDE_FONT_FILES
from datasets.synth.writer import RECIPES, HeldOutEditionError, SceneRecipe, write_dataset
from solver.tiles import JOKER, Colour, Tile
from tests.fonts import needs_edition_fonts, needs_fonts


def test_catalogue_has_six_editions_and_two_held_out():
    assert len(CATALOGUE) >= 6
    assert len({e.name for e in CATALOGUE}) == len(CATALOGUE)
    assert len(HELD_OUT) >= 2 and HELD_OUT <= {e.name for e in CATALOGUE}
    assert not {e.name for e in TRAINING_EDITIONS} & HELD_OUT
    assert {e.name for e in HELD_OUT_EDITIONS} == HELD_OUT


def test_a_sibling_games_tiles_are_neither_trained_on_nor_a_held_out_edition():
    assert SIBLING_GAMES == {"okey"} and not SIBLING_GAMES & HELD_OUT
    assert NEVER_TRAINED == HELD_OUT | SIBLING_GAMES | SELECTION_ONLY
    assert not {e.name for e in TRAINING_EDITIONS} & SIBLING_GAMES
    assert SceneRecipe(editions=("okey",)).uses_held_out()  # refused for training like a held-out one


@needs_fonts(edition("okey"))
def test_okeys_false_joker_is_a_clover_in_the_middle_of_the_face():
    ed = edition("okey")
    image = render_tile(JOKER, np.random.default_rng(3), 160, ed)
    ink = _ink_pixels(image, np.array(ed.body))
    h, w = ink.shape
    assert ink[int(h * 0.2) : int(h * 0.5), int(w * 0.3) : int(w * 0.7)].mean() > 0.3  # the four leaves
    assert ink[int(h * 0.72) : int(h * 0.85)].sum() < ink.sum() * 0.02  # nothing under it (the side strip aside)


def test_the_selection_only_edition_is_never_trained_on_nor_a_test_edition():
    """Checkpoints are chosen on it: it must show tiles no model was trained on, and no test
    edition's, in fonts no training render draws (nor look-alikes of the test fonts)."""
    assert SELECTION_ONLY == {"selection-heavy"} and not SELECTION_ONLY & (HELD_OUT | SIBLING_GAMES)
    assert not {e.name for e in TRAINING_EDITIONS} & SELECTION_ONLY
    assert SceneRecipe(editions=("selection-heavy",)).uses_held_out()  # refused for training
    fonts = set(edition("selection-heavy").fonts)
    trained = {f for e in TRAINING_EDITIONS for f in e.fonts} | set(tiles_module._BOLD_FONT_FILES) | set(WIDE_FONT_FILES)
    tested = {f for e in CATALOGUE if e.name in HELD_OUT | SIBLING_GAMES for f in e.fonts}
    assert fonts and not fonts & (trained | tested)
    assert not any(f.startswith(HELD_OUT_LOOK_ALIKES) for f in fonts)


@needs_fonts(edition("selection-heavy"))
def test_the_selection_only_edition_draws_its_own_fonts():
    ed = edition("selection-heavy")
    assert missing_fonts(ed) == []
    image = render_tile(Tile(Colour.BLUE, 8), np.random.default_rng(5), 120, ed)
    assert image.shape[0] == 120 and _ink_pixels(image, np.array(ed.body)).mean() > 0.02


def test_held_out_fonts_are_in_no_training_edition():
    held_fonts = {f for e in HELD_OUT_EDITIONS for f in e.fonts}
    training_fonts = {f for e in TRAINING_EDITIONS for f in e.fonts}
    assert held_fonts and not held_fonts & training_fonts
    assert not held_fonts & set(tiles_module._BOLD_FONT_FILES)  # nor in the assorted mix


def test_an_edition_whose_font_is_missing_is_refused_not_drawn_in_another(monkeypatch):
    """A held-out edition drawn in a fallback (training) font would no longer be held out."""
    us_teal = edition("us-teal")
    monkeypatch.setattr(tiles_module, "_installed_fonts", lambda: {})
    monkeypatch.setattr(tiles_module, "_font_paths", lambda: ())
    assert missing_fonts(us_teal) == ["LiberationSans-Bold.ttf"]
    with pytest.raises(MissingFontError, match=r"us-teal.*LiberationSans-Bold\.ttf.*fonts-liberation"):
        render_tile(Tile(Colour.BLUE, 6), np.random.default_rng(3), 100, us_teal)
    assert missing_fonts(edition("assorted")) == []  # the assorted mix names no font of its own
    # hershey fonts are OpenCV's own: an edition of them never lacks a font
    assert missing_fonts(edition("stroke-plain")) == []
    render_tile(Tile(Colour.BLUE, 6), np.random.default_rng(3), 100, edition("stroke-plain"))


def test_edition_rejects_inconsistent_values():
    with pytest.raises(ValueError, match="inks"):
        Edition("x", inks=((0, 0, 0),))
    with pytest.raises(ValueError, match="high to low"):
        Edition("x", aspect=(0.8, 0.6))
    with pytest.raises(ValueError, match="mark shape"):
        Edition("x", marks=(), marked=Marked.ALL)
    with pytest.raises(ValueError, match="joker"):
        Edition("x", jokers=())
    with pytest.raises(ValueError, match="unknown edition"):
        edition("no-such-box")


@pytest.mark.parametrize("name", [pytest.param(e.name, marks=needs_fonts(e)) for e in CATALOGUE])
def test_every_edition_renders_deterministically_at_its_aspect(name):
    ed = edition(name)
    for tile in (Tile(Colour.BLUE, 6), JOKER, None):
        a = render_tile(tile, np.random.default_rng(3), 100, ed)
        b = render_tile(tile, np.random.default_rng(3), 100, ed)
        assert np.array_equal(a, b) and a.shape[0] == 100 and a.shape[2] == 4
        assert ed.aspect[0] * 100 - 1 <= a.shape[1] <= ed.aspect[1] * 100 + 1


def _ink_pixels(image: np.ndarray, body: np.ndarray) -> np.ndarray:
    opaque = image[..., 3] == 255
    diff = np.abs(image[..., :3].astype(int) - body[None, None, :]).sum(axis=2)
    return opaque & (diff > 120)


def test_mark_under_six_and_nine_only_when_the_edition_says_so():
    """Same draw, same glyph: the 6 of a six-nine edition has ink below the digit, its 8 has none."""
    ed = Edition("probe", fonts=("DejaVuSans-Bold.ttf",), marks=(Mark.BAR,), marked=Marked.SIX_NINE,
                 body=(230, 240, 245), inks=((30, 30, 30),) * 4, ink_drift=0.0, digit_height=(0.3, 0.3))
    body = np.array(ed.body)
    rows = {}
    for number in (6, 8):
        image = render_tile(Tile(Colour.BLACK, number), np.random.default_rng(0), 160, ed)
        face = _ink_pixels(image, body)[: int(image.shape[0] * 0.6)]  # above the panel line and the side strip
        rows[number] = np.flatnonzero(face.any(axis=1)).max()
    assert rows[6] > rows[8] + 8  # the bar sits well below the digit


def test_digit_circle_lightens_the_face_around_the_number():
    base = dict(fonts=("DejaVuSans-Bold.ttf",), body=(200, 215, 225), ink_drift=0.0)
    plain = Edition("plain", **base)
    circled = Edition("circled", digit_circle=True, **base)
    a = render_tile(Tile(Colour.RED, 1), np.random.default_rng(1), 150, plain)
    b = render_tile(Tile(Colour.RED, 1), np.random.default_rng(1), 150, circled)
    h, w = a.shape[:2]
    ring = (slice(int(h * 0.24), int(h * 0.36)), slice(int(w * 0.22), int(w * 0.34)))  # left of the digit
    assert b[ring][..., :3].mean() > a[ring][..., :3].mean() + 5


def test_two_faced_joker_has_ink_in_both_halves():
    ed = edition("us-teal")
    image = render_tile(JOKER, np.random.default_rng(2), 160, ed)
    ink = _ink_pixels(image, np.array(ed.body))
    h = image.shape[0]
    assert ink[: h // 2].sum() > 50 and ink[h // 2 : int(h * 0.85)].sum() > 50


@pytest.mark.parametrize("kind", DISTRACTOR_KINDS)
def test_each_distractor_paints_inside_its_corners(kind):
    canvas = np.full((300, 300, 3), 120, np.uint8)
    corners = paint_distractor(canvas, np.random.default_rng(4), kind, (150.0, 150.0), 80.0)
    assert corners.shape == (4, 2)
    changed = np.argwhere(np.abs(canvas.astype(int) - 120).sum(axis=2) > 10)
    assert len(changed) > 20
    x1, y1 = corners.min(axis=0) - 3
    x2, y2 = corners.max(axis=0) + 3
    assert (changed[:, 1] >= x1).all() and (changed[:, 1] <= x2).all()
    assert (changed[:, 0] >= y1).all() and (changed[:, 0] <= y2).all()
    with pytest.raises(ValueError, match="unknown distractor"):
        paint_distractor(canvas, np.random.default_rng(4), "cat", (1.0, 1.0), 10.0)


@needs_edition_fonts
def test_distractors_are_reported_never_labelled_as_tiles():
    scene = compose_scene(np.random.default_rng(8), 640, 480, "table", TRAINING_EDITIONS, distractors=8)
    assert scene.distractors  # some are in view
    assert scene.edition in {e.name for e in TRAINING_EDITIONS}
    assert len(scene.tiles) > 0
    plain = compose_scene(np.random.default_rng(8), 640, 480, "table")
    assert plain.distractors == () and plain.edition == "assorted"


@needs_edition_fonts
def test_closeup_rack_fills_the_frame_with_big_touching_tiles():
    sizes = []
    for seed in range(4):
        scene = compose_scene(np.random.default_rng(seed), 1280, 720, "closeup", TRAINING_EDITIONS)
        assert scene.kind == "closeup" and 1 <= len(scene.melds) <= 3
        widths = [t.box[2] - t.box[0] for t in scene.tiles if t.visible == 1.0]
        sizes += [max(t.box[2] - t.box[0], t.box[3] - t.box[1]) / 1280 for t in scene.tiles]
        assert widths and np.median(widths) > 1280 / 16  # about a ninth of the width, not a table's tiles
    assert max(sizes) < 0.6 and min(sizes) > 1 / 60


@needs_edition_fonts
@pytest.mark.parametrize("kind", ["closeup", "rack"])
def test_a_racks_end_caps_stand_beside_its_tiers_as_distractors_never_tiles(kind):
    with_caps = compose_scene(np.random.default_rng(3), 1280, 720, kind, TRAINING_EDITIONS, rack_ends=1.0)
    without = compose_scene(np.random.default_rng(3), 1280, 720, kind, TRAINING_EDITIONS)
    assert without.distractors == ()
    assert 1 <= len(with_caps.distractors) <= 2 and with_caps.tiles  # the caps in view are reported
    for x1, y1, x2, y2 in with_caps.distractors:
        rack_height = max(t.box[3] for t in with_caps.tiles) - min(t.box[1] for t in with_caps.tiles)
        assert y2 - y1 > 0.8 * rack_height  # as tall as the tiers, not a stray block
    assert not np.array_equal(with_caps.image, without.image)
    # 0 (the default) draws nothing for the caps: the same scene as a recipe that never names them
    again = compose_scene(np.random.default_rng(3), 1280, 720, kind, TRAINING_EDITIONS, rack_ends=0.0)
    assert np.array_equal(again.image, without.image)


@needs_edition_fonts
def test_closeup_in_a_portrait_frame_and_grids():
    portrait = compose_scene(np.random.default_rng(5), 720, 1280, "closeup", TRAINING_EDITIONS)
    assert portrait.image.shape == (1280, 720, 3) and portrait.tiles
    grid = compose_scene(np.random.default_rng(6), 800, 600, "grid", TRAINING_EDITIONS)
    assert len(grid.tiles) >= 4 and all(len(m) == 1 for m in grid.melds)


@needs_edition_fonts
def test_writer_refuses_held_out_editions_for_training(tmp_path):
    recipe = SceneRecipe(kinds=(("table", 1.0),), editions=tuple(sorted(HELD_OUT)))
    with pytest.raises(HeldOutEditionError, match="held out"):
        write_dataset(tmp_path, 1, 0, recipe=recipe, progress=False)
    assert write_dataset(tmp_path, 1, 0, recipe=recipe, progress=False, allow_held_out=True) > 0


def _record_editions(monkeypatch) -> set[str]:
    seen: set[str] = set()
    real = tiles_module.render_tile

    def spy(tile, rng, height, edition=tiles_module.ASSORTED, font_shape=None):
        seen.add(edition.name)
        return real(tile, rng, height, edition, font_shape)

    for module in ("datasets.synth.tiles", "datasets.synth.scenes", "datasets.synth.distractors"):
        monkeypatch.setattr(f"{module}.render_tile", spy, raising=False)
    return seen


@needs_edition_fonts
def test_training_builders_never_render_a_held_out_edition(monkeypatch, tmp_path):
    """The detector's recipe and the reader's crop builders render training editions only."""
    from datasets.synth.font_shape import FONT_SHAPE
    from training.generalised_reader import scene_sample
    from training.train_reader import synthetic_crop

    seen = _record_editions(monkeypatch)
    for recipe_name, recipe in RECIPES.items():
        assert not recipe.uses_held_out(), recipe_name
    write_dataset(tmp_path / "det", 6, 3, recipe=RECIPES["generalised"], progress=False)
    for seed in range(6):
        scene_sample((1, seed), TRAINING_EDITIONS, 32, 0.7, 0.05, detector=False)
    for e in TRAINING_EDITIONS:
        synthetic_crop(Tile(Colour.RED, 5), np.random.default_rng(0), 32, [], e)
        synthetic_crop(Tile(Colour.RED, 5), np.random.default_rng(0), 32, [], e, 20, FONT_SHAPE)  # the font stage's crops
    assert seen and not seen & NEVER_TRAINED
    assert len(seen) >= 3  # several editions were really drawn


def _median_tile_px(scene) -> float:
    return float(np.median([max(t.box[2] - t.box[0], t.box[3] - t.box[1]) for t in scene.tiles]))


def test_a_table_can_be_drawn_with_tiles_of_a_given_size():
    """tile_px sets a table's tile height on the plane; None keeps the generator's own draw."""
    small = compose_scene(np.random.default_rng(3), 1600, 1200, "table", tile_px=50)
    big = compose_scene(np.random.default_rng(3), 1600, 1200, "table", tile_px=100)
    assert 1.6 < _median_tile_px(big) / _median_tile_px(small) < 2.4
    drawn = compose_scene(np.random.default_rng(3), 1600, 1200, "table")
    assert np.array_equal(drawn.image, compose_scene(np.random.default_rng(3), 1600, 1200, "table", tile_px=None).image)


def test_a_recipe_can_draw_phone_sized_photos_with_tiles_a_share_of_the_frame():
    recipe = SceneRecipe(kinds=(("table", 1.0),), photo_sizes=((1600, 1200),), table_tile_share=(1 / 20, 1 / 20))
    scene = recipe.compose(np.random.default_rng(4))
    assert scene.image.shape[:2] == (1200, 1600)
    assert 0.5 * 80 < _median_tile_px(scene) < 1.4 * 80  # 1600 / 20 on the plane, seen in perspective
    # a recipe without them draws as before: kind, distractor count, then the scene
    plain = SceneRecipe(kinds=(("table", 1.0),)).compose(np.random.default_rng(4))
    rng = np.random.default_rng(4)
    rng.choice(1, p=[1.0]), rng.integers(0, 1)
    assert np.array_equal(plain.image, compose_scene(rng, None, None, "table", (edition("assorted"),), 0).image)


@needs_edition_fonts
def test_the_reader_recipe_can_choose_tiles_as_the_test_sets_do_by_their_number():
    """A table where other tiles cover parts of four tiles but not their numbers: chosen by the
    number's share in view (as the test sets read them) those four are crops of their class;
    chosen by the whole tile's share, they are not."""
    from training.generalised_reader import mixed_scene, scene_sample

    seed = (1, 9)
    scene, _ = mixed_scene(seed, TRAINING_EDITIONS)
    by_number = [t for t in scene.tiles if t.number_visible >= 0.7]
    by_tile = [t for t in scene.tiles if t.visible >= 0.7]
    assert len(by_number) > len(by_tile)  # the scene holds tiles the two rules tell apart
    _, counts = scene_sample(seed, TRAINING_EDITIONS, 32, 0.3, 0.0, detector=False, min_number_visible=0.7)
    assert counts["tiles"] == len(by_number)
    _, counts = scene_sample(seed, TRAINING_EDITIONS, 32, 0.7, 0.0, detector=False)
    assert counts["tiles"] == len(by_tile)


@needs_edition_fonts
def test_a_distractor_the_frame_clips_to_nothing_is_no_training_crop(monkeypatch):
    """A distractor whose box the frame clipped to no width (a scene of seed 2101 had one) is
    skipped like a clipped tile, not a crash of the whole crop build."""
    from dataclasses import replace

    from training import generalised_reader

    seed = (1, 9)
    scene, rng = generalised_reader.mixed_scene(seed, TRAINING_EDITIONS)
    clipped = replace(scene, distractors=((0.0, 0.0, 0.0, 131.97), (10.0, 10.0, 60.0, 60.0)))
    monkeypatch.setattr(generalised_reader, "mixed_scene", lambda s, e, size=None, recipe=None: (clipped, rng))
    _, counts = generalised_reader.scene_sample(seed, TRAINING_EDITIONS, 32, 0.7, 0.0, detector=False)
    assert counts["distractors"] == 1


@needs_edition_fonts
def test_the_reader_recipe_draws_its_close_ups_at_the_size_asked_and_nothing_else_changes():
    """``closeup_size`` sets the close-ups' size (landscape or, one in five, portrait); the other
    kinds keep theirs, and the default draws every scene as the recipes before it did."""
    import numpy as np

    from training.generalised_reader import CLOSEUP_SIZE, SCENE_MIX, mixed_scene

    def kind_of(seed):
        rng = np.random.default_rng(list(seed))
        return SCENE_MIX[int(rng.choice(len(SCENE_MIX), p=[p for _, p in SCENE_MIX]))][0]

    closeup = next((1, i) for i in range(50) if kind_of((1, i)) == "closeup")
    other = next((1, i) for i in range(50) if kind_of((1, i)) != "closeup")
    small = (640, 360)
    scene, _ = mixed_scene(closeup, TRAINING_EDITIONS, small)
    assert sorted(scene.image.shape[:2]) == sorted(small[::-1])
    default, _ = mixed_scene(closeup, TRAINING_EDITIONS)
    assert sorted(default.image.shape[:2]) == sorted(CLOSEUP_SIZE[::-1]) == [720, 1280]
    assert mixed_scene(other, TRAINING_EDITIONS, small)[0].image.shape[:2] == (720, 960)
    assert np.array_equal(mixed_scene(other, TRAINING_EDITIONS, small)[0].image, mixed_scene(other, TRAINING_EDITIONS)[0].image)


def test_own_boxes_give_each_labelled_tile_the_detection_that_fits_it_best():
    from training.generalised_reader import _own_boxes
    from vision.detections import Detections

    truth = np.array([[0, 0, 10, 20], [30, 0, 40, 20], [60, 0, 70, 20]], np.float32)
    found = Detections(
        np.array([[31, 1, 41, 21], [1, 0, 11, 20], [0, 0, 14, 20], [66, 0, 76, 20]], np.float32),
        np.array([0.9, 0.8, 0.7, 0.6], np.float32),
    )
    own = _own_boxes(found, truth)
    assert own[0] == (1.0, 0.0, 11.0, 20.0)  # the closer of two boxes on it, whatever their confidences
    assert own[1] == (31.0, 1.0, 41.0, 21.0)
    assert own[2] is None  # the only box near it overlaps it by less than MATCH_IOU
    assert _own_boxes(Detections.empty(), truth) == [None, None, None]


@needs_edition_fonts
def test_the_reader_recipe_can_cut_tiles_at_the_detectors_own_boxes(monkeypatch):
    """``tile_boxes="detector"``: a tile the detector found is cut at the detector's box, one it
    missed at its label box; ``"label"`` ignores the detector's boxes."""
    import training.generalised_reader as gr
    from vision.crops import crop_tile
    from vision.detections import Detections

    seed = (1, 9)
    scene, _ = gr.mixed_scene(seed, TRAINING_EDITIONS)
    kept = [t for t in scene.tiles if t.visible >= 0.7]
    shifted = np.array([t.box for t in kept[::2]], np.float32) + np.float32(2)  # every other kept tile, 2 px off
    monkeypatch.setattr(gr, "_detections", lambda image: Detections(shifted, np.ones(len(shifted), np.float32)))
    pairs, counts = gr.scene_sample(seed, TRAINING_EDITIONS, 32, 0.7, 0.0, detector=False, tile_boxes="detector")
    assert counts["tiles"] == len(kept) and counts["at_detector_boxes"] == len(shifted)
    crops = [crop for _, crop in pairs[: len(kept)]]
    assert np.array_equal(crops[0], crop_tile(scene.image, tuple(map(float, shifted[0])), 32))
    assert np.array_equal(crops[1], crop_tile(scene.image, kept[1].box, 32))  # missed: its label box (no jitter)
    _, counts = gr.scene_sample(seed, TRAINING_EDITIONS, 32, 0.7, 0.0, detector=False)
    assert counts["at_detector_boxes"] == 0
    with pytest.raises(ValueError, match="tile_boxes"):
        gr.scene_sample(seed, TRAINING_EDITIONS, 32, 0.7, 0.0, detector=False, tile_boxes="labels")


@needs_edition_fonts
def test_the_reader_recipe_can_draw_its_photos_as_a_phone_sends_them():
    """``recipe="phone"``: the photo is the generator's ``phone`` recipe drawn from the same seed (12 MP,
    training editions), and its tiles are cut like any other photo's; the phone test sets draw that
    recipe too, so the reader's phone photos and theirs differ only by seed."""
    from dataclasses import replace

    import training.testsets as testsets
    from training.generalised_reader import mixed_scene, scene_sample

    seed = (7, 3)
    scene, _ = mixed_scene(seed, TRAINING_EDITIONS, recipe="phone")
    drawn = RECIPES["phone"].compose(np.random.default_rng(list(seed)))
    assert np.array_equal(scene.image, drawn.image)
    assert max(scene.image.shape[:2]) == 4000 and not RECIPES["phone"].uses_held_out()
    assert scene.image.shape != mixed_scene(seed, TRAINING_EDITIONS)[0].image.shape  # not the usual mix's photo
    pairs, counts = scene_sample(seed, TRAINING_EDITIONS, 32, 0.7, 0.0, detector=False, recipe="phone")
    assert counts["tiles"] == sum(t.visible >= 0.7 for t in scene.tiles) > 0
    assert all(crop.shape == (32, 32, 3) for _, crop in pairs)
    by_name = {s.name: s.recipe for s in testsets.TEST_SETS}
    assert by_name["selection-phone"] == RECIPES["phone"]
    assert by_name["held-out-phone"] == replace(RECIPES["phone"], editions=by_name["held-out-phone"].editions)
    assert set(by_name["held-out-phone"].editions).isdisjoint(RECIPES["phone"].editions)
