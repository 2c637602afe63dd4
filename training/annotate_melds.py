"""Meld annotations for the real photos: read and check ``datasets/real_melds.yaml``, and draw a photo to annotate.

The real dataset ("Rummikub" by jonasbuehler, Roboflow Universe rummikub-nvypk v9, CC BY 4.0) labels
tiles but not melds. ``datasets/real_melds.yaml`` is this project's own annotation of which labelled
tiles (by line index in a photo's label file) form each meld on a table, or each tier row on a rack,
so that ``python -m training.evaluate_detector`` can measure meld grouping on real photos.

API::

    load_annotations(path=DEFAULT_ANNOTATIONS) -> dict[split, dict[stem, PhotoMelds]]
    check_annotations(annotations, real_root) -> list[str]        # problems; empty when consistent
    label_boxes(label_file, width, height) -> (boxes xyxy px, class ids)

CLI (draws the photo's tile polygons with their label-line numbers, to look at while annotating)::

    python -m training.annotate_melds valid rummy-11 [--real PATH] [--out /tmp/melds] [--scale 1.5]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import yaml

from training.real_data import DEFAULT_REAL, label_lines, label_polygon

__all__ = [
    "AnnotationError",
    "PhotoMelds",
    "DEFAULT_ANNOTATIONS",
    "DEFAULT_REAL",
    "PHOTO_KINDS",
    "load_annotations",
    "check_annotations",
    "label_lines",
    "label_boxes",
    "photo_files",
    "render",
]

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ANNOTATIONS = REPO_ROOT / "datasets" / "real_melds.yaml"
#: ``other``: single tiles, background-only shots, heaps - no melds to measure.
PHOTO_KINDS = ("table", "rack", "other")


class AnnotationError(ValueError):
    """The meld annotation file is malformed."""


@dataclass(frozen=True)
class PhotoMelds:
    """One photo's annotation: its kind and its melds (label-line indices, reading order)."""

    kind: str
    melds: tuple[tuple[int, ...], ...]


def _parse_photo(where: str, entry: object) -> PhotoMelds:
    if not isinstance(entry, dict) or set(entry) - {"kind", "melds"} or "kind" not in entry:
        raise AnnotationError(f"{where}: expected a mapping with 'kind' and 'melds', got {entry!r}")
    kind = entry["kind"]
    if kind not in PHOTO_KINDS:
        raise AnnotationError(f"{where}: kind must be one of {', '.join(PHOTO_KINDS)}, got {kind!r}")
    melds = entry.get("melds") or []
    if not isinstance(melds, list) or not all(
        isinstance(m, list) and m and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in m) for m in melds
    ):
        raise AnnotationError(f"{where}: melds must be lists of label-line indices (ints >= 0), got {melds!r}")
    flat = [i for m in melds for i in m]
    if len(flat) != len(set(flat)):
        raise AnnotationError(f"{where}: a tile is in more than one meld: {melds!r}")
    return PhotoMelds(kind, tuple(tuple(m) for m in melds))


def load_annotations(path: Path = DEFAULT_ANNOTATIONS) -> dict[str, dict[str, PhotoMelds]]:
    """``{split: {photo file stem: PhotoMelds}}`` from the yaml file."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise AnnotationError(f"cannot read meld annotations {path}: {error}") from error
    if not isinstance(data, dict):
        raise AnnotationError(f"{path}: expected {{split: {{photo: ...}}}}, got {type(data).__name__}")
    out: dict[str, dict[str, PhotoMelds]] = {}
    for split, photos in data.items():
        if not isinstance(photos, dict):
            raise AnnotationError(f"{path}: split {split!r} must map photo names to annotations")
        out[str(split)] = {str(stem): _parse_photo(f"{split}/{stem}", entry) for stem, entry in photos.items()}
    return out


def label_boxes(label_file: Path, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Boxes (``x1 y1 x2 y2`` pixels, the polygon's extent clipped to the photo) and class ids, one per line."""
    boxes, classes = [], []
    for line in label_lines(label_file):
        poly = np.clip(label_polygon(line), 0.0, 1.0) * [width, height]
        boxes.append([*poly.min(axis=0), *poly.max(axis=0)])
        classes.append(int(line.split()[0]))
    return np.array(boxes, np.float32).reshape(-1, 4), np.array(classes, np.int64)


