"""Tile crops, the reader's class mapping and batching, and the crop dataset builder."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from solver.tiles import NUM_KINDS, Tile, parse_tile
from vision.crops import (
    CROP_SIZE,
    PAD_FRACTION,
    SOFTEN_FROM_PX,
    CropError,
    box_in_crop,
    crop_square,
    crop_tile,
    crop_tiles,
    hide_beyond_box,
)
from vision.model_files import ModelFile, model_path
from vision.reader import (
    FIRST_MARGIN,
    NOT_TILE,
    READ_PADS,
    ReaderModelError,
    TileReader,
    class_order,
    classify,
    crop_views,
    read_crops,
    read_views,
    views_cut_again,
)

# --- crops -----------------------------------------------------------------------------------


def test_crop_square_is_centred_square_and_padded():
    x1, y1, x2, y2 = crop_square((10, 20, 50, 80))
    assert (x2 - x1) == pytest.approx(y2 - y1) == pytest.approx(60 * (1 + 2 * PAD_FRACTION))
    assert ((x1 + x2) / 2, (y1 + y2) / 2) == pytest.approx((30, 50))


def test_crop_shows_the_box_in_the_middle_at_fixed_size():
    image = np.zeros((200, 300, 3), np.uint8)
    image[50:150, 100:160] = (0, 0, 255)  # a red "tile", 60 x 100
    crop = crop_tile(image, (100, 50, 160, 150))
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    red = crop[..., 2] > 128
    rows, cols = np.nonzero(red)
    # Height fills the crop but for the margin; width is centred.
    margin = CROP_SIZE * PAD_FRACTION / (1 + 2 * PAD_FRACTION)
    assert rows.min() == pytest.approx(margin, abs=1.5) and rows.max() == pytest.approx(CROP_SIZE - 1 - margin, abs=1.5)
    assert (cols.min() + cols.max()) / 2 == pytest.approx((CROP_SIZE - 1) / 2, abs=1.0)


def test_crop_is_scale_invariant():
    small = np.zeros((100, 100, 3), np.uint8)
    cv2.circle(small, (50, 50), 20, (255, 255, 255), -1)
    large = cv2.resize(small, (1000, 1000), interpolation=cv2.INTER_NEAREST)
    a = crop_tile(small, (30, 30, 70, 70)).astype(int)
    b = crop_tile(large, (300, 300, 700, 700)).astype(int)
    assert np.abs(a - b).mean() < 12


def _sharpness(crop: np.ndarray) -> float:
    """Mean squared Laplacian: how much fine detail a crop holds."""
    return float((cv2.Laplacian(crop.astype(np.float32), cv2.CV_32F) ** 2).mean())


def test_only_a_large_tile_is_softened_and_by_the_same_share_of_its_crop():
    """A tile just under SOFTEN_FROM_PX keeps its crop's fine detail; the same tile drawn at and
    over the threshold comes out softer, and equally soft at any crop size."""
    def tile(long_side: int) -> tuple[np.ndarray, tuple[float, float, float, float]]:
        image = np.full((long_side + 40, long_side + 40, 3), 200, np.uint8)
        width = long_side * 2 // 3
        image[20 : 20 + long_side, 20 : 20 + width] = 240
        cv2.putText(image, "8", (20 + width // 5, 20 + long_side * 3 // 4), cv2.FONT_HERSHEY_SIMPLEX,
                    long_side / 45, (20, 20, 20), max(long_side // 25, 1))
        return image, (20.0, 20.0, 20.0 + width, 20.0 + long_side)

    sharp = _sharpness(crop_tile(*tile(SOFTEN_FROM_PX - 1)))
    for long_side in (SOFTEN_FROM_PX, 2 * SOFTEN_FROM_PX):
        big, big_box = tile(long_side)
        assert _sharpness(crop_tile(big, big_box)) < 0.8 * sharp
    # The blur scales with the crop: a crop twice the size is the same picture, twice as large.
    big, big_box = tile(2 * SOFTEN_FROM_PX)
    small, large = crop_tile(big, big_box), crop_tile(big, big_box, size=2 * CROP_SIZE)
    assert np.abs(cv2.resize(large, (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_AREA).astype(int) - small.astype(int)).mean() < 1


def test_crop_at_the_edge_repeats_the_border():
    image = np.zeros((100, 100, 3), np.uint8)
    image[:, :10] = 200
    crop = crop_tile(image, (0, 40, 20, 70))
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    x1, y1, x2, y2 = box_in_crop((0, 40, 20, 70), CROP_SIZE, PAD_FRACTION)
    assert x1 > 5  # the square runs off the photo on the left
    assert (crop[int(y1) + 1 : int(y2) - 1, 0] == 200).all()  # there: the photo's edge column, repeated


def test_a_crop_hides_the_neighbours_beyond_the_box():
    """An upright tile between two others: its square crop would show half of each neighbour's
    digit; beyond the box and a small margin it shows one grey instead, the tile itself untouched."""
    image, box = _three_tiles()
    crop = crop_tile(image, box, size=150)
    bx1, by1, bx2, by2 = box_in_crop(box, 150, PAD_FRACTION)
    margin = PAD_FRACTION * (bx2 - bx1)
    outside = np.ones((150, 150), bool)
    outside[int(by1 - margin) - 1 : int(by2 + margin) + 2, int(bx1 - margin) - 1 : int(bx2 + margin) + 2] = False
    assert (crop[outside] == crop[outside][0]).all()  # one colour beyond the box ...
    assert crop[outside][0].tolist() == [240, 240, 240]  # ... the grey of the kept part's edge
    assert ((crop[..., 0] > 150) & (crop[..., 2] < 100)).sum() > 0  # the tile's own blue digit stays
    assert (crop.max(axis=-1) < 50).sum() == 0  # no neighbour's digit: the darkest ink was theirs
    unmasked = image[25:175, 160 - 46 : 220 + 46]
    assert (unmasked.max(axis=-1) < 50).sum() > 0  # the plain square would have shown them


def _three_tiles() -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """Three ivory tiles side by side (60 x 150) on a paler table; the middle one's box."""
    image = np.full((200, 400, 3), 230, np.uint8)
    for x in (100, 160, 220):
        image[25:175, x : x + 60] = 240
    image[60:140, 140:150] = 20  # the left neighbour's digit, near the shared edge
    image[60:140, 230:240] = 20  # the right neighbour's
    image[60:140, 185:195] = (200, 60, 0)  # the middle tile's own blue digit
    return image, (160.0, 25.0, 220.0, 175.0)


