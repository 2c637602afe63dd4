"""Train the one-class tile detector: real photos (classes collapsed to ``tile``) plus synthetic scenes.

``python -m training.train detector [--config datasets/configs/detector.yaml] [--work DIR]
[--epochs N] [--imgsz N] [--init WEIGHTS.pt] [--export models/detector.pt]``

``--init`` fine-tunes a trained checkpoint (the shipped model is trained in two stages, see
``models/detector.md``) instead of starting from the architecture yaml.

Steps, all reproducible from the config file and its seeds:

1. :func:`prepare_real` links the real photos into ``<work>/real/{train,valid}/images`` and writes
   one-class YOLO labels next to them (a polygon's extent is its box). Nothing is copied into git.
2. The synthetic set is generated into ``<work>/synthetic`` if it is missing or short; with a
   ``restyled`` section, the real training photos printed again in the training editions are
   written into ``<work>/restyled`` (:mod:`training.restyled_real`); with a ``views`` section,
   photos of its recipe (12 MP phone photos by default) are written and seen as the detector sees
   them, whole or in the tiled pass's windows, into ``<work>/views`` (:mod:`training.detector_views`).
3. Ultralytics trains the model built from the config's ``model`` yaml on CPU (by default),
   validating every epoch on the real validation photos; ``last.pt``/``best.pt`` are kept in
   ``<work>/run/weights``. ``--export`` copies ``best.pt`` to the shipped location.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from training import yolo_env
from training.real_data import DatasetError, polygon_line_to_box

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = REPO_ROOT / "datasets" / "configs" / "detector.yaml"

__all__ = ["prepare_real", "select_copies", "build_data_yaml", "train", "main", "TrainingConfigError"]


class TrainingConfigError(ValueError):
    """The training config or the data it points to is unusable."""


@dataclass(frozen=True)
class PreparedData:
    data_yaml: Path
    train_images: int
    val_images: int


def source_photo(image_name: str) -> str:
    """The photo an image was made from: Roboflow names its augmented copies ``<photo>.rf.<hash>.jpg``."""
    return image_name.split(".rf.")[0]


def select_copies(names: list[str], copies_per_photo: int | None) -> list[str]:
    """The first ``copies_per_photo`` images (sorted by name) of each source photo; all when ``None``."""
    if copies_per_photo is None:
        return sorted(names)
    if copies_per_photo < 1:
        raise TrainingConfigError(f"real_copies_per_photo must be at least 1, got {copies_per_photo}")
    seen: dict[str, int] = {}
    kept = []
    for name in sorted(names):
        photo = source_photo(name)
        seen[photo] = seen.get(photo, 0) + 1
        if seen[photo] <= copies_per_photo:
            kept.append(name)
    return kept


def prepare_real(real_root: Path, out: Path, copies_per_photo: int | None = None) -> dict[str, int]:
    """Link the real photos into ``out/<split>/images`` with one-class labels; return images per split.

    ``copies_per_photo`` keeps that many of each training photo's augmented copies (the dataset holds
    three of each), so that a fine-tuning run on a small budget spends more of its steps on new
    synthetic scenes; the validation photos are distinct and always all kept. Links left from an
    earlier call with another selection are removed, so the folder holds exactly this selection.
    """
    counts: dict[str, int] = {}
    for split in ("train", "valid"):
        source = real_root / split / "images"
        if not source.is_dir():
            raise TrainingConfigError(f"real dataset split not found: {source} (see datasets/README.md)")
        images_out, labels_out = out / split / "images", out / split / "labels"
        images_out.mkdir(parents=True, exist_ok=True)
        labels_out.mkdir(parents=True, exist_ok=True)
        names = [p.name for p in source.iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"}]
        chosen = select_copies(names, copies_per_photo if split == "train" else None)
        keep = set(chosen)
        for stale in images_out.iterdir():
            if stale.is_symlink() and stale.name not in keep:
                stale.unlink()
                (labels_out / f"{stale.stem}.txt").unlink(missing_ok=True)
        n = 0
        for image in (source / name for name in chosen):
            link = images_out / image.name
            if not link.exists():
                link.symlink_to(image.resolve())
            label_in = real_root / split / "labels" / f"{image.stem}.txt"
            lines = label_in.read_text().splitlines() if label_in.exists() else []
            try:
                boxes = [b for b in (polygon_line_to_box(line) for line in lines) if b is not None]
            except DatasetError as exc:
                raise TrainingConfigError(f"{label_in}: {exc}") from exc
            (labels_out / f"{image.stem}.txt").write_text(
                "".join(f"0 {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for cx, cy, w, h in boxes if w > 0 and h > 0)
            )
            n += 1
        counts[split] = n
    return counts


def _resolve(path: str | Path | None, base: Path) -> Path | None:
    if path is None:
        return None
    path = Path(path)
    return path if path.is_absolute() else (base / path).resolve()


def build_data_yaml(config: dict[str, Any], work: Path) -> PreparedData:
    """Prepare real and synthetic data as the config says; write ``<work>/data.yaml``."""
    train_dirs: list[str] = []
    val_dirs: list[str] = []
    real = _resolve(config.get("real"), REPO_ROOT)
    counts = {"train": 0, "valid": 0}
    if real is not None:
        counts = prepare_real(real, work / "real", config.get("real_copies_per_photo"))
        train_dirs.append(str(work / "real" / "train" / "images"))
        val_dirs.append(str(work / "real" / "valid" / "images"))
    synthetic = config.get("synthetic") or {}
    n_synth = int(synthetic.get("count", 0))
    if n_synth > 0:
        synth_dir = _resolve(synthetic.get("dir"), REPO_ROOT) or work / "synthetic"
        _ensure_photos(synth_dir, n_synth, int(synthetic.get("seed", 0)), str(synthetic.get("recipe", "default")))
        train_dirs.append(str(synth_dir / "images"))
        if not val_dirs:  # no real data: validate on the synthetic set (smoke runs)
            val_dirs.append(str(synth_dir / "images"))
    n_views = _add_views(config.get("views") or {}, work, train_dirs)
    restyled = config.get("restyled") or {}
    n_restyled = 0
    if restyled:
        if real is None:
            raise TrainingConfigError("`restyled` prints the real training photos again: set `real` too")
        from training.restyled_real import write_restyled_training

        restyled_dir = work / "restyled"
        n_restyled = write_restyled_training(real, restyled_dir, int(restyled.get("seed", 0)), int(restyled.get("copies", 1)))
        train_dirs.append(str(restyled_dir / "images"))
    if not train_dirs:
        raise TrainingConfigError("the config names no training data (set `real` or `synthetic.count`)")
    data_yaml = work / "data.yaml"
    work.mkdir(parents=True, exist_ok=True)
    data_yaml.write_text(yaml.safe_dump({"train": train_dirs, "val": val_dirs, "nc": 1, "names": ["tile"]}))
    return PreparedData(data_yaml, counts["train"] + n_synth + n_views + n_restyled, counts["valid"])


def _ensure_photos(folder: Path, count: int, seed: int, recipe: str) -> None:
    """Write photos ``0 .. count-1`` of ``recipe`` into ``folder`` (``datasets.synth``), those not there yet."""
    from datasets.synth.writer import RECIPES, write_dataset

    have = len(list((folder / "images").glob("*.jpg"))) if (folder / "images").is_dir() else 0
    if have < count:
        print(f"generating photos {have}..{count - 1} into {folder}", flush=True)
        write_dataset(folder, count - have, seed, workers=yolo_env.THREADS, start=have, recipe=RECIPES[recipe])


def _add_views(views: dict[str, Any], work: Path, train_dirs: list[str]) -> int:
    """Photos drawn by ``views.recipe`` (default ``phone``), seen as the detector sees them
    (:mod:`training.detector_views`): the photos written if missing, their views written anew (as
    the restyled photos are), the views' folder added to ``train_dirs``; the number of views."""
    count = int(views.get("count", 0))
    if count <= 0:
        return 0
    from training.detector_views import write_views

    photos = _resolve(views.get("dir"), REPO_ROOT) or work / "views-photos"
    _ensure_photos(photos, count, int(views.get("seed", 0)), str(views.get("recipe", "phone")))
    out = work / "views"
    written = write_views(photos, out, int(views.get("imgsz", 640)))
    train_dirs.append(str(out / "images"))
    return written


