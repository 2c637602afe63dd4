"""Fine-tune the shipped reader to read any edition and to say "not a tile" (issue 15).

    python -m training.train reader-editions [--config datasets/configs/reader_editions.yaml]
                                             [--build-only] [--no-build] [--time HOURS] [--no-ship]

The crop dataset is the reader's own (:func:`training.train_reader.build_dataset`: real tiles in
rotated views, assorted synthetic tiles) plus, from the *training* editions only
(:data:`datasets.synth.editions.TRAINING_EDITIONS`; the held-out ones never appear):

* rendered tiles of every training edition at any angle between neighbours;
* tiles of synthetic photos: close-up racks of 1-3 tiers, spaced grids, tables and racks, with
  distractors, cut at jittered label boxes;
* a ``not-tile`` class: the distractors' boxes, empty patches of the photos, patches of the real
  background-only photos, and the detector's own false positives on those synthetic photos and on
  the real training photos.

Model selection uses the reader's real hold-out crops plus crops of separately seeded synthetic
photos of the training editions: never the real validation split, never a test set.
Training starts from ``models/reader.pt`` with its 53-way head widened by one row for
``not-tile`` (:func:`widen_with_not_tile`), so nothing it reads today is relearnt from scratch.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.editions import ASSORTED, TRAINING_EDITIONS, Edition
from solver.tiles import NUM_KINDS, Tile
from training.configs import load_config
from training.train_reader import (
    SHIPPED_WEIGHTS,
    _background_images,
    _resolve,
    _train_stage,
    build_dataset,
    load_real_split,
    split_holdout,
    synthetic_crop,
)
from vision.crops import crop_tile
from vision.detections import box_iou

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO_ROOT / "datasets" / "configs" / "reader_editions.yaml"
NOT_TILE = "not-tile"
#: Scene kinds of the synthetic photos the crops come from, and their shares.
SCENE_MIX = (("closeup", 0.4), ("grid", 0.15), ("table", 0.3), ("rack", 0.15))
#: A detection overlapping no labelled tile more than this is a false positive.
FALSE_POSITIVE_IOU = 0.2
#: A detection fits a labelled tile (and is that tile's box when tiles are cut at the detector's boxes) at this IoU.
MATCH_IOU = 0.5
#: Where a synthetic photo's tiles are cut (scene_sample's ``tile_boxes``).
TILE_BOXES = ("label", "detector")

__all__ = ["NOT_TILE", "widen_with_not_tile", "mixed_scene", "scene_sample", "build", "main"]


def _jitter(box: Sequence[float], amount: float, rng: np.random.Generator) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    d = rng.uniform(-amount, amount, 4) * (bw, bh, bw, bh)
    return (x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3])


def _croppable(box: Sequence[float]) -> bool:
    """A box at least 4 px on each side: the frame can clip a tile or a distractor to a sliver or
    to nothing at all, and such a box shows nothing to learn from."""
    return box[2] - box[0] >= 4 and box[3] - box[1] >= 4


def _empty_boxes(scene, count: int, rng: np.random.Generator) -> list[tuple[float, float, float, float]]:
    """Tile-sized boxes of the photo that overlap no tile: table, rack, clutter."""
    h, w = scene.image.shape[:2]
    sizes = [max(b[2] - b[0], b[3] - b[1]) for b in (t.box for t in scene.tiles)] or [min(h, w) / 8]
    truth = np.array([t.box for t in scene.tiles], np.float32).reshape(-1, 4)
    boxes = []
    for _ in range(count * 4):
        side = float(np.median(sizes)) * rng.uniform(0.6, 1.4)
        bw, bh = side * rng.uniform(0.6, 1.0), side
        if rng.random() < 0.5:
            bw, bh = bh, bw
        x1, y1 = rng.uniform(0, max(1, w - bw)), rng.uniform(0, max(1, h - bh))
        box = np.array([[x1, y1, x1 + bw, y1 + bh]], np.float32)
        if len(truth) and box_iou(box, truth).max() > 0.05:
            continue
        boxes.append(tuple(float(v) for v in box[0]))
        if len(boxes) == count:
            break
    return boxes


#: A close-up's size in the reader's photos, landscape (one in five is drawn portrait).
CLOSEUP_SIZE = (1280, 720)


def mixed_scene(
    seed: Sequence[int], editions: Sequence[Edition], closeup_size: tuple[int, int] = CLOSEUP_SIZE,
    recipe: str | None = None,
):
    """One synthetic photo of :data:`SCENE_MIX` drawn from ``seed`` (the scene and the generator,
    which goes on to jitter its boxes). ``closeup_size``: the close-ups' size, landscape; a
    phone's 12 MP (4000 x 2250) shows a rack's tiles at 500-600 px, the default at 150-200.
    ``recipe``: a name of :data:`datasets.synth.writer.RECIPES` that draws the photo instead, with
    its own kinds, sizes and editions (``phone``: photos as a phone sends them, blurred to scale)."""
    from datasets.synth.scenes import compose_scene
    from datasets.synth.writer import RECIPES

    rng = np.random.default_rng(list(seed))
    if recipe is not None:
        return RECIPES[recipe].compose(rng), rng
    kind = SCENE_MIX[int(rng.choice(len(SCENE_MIX), p=[p for _, p in SCENE_MIX]))][0]
    long_side, short_side = closeup_size
    width, height = ((long_side, short_side) if rng.random() < 0.8 else (short_side, long_side)) if kind == "closeup" else (960, 720)
    return compose_scene(rng, width, height, kind, tuple(editions), distractors=int(rng.integers(1, 6))), rng


def scene_sample(
    seed: Sequence[int], editions: Sequence[Edition], size: int, min_visible: float, box_jitter: float,
    detector: bool = True, min_number_visible: float = 0.0, closeup_size: tuple[int, int] = CLOSEUP_SIZE,
    tile_boxes: str = "label", recipe: str | None = None,
) -> tuple[list[tuple[str, np.ndarray]], dict]:
    """(class name, crop) pairs of one synthetic photo: its tiles, distractors, empty patches and
    the detector's false positives; plus counts by source.

    A tile is a crop of its class when at least ``min_visible`` of it and ``min_number_visible`` of
    its number's area are in view. The test sets read a tile whose number shows, however much of
    the tile the frame or another tile cuts off (:data:`training.evaluate_suite.MIN_NUMBER_VISIBLE`),
    so a recipe may choose tiles the same way. ``tile_boxes``: ``label`` cuts each tile at its
    jittered label box; ``detector`` at the box the detector found on it (IoU at least
    :data:`MATCH_IOU`; the jittered label box where it found none), so that the reader learns the
    crops it will be shown. ``recipe``: as :func:`mixed_scene`'s."""
    if tile_boxes not in TILE_BOXES:
        raise ValueError(f"tile_boxes must be one of {', '.join(TILE_BOXES)}, got {tile_boxes!r}")
    scene, rng = mixed_scene(seed, editions, closeup_size, recipe)
    out: list[tuple[str, np.ndarray]] = []
    counts = {"tiles": 0, "at_detector_boxes": 0, "distractors": 0, "empty": 0, "false_positives": 0}
    truth = np.array([t.box for t in scene.tiles], np.float32).reshape(-1, 4)
    found = _detections(scene.image) if detector or tile_boxes == "detector" else None
    own = _own_boxes(found, truth) if tile_boxes == "detector" else [None] * len(truth)
    for placed, found_box in zip(scene.tiles, own):
        if placed.visible >= min_visible and placed.number_visible >= min_number_visible:
            box = _jitter(placed.box, box_jitter, rng) if found_box is None else found_box
            counts["at_detector_boxes"] += found_box is not None
            if _croppable(box):
                out.append((placed.tile.name, crop_tile(scene.image, box, size)))
                counts["tiles"] += 1
    for box in scene.distractors:
        box = _jitter(box, box_jitter, rng)
        if _croppable(box):
            out.append((NOT_TILE, crop_tile(scene.image, box, size)))
            counts["distractors"] += 1
    for box in _empty_boxes(scene, 2, rng):
        out.append((NOT_TILE, crop_tile(scene.image, box, size)))
        counts["empty"] += 1
    if detector:
        for box in _false_positives(found, truth):
            out.append((NOT_TILE, crop_tile(scene.image, box, size)))
            counts["false_positives"] += 1
    return out, counts


