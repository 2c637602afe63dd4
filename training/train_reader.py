"""Train the tile reader: build a crop dataset, train a YOLO classifier on it, ship the weights.

Run through the training dispatcher::

    python -m training.train reader [--config datasets/configs/reader.yaml] [--real PATH]
                                  [--out DIR] [--epochs N] [--build-only] [--no-build]
                                  [--stage 2|3 --from WEIGHTS] [--no-ship]

The crops come from two sources, both cut by :func:`vision.crops.crop_tile` exactly as the
reader cuts them at run time:

* real tiles: the labelled photos of ``rummikub-real`` (a box is the polygon's extent), each tile
  seen in several rotated views (every quarter turn plus jitter, so tiles lying any way round
  read right and a 6 is not a 9 upside down) with the box edges jittered like a detector's;
* synthetic tiles from :func:`datasets.synth.tiles.render_tile` (fonts, inks, lighting), rotated
  to any angle with neighbouring tiles and assorted backgrounds;
* (stage 3) tiles of synthetic photos from :func:`datasets.synth.scenes.compose_scene`: small,
  dark, blurred and colour-cast tiles at their boxes, as other rooms and phones show them.

Training runs in three stages, each from the previous one's best checkpoint: from the model yaml,
a fine-tune at a lower rate, and a fine-tune with the synthetic-photo crops added.

A tenth of the real training photos (all augmented copies of a photo together) is held out for
model selection, so the real validation split stays untouched for :mod:`training.evaluate`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.editions import ASSORTED, Edition
from datasets.synth.font_shape import FontShape
from solver.tiles import NUM_KINDS, Tile
from training.configs import load_config
from training.real_data import DatasetError, LabelledPhoto, load_real_split
from vision.crops import crop_tile

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO_ROOT / "datasets" / "configs" / "reader.yaml"
SHIPPED_WEIGHTS = REPO_ROOT / "models" / "reader.pt"


# --- views of one tile ---------------------------------------------------------------------


def _rotated_view(
    image: np.ndarray,
    polygon: np.ndarray,
    angle: float,
    box_jitter: float,
    rng: np.random.Generator,
    size: int,
) -> np.ndarray:
    """The tile's crop after turning the photo by ``angle`` degrees around the tile."""
    x1, y1 = polygon.min(axis=0)
    x2, y2 = polygon.max(axis=0)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    half = int(np.ceil(np.hypot(x2 - x1, y2 - y1) * 0.8)) + 4
    ix, iy = int(round(cx)) - half, int(round(cy)) - half
    h, w = image.shape[:2]
    region = image[max(iy, 0) : min(iy + 2 * half, h), max(ix, 0) : min(ix + 2 * half, w)]
    patch = cv2.copyMakeBorder(
        region,
        max(-iy, 0),
        max(iy + 2 * half - h, 0),
        max(-ix, 0),
        max(ix + 2 * half - w, 0),
        cv2.BORDER_REFLECT_101,
    )
    matrix = cv2.getRotationMatrix2D((half, half), angle, 1.0)
    turned = cv2.warpAffine(patch, matrix, (2 * half, 2 * half), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
    local = polygon - (ix, iy)
    points = np.hstack([local, np.ones((len(local), 1))]) @ matrix.T
    bx1, by1 = points.min(axis=0)
    bx2, by2 = points.max(axis=0)
    bw, bh = bx2 - bx1, by2 - by1
    jitter = rng.uniform(-box_jitter, box_jitter, 4) * (bw, bh, bw, bh)
    box = (bx1 + jitter[0], by1 + jitter[1], bx2 + jitter[2], by2 + jitter[3])
    return crop_tile(turned, box, size)


def _view_angles(count: int, jitter: float, rng: np.random.Generator) -> list[float]:
    """``count`` angles cycling through the quarter turns from a random start, each jittered."""
    start = int(rng.integers(0, 4))
    return [90.0 * ((start + i) % 4) + float(rng.uniform(-jitter, jitter)) for i in range(count)]


def real_crops(
    photos: Sequence[LabelledPhoto], views: int, angle_jitter: float, box_jitter: float, size: int, rng: np.random.Generator
) -> Iterator[tuple[Tile, np.ndarray]]:
    """(tile, crop) for every labelled tile in ``views`` rotated views."""
    for photo in photos:
        if not photo.tiles:
            continue
        image = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise DatasetError(f"unreadable image {photo.image_path}")
        for labelled in photo.tiles:
            for angle in _view_angles(views, angle_jitter, rng):
                yield labelled.tile, _rotated_view(image, labelled.polygon, angle, box_jitter, rng, size)


# --- synthetic crops ---------------------------------------------------------------------


def _background(rng: np.random.Generator, size: int, backgrounds: Sequence[np.ndarray]) -> np.ndarray:
    """A table surface: a patch of a real background photo, or a textured colour field."""
    if backgrounds and rng.random() < 0.5:
        source = backgrounds[int(rng.integers(len(backgrounds)))]
        h, w = source.shape[:2]
        side = int(rng.integers(min(h, w) // 4, min(h, w)))
        y, x = int(rng.integers(0, h - side + 1)), int(rng.integers(0, w - side + 1))
        return cv2.resize(source[y : y + side, x : x + side], (size, size), interpolation=cv2.INTER_AREA)
    base = rng.uniform(20, 200, 3)
    field = np.ones((size, size, 3), np.float32) * base
    if rng.random() < 0.5:  # wood-like grain
        yy = np.arange(size, dtype=np.float32)[:, None]
        xx = np.arange(size, dtype=np.float32)[None, :]
        freq = rng.uniform(0.02, 0.15)
        grain = np.sin((yy + xx * rng.uniform(-0.3, 0.3)) * freq + rng.uniform(0, 6)) * rng.uniform(5, 30)
        field += grain[..., None]
    field += rng.normal(0, rng.uniform(2, 12), field.shape)
    return np.clip(field, 0, 255).astype(np.uint8)


def _paste(canvas: np.ndarray, bgra: np.ndarray, x: int, y: int) -> None:
    h, w = bgra.shape[:2]
    H, W = canvas.shape[:2]
    xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if xb <= xa or yb <= ya:
        return
    part = bgra[ya - y : yb - y, xa - x : xb - x].astype(np.float32)
    alpha = part[..., 3:] / 255.0
    region = canvas[ya:yb, xa:xb].astype(np.float32)
    canvas[ya:yb, xa:xb] = (region * (1 - alpha) + part[..., :3] * alpha).astype(np.uint8)


#: Tiles shorter than this (photo pixels) are seen through :func:`_far_camera`.
SMALL_TILE = 40


def _far_camera(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What a phone makes of a far tile: a little optical blur and JPEG blocks at the photo's resolution."""
    sigma = rng.uniform(0.0, 0.6)
    if sigma > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 95))])
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else image


