"""The font-shape fine-tune's data (training/font_reader.py, the small-tile crops of train_reader)."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth.editions import HELD_OUT, TRAINING_EDITIONS
from datasets.synth.font_shape import FONT_SHAPE
from solver.tiles import Tile
from training import font_reader
from training.train_reader import synthetic_crop
from vision.detections import Detections


def test_draw_heights_come_from_the_measured_sizes_in_range():
    sizes = np.array([10.0, 15.2, 22.0, 37.9, 55.0, 200.0], np.float32)
    heights = font_reader.draw_heights(sizes, 200, 12, 40, np.random.default_rng(0))
    assert set(heights.tolist()) == {15, 22, 38}
    assert np.array_equal(heights, font_reader.draw_heights(sizes, 200, 12, 40, np.random.default_rng(0)))


def test_draw_heights_without_measured_sizes_in_range_are_uniform_in_range():
    heights = font_reader.draw_heights(np.array([100.0]), 300, 12, 40, np.random.default_rng(1))
    assert heights.min() >= 12 and heights.max() <= 40 and len(set(heights.tolist())) > 20


@pytest.mark.parametrize("low, high", [(4, 40), (40, 12)])
def test_draw_heights_rejects_bad_ranges(low, high):
    with pytest.raises(ValueError, match="heights"):
        font_reader.draw_heights(np.array([20.0]), 5, low, high, np.random.default_rng(0))


def test_size_summary_reports_percentiles_and_shares_and_rejects_no_sizes():
    summary = font_reader.size_summary(np.array([10.0, 20.0, 30.0, 100.0]))
    assert summary["tiles"] == 4 and summary["p50"] == 25.0
    assert summary["under_20px"] == 0.25 and summary["under_40px"] == 0.75 and summary["under_80px"] == 0.75
    with pytest.raises(ValueError, match="no detected tiles"):
        font_reader.size_summary(np.zeros(0))


def test_detected_tile_sizes_keep_the_boxes_on_tiles_only(monkeypatch):
    seen = {}

    def fake_detect(image, weights=None):
        scene, _ = font_reader.mixed_scene((1502, 0), TRAINING_EDITIONS)
        boxes = np.array([t.box for t in scene.tiles] + [[0, 0, 3, 500]], np.float32)  # + a box on no tile
        seen["truth"] = np.array([t.box for t in scene.tiles], np.float32)
        return Detections(boxes, np.ones(len(boxes), np.float32))

    monkeypatch.setattr("vision.detector.detect_tiles", fake_detect)
    sizes = font_reader.detected_tile_sizes([(1502, 0)], TRAINING_EDITIONS)
    truth = seen["truth"]
    assert np.allclose(sorted(sizes), sorted(np.maximum(truth[:, 2] - truth[:, 0], truth[:, 3] - truth[:, 1])))


def test_training_editions_hold_no_held_out_edition():
    assert not {e.name for e in TRAINING_EDITIONS} & HELD_OUT


def test_small_font_shaped_crop_is_seeded_and_64_square():
    tile, edition = Tile.from_index(11), TRAINING_EDITIONS[1]
    crop = synthetic_crop(tile, np.random.default_rng(3), 64, [], edition, 18, FONT_SHAPE)
    again = synthetic_crop(tile, np.random.default_rng(3), 64, [], edition, 18, FONT_SHAPE)
    plain = synthetic_crop(tile, np.random.default_rng(3), 64, [], edition, 18)
    assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8
    assert np.array_equal(crop, again) and not np.array_equal(crop, plain)


def test_default_synthetic_crop_draws_the_old_heights():
    """Without a height the crop is the one the reader's datasets were built with (40-129 px, no far camera)."""
    tile = Tile.from_index(5)
    given = np.random.default_rng(9)
    height = int(given.integers(40, 130))  # what the default draws first from the same generator
    assert height >= 40
    assert np.array_equal(synthetic_crop(tile, np.random.default_rng(9), 64, []), synthetic_crop(tile, given, 64, [], height=height))


def test_fonts_config_keeps_the_editions_data_and_validation():
    from pathlib import Path

    from training.configs import load_config

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    fonts, editions = load_config(configs / "reader_fonts.yaml"), load_config(configs / "reader_editions.yaml")
    assert fonts["editions"] == editions["editions"] and fonts["dataset"] == editions["dataset"]
    assert fonts["fonts"]["out"] != editions["editions"]["out"]
    assert fonts["fonts"]["small_heights"] == [12, 40] and 0 < fonts["fonts"]["small_share"] < 1