def test_views_saved_with_the_neighbours_are_cut_again_as_crops_are_cut_now():
    """A profile made before crops hid the neighbours keeps views that show them; cut again from
    the tile's box they match today's views, and today's views come back as they were."""
    image, box = _three_tiles()
    now = crop_views(image, [box], 64)[:, 0]
    old = []
    for pad in READ_PADS:  # the square as it was cut before, neighbours and all
        x1, y1, x2, y2 = (int(round(v)) for v in crop_square(box, pad))
        old.append(cv2.resize(image[y1:y2, x1:x2], (64, 64), interpolation=cv2.INTER_AREA))
    old = np.stack(old)
    assert (old.max(axis=-1) < 50).sum() > 0
    again = views_cut_again(old, box)
    assert again.shape == old.shape and (again.max(axis=-1) < 50).sum() == 0
    assert np.abs(again.astype(int) - now.astype(int)).mean() < 2
    assert np.abs(views_cut_again(now, box).astype(int) - now.astype(int)).mean() < 1
    with pytest.raises(ValueError, match="margins"):
        views_cut_again(old[:2], box)


def test_hiding_beyond_the_box_keeps_a_box_that_fills_its_region():
    region = np.arange(10 * 10 * 3, dtype=np.uint8).reshape(10, 10, 3)
    assert hide_beyond_box(region, (0, 0, 10, 10), 0.08) is region
    assert hide_beyond_box(region, (4, 4, 4, 8), 0.0) is region  # nothing kept: left as it is