def _detections(image: np.ndarray):
    """The shipped detector's boxes down to confidence 0.2 (the reader sees what it doubts too)."""
    from vision.detector import detect_tiles

    return detect_tiles(image, conf=0.2)


def _own_boxes(found, truth: np.ndarray) -> list[tuple[float, ...] | None]:
    """For each labelled box, the detection that fits it best if it fits at :data:`MATCH_IOU`, else None."""
    if len(found) == 0 or len(truth) == 0:
        return [None] * len(truth)
    iou = box_iou(truth, found.boxes)
    best = iou.argmax(axis=1)
    return [tuple(map(float, found.boxes[j])) if iou[i, j] >= MATCH_IOU else None for i, j in enumerate(best)]


def _false_positives(found, truth: np.ndarray) -> list[tuple[float, ...]]:
    """Boxes of ``found`` that overlap no labelled tile."""
    if len(found) == 0:
        return []
    if len(truth) == 0:
        return [tuple(map(float, b)) for b in found.boxes]
    best = box_iou(found.boxes, truth).max(axis=1)
    return [tuple(map(float, b)) for b, iou in zip(found.boxes, best) if iou < FALSE_POSITIVE_IOU]


def _scene_job(args: tuple) -> tuple[list[tuple[str, np.ndarray]], dict]:
    seed, names, size, min_visible, box_jitter, min_number_visible, closeup_size, tile_boxes, recipe = args
    from datasets.synth.editions import edition

    return scene_sample(seed, [edition(n) for n in names], size, min_visible, box_jitter,
                        min_number_visible=min_number_visible, closeup_size=closeup_size, tile_boxes=tile_boxes,
                        recipe=recipe)