@pytest.mark.parametrize(
    "config, base, same_seed",
    [("reader_closeups.yaml", "reader_fonts.yaml", True), ("reader_more_photos.yaml", "reader_closeups.yaml", False),
     ("reader_more_photos2.yaml", "reader_more_photos.yaml", False),
     ("reader_more_photos3.yaml", "reader_more_photos.yaml", False),
     ("reader_more_photos4.yaml", "reader_more_photos.yaml", False)],
)
def test_more_photos_configs_continue_their_stage_with_the_same_validation(config, base, same_seed):
    from pathlib import Path

    from training.configs import load_config

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    later, earlier = load_config(configs / config), load_config(configs / base)
    new, old = later["editions"], earlier["editions"]
    # reader_closeups: the same seed base, so its first scenes are the fonts stage's own;
    # reader_more_photos: a new seed base, other photos of the same generator
    assert (new["scene_seed"] == old["scene_seed"]) == same_seed and new["scenes"] >= old["scenes"]
    assert (new["val_scene_seed"], new["val_scenes"]) == (old["val_scene_seed"], old["val_scenes"])
    assert new["val_scene_seed"] not in (new["scene_seed"], old["scene_seed"])
    assert later["dataset"] == earlier["dataset"]
    outs = {new["out"], old["out"], later["fonts"]["out"], earlier["fonts"]["out"]}
    assert len(outs) == 4  # nothing of the earlier stage's data is overwritten
    assert later["fonts"]["train"]["lr0"] < earlier["fonts"]["train"]["lr0"]


def test_each_round_of_photos_draws_scenes_no_other_round_nor_test_set_draws():
    from pathlib import Path

    from training.configs import load_config
    from training.testsets import TEST_SETS

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    rounds = ["reader_more_photos.yaml", "reader_more_photos2.yaml", "reader_more_photos3.yaml", "reader_more_photos4.yaml"]
    seeds = [load_config(configs / name)["editions"]["scene_seed"] for name in rounds]
    assert len(set(seeds)) == len(seeds) and not set(seeds) & {t.seed for t in TEST_SETS}


def test_the_masked_photos_round_draws_new_photos_and_keeps_the_masked_stage_whole():
    """Session 22's round on the masked crops: other seeds than the stage it continues, the same
    validation and real crops, and none of that stage's data overwritten."""
    from pathlib import Path

    from training.configs import load_config

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    later, earlier = load_config(configs / "reader_masked_photos.yaml"), load_config(configs / "reader_masked.yaml")
    new, old = later["editions"], earlier["editions"]
    assert new["scene_seed"] != old["scene_seed"] and new["scenes"] == old["scenes"]
    assert (new["val_scene_seed"], new["val_scenes"]) == (old["val_scene_seed"], old["val_scenes"])
    assert later["dataset"] == earlier["dataset"]
    assert len({new["out"], old["out"], later["fonts"]["out"], earlier["fonts"]["out"]}) == 4


def test_the_96px_round_crops_and_trains_at_one_size_on_new_photos_and_overwrites_no_other_recipe():
    """Session 23's reader at 96 px: its crops are cut at the size it trains at (the reader crops
    at the model's input size), its photos are drawn by no other recipe nor test set, and none of
    the data folders of another recipe (its real-crop base included) is written again."""
    from pathlib import Path

    from training.configs import load_config
    from training.testsets import TEST_SETS

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    config = load_config(configs / "reader_96px.yaml")
    assert config["dataset"]["crop_size"] == config["train"]["imgsz"] == 96
    others = [load_config(path) for path in sorted(configs.glob("reader*.yaml")) if path.name != "reader_96px.yaml"]
    seeds = {c["editions"]["scene_seed"] for c in others if "editions" in c}
    assert config["editions"]["scene_seed"] not in seeds | {t.seed for t in TEST_SETS}
    theirs = {c[part]["out"] for c in others for part in ("dataset", "editions", "fonts") if part in c}
    ours = {config[part]["out"] for part in ("dataset", "editions", "fonts")}
    assert len(ours) == 3 and not ours & theirs


def test_training_runs_on_the_device_and_seed_asked_for_with_the_config_s_crops(monkeypatch, tmp_path):
    """``--device`` and ``--train-seed`` reach the training run; without them it is the CPU and the config's seed."""
    from pathlib import Path

    import training.font_reader as font_reader

    calls = []
    monkeypatch.setattr(font_reader, "_train_stage", lambda *args: calls.append(args) or tmp_path / "best.pt")
    config = Path(__file__).resolve().parents[1] / "datasets" / "configs" / "reader_members.yaml"
    common = ["--config", str(config), "--no-build", "--from", str(tmp_path / "start.pt")]
    assert font_reader.main(common) == 0
    assert font_reader.main([*common, "--device", "0", "--train-seed", "3", "--time", "0.1"]) == 0
    (_, first, data, _, _, seed, device), (_, second, data2, _, _, seed2, device2) = calls
    assert (seed, device) == (0, "cpu") and (seed2, device2) == (3, "0")
    assert data == data2 and data.name == "reader-members"  # one crop set for every run
    assert second["time"] == 0.1 and "time" not in first and first == {k: v for k, v in second.items() if k != "time"}