def test_crop_tiles_stacks_in_box_order_and_handles_none():
    image = np.zeros((100, 100, 3), np.uint8)
    image[:50] = 255
    crops = crop_tiles(image, [(10, 10, 30, 30), (10, 70, 30, 90)], size=16)
    assert crops.shape == (2, 16, 16, 3)
    assert crops[0].mean() > 200 and crops[1].mean() < 50
    assert crop_tiles(image, np.zeros((0, 4)), size=16).shape == (0, 16, 16, 3)


@pytest.mark.parametrize("box", [(10, 10, 10, 30), (30, 10, 10, 30), (200, 200, 260, 260), (-80, -80, -20, -20)])
def test_bad_boxes_are_refused(box):
    with pytest.raises(CropError):
        crop_tile(np.zeros((100, 100, 3), np.uint8), box)


def test_empty_image_is_refused():
    with pytest.raises(CropError):
        crop_tile(np.zeros((0, 10, 3), np.uint8), (0, 0, 5, 5))


# --- class mapping and batching --------------------------------------------------------------


def test_class_order_maps_dataset_and_canonical_names():
    dataset_names = sorted(f"{c}_{n}" for c in ("black", "blue", "orange", "red") for n in range(1, 14)) + ["joker"]
    order = class_order(dict(enumerate(sorted(dataset_names))))
    assert sorted(order) == list(range(NUM_KINDS))
    assert order[sorted(dataset_names).index("red_7")] == parse_tile("red-7").index
    assert order[sorted(dataset_names).index("joker")] == parse_tile("joker").index
    canonical = [Tile.from_index(i).name for i in range(NUM_KINDS)]
    assert class_order(canonical) == tuple(range(NUM_KINDS))


def test_class_order_refuses_a_model_that_is_not_a_tile_reader():
    with pytest.raises(ReaderModelError):
        class_order(["cat", "dog"] * 26 + ["joker"])
    with pytest.raises(ReaderModelError):
        class_order(["red-1"] * 53)


class _MeanColourSession:
    """A stand-in ONNX session: class 0 for bright top-left quarters, else class 1 (fixed probs).

    With ``extra`` classes beyond the 53 (a ``not-tile`` class), dark crops put 0.5 on the last.
    """

    def __init__(self, classes: int = NUM_KINDS) -> None:
        self.classes = classes

    def get_inputs(self):
        class _Input:
            name = "images"

        return [_Input()]

    def run(self, _outputs, feeds):
        batch = feeds["images"]
        bright = batch[:, :, :8, :8].mean(axis=(1, 2, 3)) > 0.5
        probs = np.full((len(batch), self.classes), 0.1 / (self.classes - 1), np.float32)
        probs[bright, 0] = 0.9
        probs[~bright, 1] = 0.9
        if self.classes > NUM_KINDS:
            probs[~bright] = 0.5 / (self.classes - 1)
            probs[~bright, -1] = 0.5
        embedding = np.stack([bright.astype(np.float32), np.ones(len(batch), np.float32)], axis=1)
        return [probs, embedding]


def _stand_in_reader(order: tuple[int, ...], classes: int = NUM_KINDS) -> TileReader:
    names = tuple(str(i) for i in range(classes))
    return TileReader(ModelFile(Path("stand-in.onnx"), _MeanColourSession(classes), names, 16, 1), 16, order)


def test_classify_maps_classes_to_tile_order_and_averages_rotations():
    reversed_order = tuple(reversed(range(NUM_KINDS)))  # model class c is tile 52 - c
    reader = _stand_in_reader(reversed_order)
    crops = np.zeros((3, 16, 16, 3), np.uint8)
    crops[0, :8, :8] = 255  # bright corner only in the unrotated view
    crops[1] = 255  # bright in every rotation
    probs = classify(crops, reader, rotations=False)
    assert probs.shape == (3, NUM_KINDS)
    assert np.allclose(probs.sum(axis=1), 1.0)
    assert probs[0, 52] == pytest.approx(0.9) and probs[2, 51] == pytest.approx(0.9)
    turned = classify(crops, reader, rotations=True)
    assert turned[1, 52] == pytest.approx(0.9)
    assert turned[0, 52] == pytest.approx((0.9 + 3 * 0.1 / 52) / 4)  # one of four views
    assert classify(np.zeros((0, 16, 16, 3), np.uint8), reader).shape == (0, NUM_KINDS)
    with pytest.raises(ValueError):
        classify(np.zeros((2, 16, 16)), reader)