def load_config(path: Path) -> dict[str, Any]:
    """The detector config at ``path``, its ``base`` chain resolved (:mod:`training.configs`)."""
    from training.configs import ConfigError, load_config as load_yaml

    try:
        config = load_yaml(path)
    except ConfigError as exc:
        raise TrainingConfigError(str(exc)) from exc
    if "model" not in config:
        raise TrainingConfigError(f"{path}: expected a mapping with at least `model`")
    return config


def train(config: dict[str, Any], work: Path, device: str = "cpu", **overrides: Any) -> Path:
    """Train as configured; return the path of the best checkpoint."""
    yolo_env.configure_threads()
    from ultralytics import YOLO

    work = Path(work).resolve()
    prepared = build_data_yaml(config, work)
    print(f"training on {prepared.train_images} images, validating on {prepared.val_images} real photos", flush=True)
    args = dict(config.get("train") or {})
    args.update({k: v for k, v in overrides.items() if v is not None})
    model = YOLO(str(config["model"]))
    fixed = {"data": str(prepared.data_yaml), "device": device, "project": str(work), "name": "run", "exist_ok": True}
    model.train(**{"plots": False, "amp": False, "verbose": True, **args, **fixed})
    best = work / "run" / "weights" / "best.pt"
    if not best.exists():
        raise TrainingConfigError(f"training finished without {best}")
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train detector", description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--work", type=Path, default=REPO_ROOT / "data" / "detector", help="data and run dir (outside git)")
    parser.add_argument("--real", type=Path, help="real dataset root (overrides the config)")
    parser.add_argument("--no-real", action="store_true", help="train on synthetic data only")
    parser.add_argument("--synthetic-count", type=int, help="number of synthetic images (overrides the config)")
    parser.add_argument("--synthetic-dir", type=Path, help="synthetic dataset dir (overrides the config)")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--imgsz", type=int)
    parser.add_argument("--batch", type=int)
    parser.add_argument("--time", type=float, help="wall-clock budget in hours (ultralytics fits the epochs to it)")
    parser.add_argument("--init", type=Path, help="start from these weights (e.g. models/detector.pt) instead of the model yaml")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--export", type=Path, help="copy the best checkpoint here, e.g. models/detector.pt")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
        if args.real is not None:
            config["real"] = str(args.real)
        if args.no_real:
            config["real"] = None
        if args.synthetic_count is not None:
            config["synthetic"] = {**(config.get("synthetic") or {}), "count": args.synthetic_count}
        if args.init is not None:
            if not args.init.is_file():
                raise TrainingConfigError(f"initial weights not found: {args.init}")
            config["model"] = str(args.init.resolve())
        if args.synthetic_dir is not None:
            config["synthetic"] = {**(config.get("synthetic") or {}), "dir": str(args.synthetic_dir.resolve())}
        best = train(
            config, args.work, device=args.device, epochs=args.epochs, imgsz=args.imgsz, batch=args.batch, time=args.time
        )
    except TrainingConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"best checkpoint: {best}")
    if args.export is not None:
        args.export.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(best, args.export)
        print(f"exported to {args.export}")
    return 0