def scene_crops(
    seeds: Sequence[Sequence[int]], editions: Sequence[Edition], size: int, min_visible: float, box_jitter: float,
    workers: int, min_number_visible: float = 0.0, closeup_size: tuple[int, int] = CLOSEUP_SIZE,
    tile_boxes: str = "label", recipe: str | None = None,
) -> Iterator[tuple[list[tuple[str, np.ndarray]], dict]]:
    names = tuple(e.name for e in editions)
    jobs = [(tuple(s), names, size, min_visible, box_jitter, min_number_visible, closeup_size, tile_boxes, recipe)
            for s in seeds]
    if workers <= 1:
        yield from map(_scene_job, jobs)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_scene_job, jobs, chunksize=2)


def _real_not_tiles(photos, size: int, rng: np.random.Generator, per_photo: int) -> Iterator[np.ndarray]:
    """Not-tile crops from the real training photos: background shots and the detector's false positives."""
    for image in _background_images(photos):
        h, w = image.shape[:2]
        for _ in range(per_photo):
            side = rng.uniform(0.05, 0.3) * min(h, w)
            x, y = rng.uniform(0, w - side), rng.uniform(0, h - side)
            yield crop_tile(image, (x, y, x + side * rng.uniform(0.6, 1.0), y + side), size)
    for photo in photos:
        if not photo.tiles:
            continue
        image = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
        truth = np.array([t.box for t in photo.tiles], np.float32).reshape(-1, 4)
        for box in _false_positives(_detections(image), truth):
            yield crop_tile(image, box, size)


def widen_with_not_tile(weights: Path, out: Path, names: Sequence[str]) -> Path:
    """A copy of the 53-class reader ``weights`` whose head has one more class, ``not-tile``.

    ``names`` is the new model's class list (the dataset's sorted folder names); the tile rows of
    the head are copied from the old model by name, the ``not-tile`` row starts at zero weight and a
    low bias, so the widened model reads every tile exactly as before until it is trained.
    """
    import torch

    checkpoint = torch.load(weights, map_location="cpu", weights_only=False)
    old_names = checkpoint["model"].names
    old_index = {name: i for i, name in old_names.items()}
    if set(names) - {NOT_TILE} != set(old_index):
        raise ValueError(f"the new classes must be the old ones plus {NOT_TILE!r}")
    for key in ("model", "ema"):
        model = checkpoint.get(key)
        if model is None:
            continue
        head = model.model[-1].linear
        weight, bias = head.weight.data, head.bias.data
        new = torch.nn.Linear(head.in_features, len(names)).to(weight.dtype)
        new.weight.data.zero_()
        new.bias.data.fill_(float(bias.min()) - 2.0)
        for i, name in enumerate(names):
            if name != NOT_TILE:
                new.weight.data[i] = weight[old_index[name]]
                new.bias.data[i] = bias[old_index[name]]
        model.model[-1].linear = new
        model.names = dict(enumerate(names))
        model.nc = len(names)
        if isinstance(getattr(model, "yaml", None), dict):
            model.yaml["nc"] = len(names)
    for key in ("optimizer", "best_fitness", "train_results", "train_metrics"):
        checkpoint[key] = None
    checkpoint["epoch"] = -1
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(checkpoint, out)
    return out


def class_names() -> list[str]:
    return sorted([Tile.from_index(i).name for i in range(NUM_KINDS)] + [NOT_TILE])


def _link_tree(source: Path, target: Path) -> None:
    for split in ("train", "val"):
        for folder in sorted((source / split).iterdir()):
            if folder.is_dir():
                (target / split / folder.name).mkdir(parents=True, exist_ok=True)
                for file in sorted(folder.iterdir()):
                    os.link(file, target / split / folder.name / file.name)