def test_a_not_tile_class_is_reported_apart_and_tiles_renormalised():
    order = tuple(range(NUM_KINDS)) + (-1,)
    reader = _stand_in_reader(order, classes=NUM_KINDS + 1)
    crops = np.zeros((2, 16, 16, 3), np.uint8)
    crops[0] = 255  # bright: a tile (class 0); dark: half on not-tile
    read = read_crops(crops, reader)
    assert read.tile_prob[0] == pytest.approx(1 - 0.1 / NUM_KINDS, abs=1e-6)
    assert read.tile_prob[1] == pytest.approx(0.5)
    assert np.allclose(read.probs.sum(axis=1), 1.0)
    assert read.probs[0].argmax() == 0
    assert read.embeddings.shape == (2, 2) and read.embeddings[0, 0] == pytest.approx(1.0)


class _BrightnessSession(_MeanColourSession):
    """A stand-in session that reads a crop by its mean brightness m and counts what it saw:
    m >= 0.9 is surely class 0 (0.99); darker crops are class 1 with probability 0.3 + 0.5 m."""

    def __init__(self) -> None:
        super().__init__()
        self.crops_seen = 0

    def run(self, _outputs, feeds):
        batch = feeds["images"]
        self.crops_seen += len(batch)
        m = batch.mean(axis=(1, 2, 3))
        probs = np.empty((len(batch), self.classes), np.float32)
        top = np.where(m >= 0.9, 0.99, 0.3 + 0.5 * m)
        probs[:] = ((1 - top) / (self.classes - 1))[:, None]
        probs[m >= 0.9, 0] = 0.99
        probs[m < 0.9, 1] = top[m < 0.9]
        return [probs, np.stack([m, np.ones(len(batch))], axis=1).astype(np.float32)]


def test_sure_tiles_are_read_at_one_margin_and_doubtful_ones_at_every_margin():
    session = _BrightnessSession()
    reader = TileReader(ModelFile(Path("stand-in.onnx"), session, tuple(map(str, range(NUM_KINDS))), 16, 1), 16, tuple(range(NUM_KINDS)))
    margins = len(READ_PADS)
    views = np.zeros((margins, 2, 16, 16, 3), np.uint8)
    views[:, 0] = 255  # tile 0: bright at every margin, sure at the first look
    views[:, 1] = 153  # tile 1: m = 0.6 at the other margins ...
    views[FIRST_MARGIN, 1] = 51  # ... and m = 0.2 at the first: doubtful
    read = read_views(views, reader)
    assert session.crops_seen == 4 * 2 + 4 * (margins - 1)  # four turns each; only tile 1 again
    assert read.probs[0, 0] == pytest.approx(0.99)
    assert read.probs[1, 1] == pytest.approx((0.3 + 0.5 * 0.2 + (margins - 1) * (0.3 + 0.5 * 0.6)) / margins, abs=1e-5)
    assert np.allclose(read.probs.sum(axis=1), 1.0)
    assert read.embeddings[1, 0] == pytest.approx((0.2 + (margins - 1) * 0.6) / margins, abs=1e-5)
    assert read.embeddings[0, 0] == pytest.approx(1.0)
    empty = read_views(np.zeros((margins, 0, 16, 16, 3), np.uint8), reader)
    assert empty.probs.shape == (0, NUM_KINDS) and empty.tile_prob.shape == (0,)
    with pytest.raises(ValueError, match="margins"):
        read_views(views[:1], reader)


def test_class_order_takes_one_not_tile_class_at_most():
    canonical = [Tile.from_index(i).name for i in range(NUM_KINDS)]
    assert class_order(canonical + [NOT_TILE])[-1] == -1
    with pytest.raises(ReaderModelError):
        class_order(canonical + [NOT_TILE, NOT_TILE])


# --- the crop dataset builder ----------------------------------------------------------------