def photo_files(real_root: Path, split: str, stem: str) -> tuple[Path, Path]:
    """(image, label file) of a photo in the real dataset."""
    return real_root / split / "images" / f"{stem}.jpg", real_root / split / "labels" / f"{stem}.txt"


def check_annotations(annotations: dict[str, dict[str, PhotoMelds]], real_root: Path) -> list[str]:
    """Problems between the annotations and the dataset's label files (empty list: consistent).

    Every annotated photo must exist, every label line must be in exactly one meld (loose tiles
    are one-tile melds), and no index may point past the label file.
    """
    problems = []
    for split, photos in annotations.items():
        for stem, photo in photos.items():
            image, labels = photo_files(real_root, split, stem)
            if not image.is_file() or not labels.is_file():
                problems.append(f"{split}/{stem}: photo or label file missing")
                continue
            n = len(label_lines(labels))
            flat = sorted(i for m in photo.melds for i in m)
            if flat != list(range(n)):
                missing = sorted(set(range(n)) - set(flat))
                extra = sorted(set(flat) - set(range(n)))
                problems.append(f"{split}/{stem}: {n} tiles; not in a meld {missing}, past the label file {extra}")
    return problems


def render(image_file: Path, label_file: Path, scale: float = 1.5, groups: list[list[int]] | None = None) -> np.ndarray:
    """The photo with each tile's polygon and label-line number drawn; tiles of one group share a colour."""
    image = cv2.imread(str(image_file))
    if image is None:
        raise AnnotationError(f"not an image: {image_file}")
    image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    h, w = image.shape[:2]
    lines = label_lines(label_file)
    colour_of = {}
    palette = [(0, 0, 255), (0, 200, 0), (255, 0, 0), (0, 200, 255), (255, 0, 255), (255, 255, 0), (0, 128, 255), (128, 0, 255)]
    for g, members in enumerate(groups or []):
        for i in members:
            colour_of[i] = palette[g % len(palette)]
    for k, line in enumerate(lines):
        poly = (label_polygon(line) * [w, h]).astype(np.int32)
        colour = colour_of.get(k, (0, 0, 255))
        cv2.polylines(image, [poly], True, colour, 2)
        x, y = poly.mean(axis=0).astype(int)
        text = str(k)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 2)
        org = (int(x - tw / 2), int(y + th / 2))
        cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 4, cv2.LINE_AA)
        cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2, cv2.LINE_AA)
    return image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.annotate_melds", description=__doc__.split("\n")[0])
    parser.add_argument("split", choices=("train", "valid"))
    parser.add_argument("stem", help="photo file name without .jpg, or its name before _jpeg.rf...")
    parser.add_argument("--real", type=Path, default=DEFAULT_REAL)
    parser.add_argument("--out", type=Path, default=Path("/tmp/melds"))
    parser.add_argument("--scale", type=float, default=1.5)
    parser.add_argument("--layout", choices=("table", "rack"), help="colour tiles by vision.meld_grouping's grouping")
    args = parser.parse_args(argv)
    folder = args.real / args.split / "images"
    matches = sorted(folder.glob(f"{args.stem}.jpg")) or sorted(folder.glob(f"{args.stem}_jpeg*.jpg"))
    if not matches:
        parser.error(f"no photo {args.stem}* in {args.real / args.split / 'images'}")
    image, labels = photo_files(args.real, args.split, matches[0].stem)
    data_yaml = args.real / "data.yaml"
    names = (yaml.safe_load(data_yaml.read_text()) or {}).get("names", []) if data_yaml.is_file() else []
    groups = None
    if args.layout:
        from vision.detections import Detections
        from vision.meld_grouping import group_into_melds

        height, width = cv2.imread(str(image)).shape[:2]
        boxes, _ = label_boxes(labels, width, height)
        groups = group_into_melds(Detections(boxes, np.ones(len(boxes), np.float32)), args.layout)
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"{args.split}-{matches[0].stem.split('_jpeg')[0]}.png"
    cv2.imwrite(str(out), render(image, labels, args.scale, groups))
    print(out)
    for k, line in enumerate(label_lines(labels)):
        cls = int(line.split()[0])
        print(f"{k}:{names[cls] if cls < len(names) else cls}", end="  ")
    print()
    if groups is not None:
        print("layout:", groups)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
