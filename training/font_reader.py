"""Fine-tune the editions reader to read fonts it has never seen, and small tiles (issue 15).

    python -m training.train reader-fonts [--config datasets/configs/reader_fonts.yaml]
                                          [--measure-only] [--build-only] [--no-build] [--time HOURS]

The held-out editions' errors are mostly the number of small tiles in an unseen font. This stage
adds to the editions reader's crops (:mod:`training.generalised_reader`, hard links) rendered tiles
of the *training* editions whose digits are reshaped at random (:mod:`datasets.synth.font_shape`:
stroke weight, width, slant, warp, size and place), most of them rendered as small as the
detector's boxes on the training editions' validation photos show them (:func:`detected_tile_sizes`,
measured on those photos, never on a test set), seen through a far camera and cut by ``crop_tile``.
It starts from ``models/reader-editions.pt`` (54 classes, ``not-tile`` included) and selects the
model on the same validation crops as that stage (the real hold-out plus the training editions'
validation photos). The held-out editions are never rendered here.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.editions import TRAINING_EDITIONS, Edition
from datasets.synth.font_shape import FONT_SHAPE
from datasets.synth.wide_fonts import with_wide_fonts
from solver.tiles import NUM_KINDS, Tile
from training.configs import load_config
from training.generalised_reader import _link_tree, mixed_scene
from training.train_reader import _background_images, _resolve, _train_stage, load_real_split, split_holdout, synthetic_crop
from vision.detections import box_iou

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO_ROOT / "datasets" / "configs" / "reader_fonts.yaml"
#: A detector box is a tile's when it overlaps the labelled box this much.
MATCH_IOU = 0.3

__all__ = ["detected_tile_sizes", "draw_heights", "size_summary", "build", "main"]


def detected_tile_sizes(seeds: Sequence[Sequence[int]], editions: Sequence[Edition], detector: Path | None = None) -> np.ndarray:
    """The longer side (pixels) of every detector box that lies on a labelled tile, over the
    synthetic photos of ``seeds`` (the same photos :func:`training.generalised_reader.scene_sample` draws)."""
    from vision.detector import detect_tiles

    sizes = []
    for seed in seeds:
        scene, _ = mixed_scene(seed, editions)
        truth = np.array([t.box for t in scene.tiles], np.float32).reshape(-1, 4)
        found = detect_tiles(scene.image, weights=detector)
        if len(found) == 0 or len(truth) == 0:
            continue
        on_tile = box_iou(found.boxes, truth).max(axis=1) >= MATCH_IOU
        boxes = found.boxes[on_tile]
        sizes.extend(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]).tolist())
    return np.array(sizes, np.float32)


def size_summary(sizes: np.ndarray) -> dict:
    """Percentiles and shares of the measured tile sizes (what the model card reports)."""
    if len(sizes) == 0:
        raise ValueError("no detected tiles to measure")
    pct = {f"p{q}": round(float(np.percentile(sizes, q)), 1) for q in (5, 25, 50, 75, 95)}
    shares = {f"under_{v}px": round(float((sizes < v).mean()), 3) for v in (20, 30, 40, 80)}
    return {"tiles": int(len(sizes)), **pct, **shares}


def draw_heights(sizes: np.ndarray, count: int, low: int, high: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` tile heights drawn from the measured ``sizes`` that lie in [low, high] (uniform
    there when none do), as integers."""
    if low < 8 or high < low:
        raise ValueError(f"heights must satisfy 8 <= low <= high, got {low}, {high}")
    inside = sizes[(sizes >= low) & (sizes <= high)]
    drawn = rng.choice(inside, count) if len(inside) else rng.uniform(low, high, count)
    return np.clip(np.round(drawn), low, high).astype(int)