@pytest.fixture()
def tiny_real(tmp_path):
    """A 2-photo stand-in for rummikub-real: data.yaml, images, polygon labels."""
    names = sorted([f"{c}_{n}" for c in ("black", "blue", "orange", "red") for n in range(1, 14)] + ["joker"])
    (tmp_path / "data.yaml").write_text(json.dumps({"names": names}))
    for split, stem in (("train", "rummy-1_jpeg.rf.aaa"), ("train", "rummy-1_jpeg.rf.bbb"), ("train", "rummy-2_jpeg.rf.ccc")):
        (tmp_path / split / "images").mkdir(parents=True, exist_ok=True)
        (tmp_path / split / "labels").mkdir(parents=True, exist_ok=True)
        image = np.full((128, 128, 3), 90, np.uint8)
        cv2.rectangle(image, (40, 30), (70, 75), (230, 230, 230), -1)
        cv2.imwrite(str(tmp_path / split / "images" / f"{stem}.jpg"), image)
        cls = names.index("red_7")
        poly = np.array([[40, 30], [70, 30], [70, 75], [40, 75]]) / 128
        (tmp_path / split / "labels" / f"{stem}.txt").write_text(f"{cls} " + " ".join(f"{v:.4f}" for v in poly.ravel()) + "\n")
    return tmp_path


def test_load_real_split_reads_polygons_in_pixels(tiny_real):
    from training.real_data import load_real_split

    photos = load_real_split(tiny_real, "train")
    assert [p.group for p in photos] == ["rummy-1", "rummy-1", "rummy-2"]
    (labelled,) = photos[0].tiles
    assert labelled.tile == parse_tile("red-7")
    assert labelled.box == pytest.approx((40, 30, 70, 75), abs=0.1)


def test_missing_dataset_is_a_clear_error(tmp_path):
    from training.real_data import DatasetError, load_real_split

    with pytest.raises(DatasetError, match="data.yaml"):
        load_real_split(tmp_path, "train")


def test_holdout_keeps_augmented_copies_together(tiny_real):
    from training.real_data import load_real_split
    from training.train_reader import split_holdout

    photos = load_real_split(tiny_real, "train")
    train, holdout = split_holdout(photos, 0.5, np.random.default_rng(0))
    assert {p.group for p in train}.isdisjoint({p.group for p in holdout})
    assert len(train) + len(holdout) == 3 and len(holdout) in (1, 2)


def test_rotated_views_keep_the_tile_centred():
    from training.train_reader import _rotated_view

    image = np.full((200, 200, 3), 60, np.uint8)
    image[60:140, 80:120] = 250  # a tall bright tile, 40 x 80
    polygon = np.array([[80, 60], [120, 60], [120, 140], [80, 140]], float)
    rng = np.random.default_rng(0)
    upright = _rotated_view(image, polygon, 0.0, 0.0, rng, 32)
    turned = _rotated_view(image, polygon, 90.0, 0.0, rng, 32)
    assert np.abs(np.rot90(upright).astype(int) - turned.astype(int)).mean() < 10
    bright = turned[..., 0] > 160
    rows, cols = np.nonzero(bright)
    assert cols.max() - cols.min() > rows.max() - rows.min()  # lying down now


def test_build_dataset_writes_every_class_folder(tiny_real, tmp_path):
    from training.train_reader import build_dataset

    config = {
        "seed": 0,
        "dataset": {
            "holdout_fraction": 0.5, "crop_size": 24, "real_views": 2, "angle_jitter": 10,
            "box_jitter": 0.05, "synthetic_per_class": 1, "holdout_views": 1,
        },
    }
    out = tmp_path / "crops"
    counts = build_dataset(config, tiny_real, out)
    assert counts["train_synthetic"] == NUM_KINDS
    held_out = counts["holdout_photos"]
    assert len(held_out) == 1
    copies = {"rummy-1": 2, "rummy-2": 1}
    assert counts["val"] == copies[held_out[0]] * 1  # holdout_views
    assert counts["train_real"] == (3 - copies[held_out[0]]) * 2  # real_views
    assert sorted(p.name for p in (out / "train").iterdir()) == sorted(Tile.from_index(i).name for i in range(NUM_KINDS))
    crop = cv2.imread(str(next((out / "train" / "red-7").glob("train_real_*.png"))))
    assert crop.shape == (24, 24, 3)
    # Same config, same bytes.
    again = build_dataset(config, tiny_real, tmp_path / "again")
    assert again == counts


