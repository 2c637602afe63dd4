"""The real training photos printed in the training editions, as detector data (training.restyled_real)."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth.restyle import mosaic
from solver.tiles import Colour, Tile
from tests.fonts import needs_edition_fonts
from tests.real_stand_in import SIZE, TILE_BOX



def _labels(path):
    return [tuple(float(v) for v in line.split()) for line in path.read_text().splitlines()]


@needs_edition_fonts
def test_each_source_photo_is_printed_copies_times_and_every_four_printings_make_a_mosaic(real_root, tmp_path):
    from training.restyled_real import write_restyled_training

    out = tmp_path / "restyled"
    # two source photos (one copy of each kept) x 2 printings = 4 photos, and one mosaic of them
    assert write_restyled_training(real_root, out, seed=1, copies=2) == 5
    names = sorted(p.stem for p in (out / "images").glob("*.jpg"))
    assert names == ["mosaic_0000", "restyled_0_0000", "restyled_0_0001", "restyled_1_0000", "restyled_1_0001"]
    height, width = SIZE
    x1, y1, x2, y2 = TILE_BOX
    whole = (0.0, (x1 + x2) / 2 / width, (y1 + y2) / 2 / height, (x2 - x1) / width, (y2 - y1) / height)
    np.testing.assert_allclose(_labels(out / "labels" / "restyled_0_0000.txt"), [whole], atol=1e-3)
    quarters = _labels(out / "labels" / "mosaic_0000.txt")
    assert len(quarters) == 4  # one tile from each printing, at half size
    np.testing.assert_allclose([q[3:] for q in quarters], [np.array(whole[3:]) / 2] * 4, atol=2e-3)
    assert write_restyled_training(real_root, out, seed=1, copies=1) == 2  # written anew: 2 printings, no mosaic
    assert len(list((out / "images").glob("*.jpg"))) == 2


def test_editions_never_trained_on_and_no_printing_are_refused(real_root, tmp_path):
    from training.restyled_real import write_restyled_training

    with pytest.raises(ValueError, match="never trained"):
        write_restyled_training(real_root, tmp_path / "r", seed=0, editions=("classic", "us-teal"))
    with pytest.raises(ValueError, match="at least 1"):
        write_restyled_training(real_root, tmp_path / "r", seed=0, copies=0)


@needs_edition_fonts
def test_the_detector_config_adds_the_printed_photos_to_training(real_root, tmp_path):
    import yaml

    from training.train_detector import TrainingConfigError, build_data_yaml

    prepared = build_data_yaml({"real": str(real_root), "restyled": {"copies": 1, "seed": 3}}, tmp_path / "work")
    data = yaml.safe_load(prepared.data_yaml.read_text())
    assert data["train"] == [str(tmp_path / "work" / "real" / "train" / "images"), str(tmp_path / "work" / "restyled" / "images")]
    assert prepared.train_images == 4 + 2  # the four real copies, two printings
    with pytest.raises(TrainingConfigError, match="set `real`"):
        build_data_yaml({"restyled": {"copies": 1}, "synthetic": {"count": 0}}, tmp_path / "work2")


def test_a_mosaic_needs_its_photos_and_keeps_one_photo_as_it_is():
    image = np.full((40, 60, 3), 7, np.uint8)
    tile = Tile(Colour.RED, 3)
    same, labelled = mosaic([(image, [(tile, (1, 2, 11, 22))])], 1)
    assert same is image and labelled == [(tile, (1.0, 2.0, 11.0, 22.0))]
    with pytest.raises(ValueError, match="needs 4 photos"):
        mosaic([(image, [])] * 3, 2)