def build(config: dict, sizes: np.ndarray, progress: bool = True) -> dict:
    """Write the crop dataset: the editions reader's crops (hard links) plus the font-shaped ones."""
    data, spec = config["dataset"], config["fonts"]
    size = int(data["crop_size"])
    base = _resolve(config["editions"]["out"])
    out = _resolve(spec["out"])
    if not (base / "manifest.json").is_file():
        raise FileNotFoundError(f"{base} has no manifest: build the editions crops first (python -m training.train reader-editions --build-only)")
    if out.exists():
        shutil.rmtree(out)
    _link_tree(base, out)
    rng = np.random.default_rng(int(config["seed"]) + 27)
    photos = load_real_split(_resolve(data["real"]), "train")
    train_photos, _ = split_holdout(photos, float(data["holdout_fraction"]), np.random.default_rng(int(config["seed"])))
    backgrounds = _background_images(train_photos)
    per_class = int(spec["per_class"])
    n_small = int(round(per_class * float(spec["small_share"])))
    low, high = (int(v) for v in spec["small_heights"])
    counts = {"small": 0, "large": 0}
    editions = TRAINING_EDITIONS
    wide_share = float(spec.get("wide_font_share", 0.0))
    wide = {e.name: with_wide_fonts(e) for e in editions} if wide_share > 0 else {}
    for index in range(NUM_KINDS):
        tile = Tile.from_index(index)
        heights = list(draw_heights(sizes, n_small, low, high, rng)) + [None] * (per_class - n_small)
        for k, height in enumerate(heights):
            edition = editions[(index + k) % len(editions)]
            if wide_share > 0 and rng.random() < wide_share:  # no draw without the pool: old recipes reproduce
                edition = wide[edition.name]
            crop = synthetic_crop(tile, rng, size, backgrounds, edition, height, FONT_SHAPE)
            key = "small" if height is not None else "large"
            cv2.imwrite(str(out / "train" / tile.name / f"fonts_{key}_{counts[key]:06d}.png"), crop)
            counts[key] += 1
        if progress and index % 10 == 9:
            print(f"font-shaped crops, {index + 1}/{NUM_KINDS} classes: {counts}", flush=True)
    (out / "manifest.json").write_text(json.dumps({"base": str(base), "fonts": counts, "sizes": size_summary(sizes)}, indent=1))
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train reader-fonts", description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--from", dest="start_from", type=Path, default=REPO_ROOT / "models" / "reader-editions.pt")
    parser.add_argument("--project", type=Path, default=REPO_ROOT / "runs" / "reader")
    parser.add_argument("--time", type=float, help="training budget in hours (overrides epochs)")
    parser.add_argument("--measure-only", action="store_true", help="print the detected tile sizes and stop")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--device", default="cpu", help="ultralytics' device: cpu, or a GPU's index (0)")
    parser.add_argument(
        "--train-seed", type=int,
        help="the training run's seed (default: the config's); the crops stay the config's, so several runs on one "
             "crop set differ only in their order, augmentation and dropout",
    )
    args = parser.parse_args(argv)
    config = load_config(args.config)
    spec = config["fonts"]
    if not args.no_build:
        seeds = [(int(config["editions"]["val_scene_seed"]), i) for i in range(int(spec["size_photos"]))]
        sizes = detected_tile_sizes(seeds, TRAINING_EDITIONS)
        print(f"detected tile sizes on the training editions' validation photos: {size_summary(sizes)}", flush=True)
        if args.measure_only:
            return 0
        print(f"crop dataset: {build(config, sizes)}", flush=True)
    if args.build_only:
        return 0
    settings = {k: v for k, v in config["train"].items() if k != "model"}
    settings.update(spec["train"])
    if args.time:
        settings["time"] = args.time
    seed = int(config["seed"]) if args.train_seed is None else args.train_seed
    best = _train_stage(args.start_from, settings, _resolve(spec["out"]), args.project, "reader-fonts", seed, args.device)
    print(f"best checkpoint: {best} (not shipped: evaluate, then export with python -m training.export reader)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