def test_scene_dataset_adds_crops_of_synthetic_photos(tiny_real, tmp_path):
    from training.train_reader import build_dataset, build_scene_dataset

    config = {
        "seed": 0,
        "dataset": {
            "holdout_fraction": 0.5, "crop_size": 24, "real_views": 1, "angle_jitter": 0,
            "box_jitter": 0.05, "synthetic_per_class": 0, "holdout_views": 1,
        },
        "scenes": {"count": 1, "min_visible": 0.7},
    }
    base = tmp_path / "base"
    build_dataset(config, tiny_real, base)
    counts = build_scene_dataset(config, base, tmp_path / "scenes")
    assert counts["scene_crops"] > 0
    scene_files = list((tmp_path / "scenes" / "train").glob("*/scene_*.png"))
    assert len(scene_files) == counts["scene_crops"]
    assert cv2.imread(str(scene_files[0])).shape == (24, 24, 3)
    base_files = sorted(p.relative_to(base) for p in base.glob("*/*/*.png"))
    assert all((tmp_path / "scenes" / f).is_file() for f in base_files)  # the base crops, linked
    assert (base / base_files[0]).stat().st_nlink == 2


# --- the shipped model -----------------------------------------------------------------------


@pytest.mark.skipif(not model_path("reader").is_file(), reason="models/reader.onnx not shipped (python -m training.export reader)")
def test_shipped_reader_reads_rendered_tiles():
    from datasets.synth.tiles import render_tile
    from vision.reader import load_reader

    reader = load_reader()
    assert reader.imgsz >= 32
    rng = np.random.default_rng(7)
    tiles = [Tile.from_index(i) for i in rng.choice(NUM_KINDS, 40, replace=False)]
    crops = []
    for t in tiles:
        face = render_tile(t, rng, 90)
        canvas = np.full((140, 140, 3), 70, np.uint8)
        h, w = face.shape[:2]
        y, x = (140 - h) // 2, (140 - w) // 2
        alpha = face[..., 3:] / 255.0
        canvas[y : y + h, x : x + w] = (canvas[y : y + h, x : x + w] * (1 - alpha) + face[..., :3] * alpha).astype(np.uint8)
        crops.append(crop_tile(canvas, (x, y, x + w, y + h), reader.imgsz))
    probs = classify(np.stack(crops), reader)
    accuracy = np.mean([int(np.argmax(p)) == t.index for p, t in zip(probs, tiles)])
    assert accuracy >= 0.8


def test_read_tiles_reads_loose_and_tight_boxes_alike():
    """Detector boxes are a few pixels loose; reading at two margins keeps a tile's name."""
    from datasets.synth.tiles import render_tile
    from vision.reader import load_reader, read_tiles

    reader = load_reader()
    rng = np.random.default_rng(11)
    tiles = [Tile.from_index(i) for i in rng.choice(NUM_KINDS, 24, replace=False)]
    canvas = np.full((140, 140 * len(tiles), 3), 70, np.uint8)
    tight, loose = [], []
    for k, t in enumerate(tiles):
        face = render_tile(t, rng, 60)
        h, w = face.shape[:2]
        y, x = (140 - h) // 2, 140 * k + (140 - w) // 2
        alpha = face[..., 3:] / 255.0
        canvas[y : y + h, x : x + w] = (canvas[y : y + h, x : x + w] * (1 - alpha) + face[..., :3] * alpha).astype(np.uint8)
        tight.append((x, y, x + w, y + h))
        loose.append((x - 0.1 * w, y - 0.1 * h, x + 1.1 * w, y + 1.1 * h))
    read_tight, read_loose = read_tiles(canvas, tight, reader), read_tiles(canvas, loose, reader)
    assert read_tight.shape == (len(tiles), NUM_KINDS) and np.allclose(read_loose.sum(axis=1), 1.0)
    truth = [t.index for t in tiles]
    assert np.mean(read_tight.argmax(axis=1) == truth) >= 0.8
    assert np.mean(read_loose.argmax(axis=1) == truth) >= 0.8
    assert read_tiles(canvas, [], reader).shape == (0, NUM_KINDS)
