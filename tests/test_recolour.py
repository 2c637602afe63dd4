"""Real tiles recoloured to another edition (datasets.synth.recolour) and the test set made of them."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from datasets.synth.editions import HELD_OUT, edition
from datasets.synth.recolour import REAL_BODY, recolour_photo, recolour_tile
from solver.tiles import JOKER, Colour, Tile
from tests.fonts import needs_edition_fonts
from tests.real_stand_in import BLUE, scene as _scene



def test_a_tile_takes_the_new_ink_and_body_and_the_table_keeps_its_colour() -> None:
    image, box = _scene()
    before = image.copy()
    teal, body = (160, 140, 0), (200, 225, 235)
    recolour_tile(image, box, Tile(Colour.BLUE, 1), teal, body)
    ink = image[55:75, 73:77].reshape(-1, 3).astype(int)
    assert np.abs(ink - np.array(teal)).max() <= 2  # the light is the nominal body's: no gain
    plastic = image[35:40, 55:65].reshape(-1, 3).astype(int)
    assert np.abs(plastic - np.array(body)).max() <= 2
    np.testing.assert_array_equal(image[22:28, 42:48], before[22:28, 42:48])  # wood inside the box
    np.testing.assert_array_equal(image[:, :40], before[:, :40])  # outside the box


def test_the_new_colours_are_seen_under_the_photos_light() -> None:
    image, box = _scene()
    dim = (image.astype(np.float32) * 0.6).astype(np.uint8)
    recolour_tile(dim, box, Tile(Colour.BLUE, 1), (160, 140, 0), tuple(REAL_BODY))
    ink = dim[55:75, 73:77].reshape(-1, 3).astype(float).mean(axis=0)
    assert np.allclose(ink, np.array((160, 140, 0)) * 0.6, atol=3)


def test_jokers_and_boxes_too_small_are_left_alone() -> None:
    image, box = _scene()
    before = image.copy()
    recolour_tile(image, box, JOKER, (160, 140, 0), (200, 225, 235))
    recolour_tile(image, (70, 45, 74, 49), Tile(Colour.BLUE, 1), (160, 140, 0), (200, 225, 235))
    np.testing.assert_array_equal(image, before)


def test_overlapping_boxes_recolour_the_plastic_once() -> None:
    image, box = _scene()
    look = edition("original-circle")
    once = recolour_photo(image, [(Tile(Colour.BLUE, 1), box)], look, np.random.default_rng(0))
    twice = recolour_photo(
        image, [(Tile(Colour.BLUE, 1), box), (Tile(Colour.BLUE, 2), (45, 25, 105, 105))], look, np.random.default_rng(0),
    )
    plastic = (slice(35, 40), slice(55, 65))
    np.testing.assert_allclose(twice[plastic].astype(int), once[plastic].astype(int), atol=1)
    assert np.abs(once[plastic].astype(int) - image[plastic].astype(int)).max() > 10  # it was recoloured


def test_the_recoloured_set_is_the_real_split_in_a_held_out_editions_colours(real_root, tmp_path) -> None:
    from training.evaluate_suite import load_testset
    from training.testsets import ALL_SETS, RECOLOURED_SETS, write_test_sets

    (recoloured,) = [s for s in RECOLOURED_SETS if s.name == "real-recoloured"]
    assert not recoloured.restyled and recoloured.is_test and set(recoloured.editions) == HELD_OUT and recoloured in ALL_SETS
    out = tmp_path / "sets"
    assert write_test_sets(out, only=("real-recoloured",), real_root=real_root) == {"real-recoloured": 1}
    (photo,) = load_testset(out / "real-recoloured")
    assert photo.labels == (Tile(Colour.BLUE, 1).index,) and photo.kind == "table"
    np.testing.assert_allclose(photo.boxes[0], [50, 30, 100, 100], atol=0.5)
    meta = json.loads((out / "real-recoloured" / "meta" / "real_000000.json").read_text())
    assert meta["edition"] in HELD_OUT and meta["source"] == "table-1_jpeg.rf.aaa.jpg"
    written = cv2.imread(str(photo.image_path))
    assert np.abs(written[55:75, 73:77].astype(int) - np.array(BLUE)).mean() > 20  # the ink is another blue


def test_without_the_real_data_the_recoloured_set_is_skipped(tmp_path, capsys) -> None:
    from training.testsets import write_test_sets

    assert write_test_sets(tmp_path / "sets", only=("real-recoloured",), real_root=tmp_path / "none") == {}
    assert "skipped" in capsys.readouterr().err


@needs_edition_fonts
def test_the_restyled_set_is_the_real_split_printed_in_a_held_out_edition(real_root, tmp_path) -> None:
    from training.evaluate_suite import load_testset
    from training.testsets import ALL_SETS, RECOLOURED_SETS, write_test_sets

    (restyled,) = [s for s in RECOLOURED_SETS if s.name == "real-restyled"]
    assert restyled.restyled and restyled.is_test and set(restyled.editions) == HELD_OUT and restyled in ALL_SETS
    out = tmp_path / "sets"
    assert write_test_sets(out, only=("real-restyled",), real_root=real_root) == {"real-restyled": 1}
    (photo,) = load_testset(out / "real-restyled")
    assert photo.labels == (Tile(Colour.BLUE, 1).index,)
    recoloured_out = tmp_path / "recoloured"
    write_test_sets(recoloured_out, only=("real-recoloured",), real_root=real_root)
    restyled_image = cv2.imread(str(photo.image_path)).astype(int)
    recoloured_image = cv2.imread(str(recoloured_out / "real-recoloured" / "images" / "real_000000.jpg")).astype(int)
    # The bar that stood for a digit is printed again (a "1" in the edition's font), not only recoloured.
    assert np.abs(restyled_image[30:100, 50:100] - recoloured_image[30:100, 50:100]).max() > 60


@needs_edition_fonts
def test_the_small_restyled_set_shows_four_photos_at_half_size_in_one(real_root, tmp_path) -> None:
    from training.evaluate_suite import load_testset
    from training.testsets import RECOLOURED_SETS, write_test_sets

    (small,) = [s for s in RECOLOURED_SETS if s.name == "real-restyled-small"]
    assert small.restyled and small.mosaic == 2 and small.is_test
    images, labels = real_root / "valid" / "images", real_root / "valid" / "labels"
    for k in range(2, 6):  # five photos: one mosaic of four, the fifth left over
        (images / f"table-{k}_jpeg.rf.aaa.jpg").write_bytes((images / "table-1_jpeg.rf.aaa.jpg").read_bytes())
        (labels / f"table-{k}_jpeg.rf.aaa.txt").write_text((labels / "table-1_jpeg.rf.aaa.txt").read_text())
    out = tmp_path / "sets"
    assert write_test_sets(out, only=("real-restyled-small",), real_root=real_root) == {"real-restyled-small": 4}
    (photo,) = load_testset(out / "real-restyled-small")
    image = cv2.imread(str(photo.image_path))
    assert image.shape[:2] == (120, 160) and photo.labels == (Tile(Colour.BLUE, 1).index,) * 4
    cells = np.array([[0, 0], [80, 0], [0, 60], [80, 60]])  # row by row, each cell half the photo
    expected = np.array([50, 30, 100, 100]) / 2 + np.tile(cells, 2)
    np.testing.assert_allclose(photo.boxes, expected, atol=0.5)
    meta = json.loads((out / "real-restyled-small" / "meta" / "real_000000.json").read_text())
    assert len(meta["source"]) == 4 and set(meta["edition"]) <= HELD_OUT