def test_a_training_run_is_deterministic_unless_its_settings_say_otherwise(monkeypatch, tmp_path):
    import sys
    import types

    from training.train_reader import _train_stage

    runs = []

    class FakeYolo:
        def __init__(self, start, task):
            self.start = start

        def train(self, **kwargs):
            runs.append(kwargs)
            best = Path(kwargs["project"]) / kwargs["name"] / "weights" / "best.pt"
            best.parent.mkdir(parents=True, exist_ok=True)
            best.write_bytes(b"weights")

    from pathlib import Path

    from training import yolo_env

    monkeypatch.setitem(sys.modules, "ultralytics", types.SimpleNamespace(YOLO=FakeYolo))
    monkeypatch.setattr(yolo_env, "configure_threads", lambda threads=None: 1)
    best = _train_stage("start.pt", {"epochs": 1}, tmp_path / "data", tmp_path / "runs", "a", 5)
    assert best == tmp_path / "runs" / "a" / "weights" / "best.pt" and best.is_file()
    _train_stage("start.pt", {"deterministic": False}, tmp_path / "data", tmp_path / "runs", "b", 5, device="0")
    assert (runs[0]["deterministic"], runs[0]["device"], runs[0]["seed"]) == (True, "cpu", 5)
    assert (runs[1]["deterministic"], runs[1]["device"]) == (False, "0")


def test_the_members_round_draws_new_photos_and_overwrites_no_other_recipe():
    """Session 28's readers to average: the masked stage's real crops and validation, photos no other recipe nor
    test set draws, and no other recipe's editions or font-shaped crops written again."""
    from pathlib import Path

    from training.configs import load_config
    from training.testsets import TEST_SETS

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    config, masked = load_config(configs / "reader_members.yaml"), load_config(configs / "reader_masked.yaml")
    # reader_members_gpu.yaml trains other runs on this very crop set (below)
    others = [load_config(path) for path in sorted(configs.glob("reader*.yaml")) if not path.name.startswith("reader_members")]
    seeds = {c["editions"]["scene_seed"] for c in others if "editions" in c}
    assert config["editions"]["scene_seed"] not in seeds | {t.seed for t in TEST_SETS}
    assert config["dataset"] == masked["dataset"]
    new, old = config["editions"], masked["editions"]
    assert (new["val_scene_seed"], new["val_scenes"], new["scenes"]) == (old["val_scene_seed"], old["val_scenes"], old["scenes"])
    theirs = {c[part]["out"] for c in others for part in ("editions", "fonts") if part in c}
    assert not {config["editions"]["out"], config["fonts"]["out"]} & theirs


def test_the_gpu_members_train_from_scratch_on_the_members_crops():
    """The lent-GPU recipe reads the crop set of reader_members.yaml (built once, several runs on it) and the
    script that runs it names that recipe."""
    from pathlib import Path

    from training.configs import load_config

    root = Path(__file__).resolve().parents[1]
    configs = root / "datasets" / "configs"
    gpu, cpu = load_config(configs / "reader_members_gpu.yaml"), load_config(configs / "reader_members.yaml")
    assert (gpu["dataset"], gpu["editions"], gpu["fonts"]["out"]) == (cpu["dataset"], cpu["editions"], cpu["fonts"]["out"])
    assert gpu["fonts"]["train"]["lr0"] == load_config(configs / "reader.yaml")["train"]["lr0"]  # stage 1's, from scratch
    script = (root / "training" / "lent_gpu_readers.sh").read_text()
    assert "C=datasets/configs/reader_members_gpu.yaml" in script and "--from yolov8n-cls.yaml" in script


def test_the_second_phone_round_draws_photos_no_other_recipe_nor_test_set_draws():
    """Session 41's round continues session 40's: the same real crops and validation, photos of both kinds
    from seeds no other reader recipe nor test set draws, and no other recipe's crops written again."""
    from pathlib import Path

    from training.configs import load_config
    from training.testsets import TEST_SETS

    configs = Path(__file__).resolve().parents[1] / "datasets" / "configs"
    config, phone = load_config(configs / "reader_phone2.yaml"), load_config(configs / "reader_phone.yaml")
    others = [load_config(path) for path in sorted(configs.glob("reader*.yaml")) if path.name != "reader_phone2.yaml"]
    drawn = {c["editions"][key] for c in others if "editions" in c for key in ("scene_seed", "phone_scene_seed") if key in c["editions"]}
    new, old = config["editions"], phone["editions"]
    ours = {new["scene_seed"], new["phone_scene_seed"]}
    assert len(ours) == 2 and not ours & (drawn | {t.seed for t in TEST_SETS} | {new["val_scene_seed"]})
    assert new["phone_scenes"] > 0 and config["dataset"] == phone["dataset"]
    assert (new["val_scene_seed"], new["val_scenes"]) == (old["val_scene_seed"], old["val_scenes"])
    theirs = {c[part]["out"] for c in others for part in ("editions", "fonts") if part in c}
    assert not {new["out"], config["fonts"]["out"]} & theirs