def synthetic_crop(
    tile: Tile, rng: np.random.Generator, size: int, backgrounds: Sequence[np.ndarray], edition: Edition = ASSORTED,
    height: int | None = None, font_shape: FontShape | None = None,
) -> np.ndarray:
    """A rendered ``tile`` of ``edition`` between random neighbours, turned to any angle, cropped like a real one.

    ``height``: the tile's height in the photo's pixels (default: 40-129 at random); below
    :data:`SMALL_TILE` the scene is blurred and JPEG-compressed at that resolution, as a phone
    shows a far tile, before ``crop_tile`` resamples it. ``font_shape``: the digits' shapes are
    changed at random (:mod:`datasets.synth.font_shape`; training renders only).
    """
    from datasets.synth.tiles import render_tile

    height = int(rng.integers(40, 130)) if height is None else int(height)
    face = render_tile(tile, rng, height, edition, font_shape)
    fh, fw = face.shape[:2]
    side = int(height * 3)
    canvas = _background(rng, side, backgrounds)
    cx, cy = side // 2, side // 2
    gap = int(rng.integers(0, max(2, fw // 8)))
    for offset in (-1, 1):  # neighbours in the same meld or rack row
        if rng.random() < 0.6:
            neighbour = Tile.from_index(int(rng.integers(NUM_KINDS))) if rng.random() < 0.9 else None
            other = render_tile(neighbour, rng, height, edition, font_shape)
            _paste(canvas, other, cx - fw // 2 + offset * (fw + gap), cy - fh // 2)
    _paste(canvas, face, cx - fw // 2, cy - fh // 2)
    if height < SMALL_TILE:
        canvas = _far_camera(canvas, rng)
    polygon = np.array(
        [[cx - fw / 2, cy - fh / 2], [cx + fw / 2, cy - fh / 2], [cx + fw / 2, cy + fh / 2], [cx - fw / 2, cy + fh / 2]]
    )
    crop = _rotated_view(canvas, polygon, float(rng.uniform(0, 360)), 0.08, rng, size)
    if rng.random() < 0.3:  # defocus / low resolution
        small = max(12, int(size * rng.uniform(0.35, 0.8)))
        crop = cv2.resize(cv2.resize(crop, (small, small), interpolation=cv2.INTER_AREA), (size, size))
    return crop


def _background_images(photos: Sequence[LabelledPhoto]) -> list[np.ndarray]:
    images = []
    for photo in photos:
        if not photo.tiles:
            image = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
            if image is not None:
                # Drop the letterbox bars Roboflow added to the 4:3 originals.
                rows = np.where(image.reshape(image.shape[0], -1).max(axis=1) > 20)[0]
                if len(rows) > 64:
                    images.append(image[rows[0] : rows[-1] + 1])
    return images


def scene_crops(count: int, min_visible: float, box_jitter: float, size: int, rng: np.random.Generator) -> Iterator[tuple[Tile, np.ndarray]]:
    """(tile, crop) for the well-visible tiles of ``count`` synthetic photos (datasets.synth.scenes):
    small, dark, blurred, colour-cast tiles at the detector's boxes, as other phones see them."""
    from datasets.synth.scenes import compose_scene

    for _ in range(count):
        scene = compose_scene(np.random.default_rng(int(rng.integers(2**31))))
        for placed in scene.tiles:
            if placed.visible < min_visible:
                continue
            x1, y1, x2, y2 = placed.box
            bw, bh = x2 - x1, y2 - y1
            jitter = rng.uniform(-box_jitter, box_jitter, 4) * (bw, bh, bw, bh)
            box = (x1 + jitter[0], y1 + jitter[1], x2 + jitter[2], y2 + jitter[3])
            if box[2] - box[0] < 4 or box[3] - box[1] < 4:
                continue
            yield placed.tile, crop_tile(scene.image, box, size)


def build_scene_dataset(config: dict, base: Path, out: Path) -> dict:
    """``base`` (hard-linked, unchanged) plus crops from synthetic photos: stage 3's dataset."""
    import os

    data, scenes = config["dataset"], config["scenes"]
    rng = np.random.default_rng(int(config["seed"]) + 1)
    if out.exists():
        shutil.rmtree(out)
    for split in ("train", "val"):
        for folder in sorted((base / split).iterdir()):
            if folder.is_dir():
                (out / split / folder.name).mkdir(parents=True, exist_ok=True)
                for file in sorted(folder.iterdir()):
                    os.link(file, out / split / folder.name / file.name)
    count = 0
    for tile, crop in scene_crops(
        int(scenes["count"]), float(scenes["min_visible"]), float(data["box_jitter"]), int(data["crop_size"]), rng
    ):
        cv2.imwrite(str(out / "train" / tile.name / f"scene_{count:06d}.png"), crop)
        count += 1
    (out / "manifest.json").write_text(json.dumps({"base": str(base), "scene_crops": count}, indent=1))
    return {"scene_crops": count}


# --- the dataset on disk -------------------------------------------------------------------


def split_holdout(photos: Sequence[LabelledPhoto], fraction: float, rng: np.random.Generator) -> tuple[list, list]:
    """Split photos by original photo (its augmented copies stay together): (train, holdout)."""
    groups = sorted({p.group for p in photos if p.tiles})
    chosen = set(rng.choice(groups, size=max(1, int(round(len(groups) * fraction))), replace=False).tolist())
    train = [p for p in photos if p.group not in chosen]
    holdout = [p for p in photos if p.group in chosen]
    return train, holdout


def build_dataset(config: dict, real_root: Path, out: Path) -> dict:
    """Write the crop dataset (``out/train/<tile>/*.png``, ``out/val/...``); return its counts."""
    data = config["dataset"]
    rng = np.random.default_rng(int(config["seed"]))
    size = int(data["crop_size"])
    photos = load_real_split(real_root, "train")
    train_photos, holdout_photos = split_holdout(photos, float(data["holdout_fraction"]), rng)
    if out.exists():
        shutil.rmtree(out)
    counts = {"train_real": 0, "train_synthetic": 0, "val": 0}
    names = [Tile.from_index(i).name for i in range(NUM_KINDS)]
    for split in ("train", "val"):
        for name in names:
            (out / split / name).mkdir(parents=True, exist_ok=True)

    def write(split: str, tile: Tile, crop: np.ndarray, key: str) -> None:
        cv2.imwrite(str(out / split / tile.name / f"{key}_{counts[key]:06d}.png"), crop)
        counts[key] += 1

    for tile, crop in real_crops(
        train_photos, int(data["real_views"]), float(data["angle_jitter"]), float(data["box_jitter"]), size, rng
    ):
        write("train", tile, crop, "train_real")
    for tile, crop in real_crops(
        holdout_photos, int(data["holdout_views"]), float(data["angle_jitter"]), float(data["box_jitter"]), size, rng
    ):
        write("val", tile, crop, "val")
    backgrounds = _background_images(train_photos)
    for index in range(NUM_KINDS):
        tile = Tile.from_index(index)
        for _ in range(int(data["synthetic_per_class"])):
            write("train", tile, synthetic_crop(tile, rng, size, backgrounds), "train_synthetic")
    counts["holdout_photos"] = sorted({p.group for p in holdout_photos})  # type: ignore[assignment]
    (out / "manifest.json").write_text(json.dumps(counts, indent=1))
    return counts


# --- training --------------------------------------------------------------------------------


def _train_stage(
    start: str | Path, settings: dict, dataset: Path, project: Path, name: str, seed: int, device: str = "cpu"
) -> Path:
    """One ultralytics training run from ``start`` (a model yaml or weights); its best checkpoint.

    ``device`` is ultralytics' (``"cpu"``, or a GPU's index such as ``"0"`` on a lent machine);
    the run is deterministic unless ``settings`` says otherwise (cuDNN's fastest kernels on a GPU).
    """
    from ultralytics import YOLO

    from training import yolo_env  # before ultralytics: offline, no auto-install

    yolo_env.configure_threads()
    project = Path(project).resolve()  # ultralytics puts a relative project under its own runs dir
    model = YOLO(str(start), task="classify")
    model.train(
        data=str(dataset),
        project=str(project),
        name=name,
        exist_ok=True,
        seed=seed,
        plots=False,
        device=device,
        verbose=True,
        **{"deterministic": True, **settings},
    )
    best = project / name / "weights" / "best.pt"
    if not best.is_file():
        raise RuntimeError(f"training finished without {best}")
    return best


def train(
    config: dict, dataset: Path, project: Path, epochs: int | None = None, start_from: Path | None = None, stage: int = 1
) -> Path:
    """Train the classifier on ``dataset``; return the best checkpoint's path.

    Stage 1 trains from the model yaml (``train``); stage 2 (``finetune``) continues from stage 1's
    best checkpoint at a lower learning rate; stage 3 (``scenes``) continues from stage 2's on the
    same crops plus crops from synthetic photos. ``start_from`` with ``stage`` > 1 starts there.
    """
    seed = int(config["seed"])
    settings = dict(config["train"])
    start = settings.pop("model")
    if epochs is not None:
        settings["epochs"] = epochs
    if stage > 1 and start_from is None:
        raise ValueError("starting at a later stage needs the previous stage's weights (--from)")
    best = start_from if stage > 1 else _train_stage(start, settings, dataset, project, "reader", seed)
    if config.get("finetune") and stage <= 2:
        best = _train_stage(best, {**settings, **config["finetune"]}, dataset, project, "reader-finetune", seed)
    if config.get("scenes"):
        scene_data = _resolve(config["scenes"]["out"])
        print(f"scene crops: {build_scene_dataset(config, dataset, scene_data)}")
        best = _train_stage(best, {**settings, **config["scenes"]["train"]}, scene_data, project, "reader-scenes", seed)
    return best


def _resolve(path: str | Path) -> Path:
    path = Path(path)
    return path if path.is_absolute() else REPO_ROOT / path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train reader", description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--real", type=Path, help="real dataset root (default: from the config)")
    parser.add_argument("--out", type=Path, help="crop dataset folder (default: from the config)")
    parser.add_argument("--project", type=Path, default=REPO_ROOT / "runs" / "reader", help="training runs folder")
    parser.add_argument("--epochs", type=int, help="override the config's epochs (stage 1)")
    parser.add_argument("--from", dest="start_from", type=Path, help="weights to start --stage 2 or 3 from")
    parser.add_argument("--stage", type=int, choices=(1, 2, 3), default=1, help="first stage to run")
    parser.add_argument("--build-only", action="store_true", help="write the crop dataset and stop")
    parser.add_argument("--no-build", action="store_true", help="reuse the crop dataset already written")
    parser.add_argument("--no-ship", action="store_true", help="leave models/reader.pt alone")
    args = parser.parse_args(argv)

    config = load_config(args.config)
    real_root = args.real or _resolve(config["dataset"]["real"])
    out = args.out or _resolve(config["dataset"]["out"])
    if not args.no_build:
        counts = build_dataset(config, real_root, out)
        print(f"crop dataset in {out}: {counts['train_real']} real + {counts['train_synthetic']} synthetic "
              f"training crops, {counts['val']} held-out crops")
    if args.build_only:
        return 0
    best = train(config, out, args.project, args.epochs, args.start_from, args.stage)
    if not args.no_ship:
        SHIPPED_WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(best, SHIPPED_WEIGHTS)
        print(f"shipped {best} -> {SHIPPED_WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