def build(config: dict, workers: int = 2, progress: bool = True) -> dict:
    """Write the generalised crop dataset; return its counts by source."""
    data, spec = config["dataset"], config["editions"]
    size = int(data["crop_size"])
    base = _resolve(data["out"])
    out = _resolve(spec["out"])
    real_root = _resolve(data["real"])
    if not (base / "manifest.json").is_file():
        build_dataset(config, real_root, base)
    if out.exists():
        shutil.rmtree(out)
    _link_tree(base, out)
    for split in ("train", "val"):
        for name in class_names():
            (out / split / name).mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    rng = np.random.default_rng(int(config["seed"]) + 15)

    def write(split: str, name: str, crop: np.ndarray, key: str) -> None:
        n = counts.get(key, 0)
        cv2.imwrite(str(out / split / name / f"{key}_{n:06d}.png"), crop)
        counts[key] = n + 1

    editions = [e for e in TRAINING_EDITIONS if e is not ASSORTED]
    photos = load_real_split(real_root, "train")
    train_photos, _ = split_holdout(photos, float(data["holdout_fraction"]), np.random.default_rng(int(config["seed"])))
    backgrounds = _background_images(train_photos)
    for index in range(NUM_KINDS):
        tile = Tile.from_index(index)
        for k in range(int(spec["rendered_per_class"])):
            crop = synthetic_crop(tile, rng, size, backgrounds, editions[k % len(editions)])
            write("train", tile.name, crop, "edition")
    if progress:
        print(f"rendered edition crops: {counts}", flush=True)
    for crop in _real_not_tiles(train_photos, size, rng, int(spec["real_background_patches"])):
        write("train", NOT_TILE, crop, "real_not_tile")
    if progress:
        print(f"real not-tile crops: {counts}", flush=True)
    sources: dict[str, int] = {}
    closeups = tuple(int(v) for v in spec.get("closeup_size", CLOSEUP_SIZE))
    # The validation photos are cut as every earlier round's were (label boxes, close-ups at the default size).
    # ``phone_scenes`` more training photos may be drawn as a phone sends them (the generator's
    # ``phone`` recipe: 12 MP, blurred to scale), which the mix above never draws.
    boxes = str(spec.get("tile_boxes", "label"))
    for split, seed_base, count, closeup_size, tile_boxes, recipe in (
        ("train", int(spec["scene_seed"]), int(spec["scenes"]), closeups, boxes, None),
        ("train", int(spec.get("phone_scene_seed", 0)), int(spec.get("phone_scenes", 0)), closeups, boxes, "phone"),
        ("val", int(spec["val_scene_seed"]), int(spec["val_scenes"]), CLOSEUP_SIZE, "label", None),
    ):
        seeds = [(seed_base, i) for i in range(count)]
        for done, (pairs, by_source) in enumerate(
            scene_crops(seeds, TRAINING_EDITIONS, size, float(spec["min_visible"]), float(data["box_jitter"]), workers,
                        float(spec.get("min_number_visible", 0.0)), closeup_size, tile_boxes, recipe), 1
        ):
            for name, crop in pairs:
                write(split, name, crop, f"scene_{split}")
            for key, value in by_source.items():
                sources[f"{split}_{key}"] = sources.get(f"{split}_{key}", 0) + value
            if progress and done % 25 == 0:
                print(f"{split} scenes {done}/{count}: {counts}", flush=True)
    counts.update(sources)
    (out / "manifest.json").write_text(json.dumps({"base": str(base), **counts}, indent=1))
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train reader-editions", description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--from", dest="start_from", type=Path, default=SHIPPED_WEIGHTS, help="53-class reader to start from")
    parser.add_argument("--project", type=Path, default=REPO_ROOT / "runs" / "reader")
    parser.add_argument("--workers", type=int, default=2, help="processes rendering the scenes")
    parser.add_argument("--time", type=float, help="training budget in hours (overrides epochs)")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--no-ship", action="store_true")
    args = parser.parse_args(argv)
    config = load_config(args.config)
    if not args.no_build:
        print(f"crop dataset: {build(config, args.workers)}", flush=True)
    if args.build_only:
        return 0
    spec = config["editions"]
    start = widen_with_not_tile(args.start_from, _resolve(spec["out"]) / "start.pt", class_names())
    settings = {k: v for k, v in config["train"].items() if k != "model"}
    settings.update(spec["train"])
    if args.time:
        settings["time"] = args.time
    best = _train_stage(start, settings, _resolve(spec["out"]), args.project, "reader-editions", int(config["seed"]))
    if not args.no_ship:
        shutil.copyfile(best, SHIPPED_WEIGHTS)
        print(f"shipped {best} -> {SHIPPED_WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
