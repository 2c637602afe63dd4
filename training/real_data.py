"""The real dataset (``rummikub-real``, YOLO polygon labels): where it lives and how its labels read.

The one place that parses YOLO label lines (boxes or polygons) and loads the real photos with their
tiles; training, evaluation and the meld annotations all read through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from solver.tiles import Tile, parse_tile

REPO_ROOT = Path(__file__).resolve().parent.parent
#: The real dataset beside the checkout (see datasets/README.md for how to get it).
DEFAULT_REAL = REPO_ROOT.parent / "shared" / "datasets" / "rummikub-real"

__all__ = [
    "DEFAULT_REAL",
    "DatasetError",
    "label_lines",
    "label_polygon",
    "polygon_line_to_box",
    "LabelledTile",
    "LabelledPhoto",
    "class_tiles",
    "load_real_split",
]


class DatasetError(ValueError):
    """The real dataset is missing, or one of its label files is malformed."""


def label_lines(label_file: Path) -> list[str]:
    """The non-blank lines of a YOLO label file: line k is tile k."""
    return [line for line in Path(label_file).read_text().splitlines() if line.strip()]


def label_polygon(line: str) -> np.ndarray:
    """Normalised polygon of a label line, ``(K, 2)``; a box line ``c cx cy w h`` gives its 4 corners."""
    coords = [float(v) for v in line.split()[1:]]
    if len(coords) == 4:
        cx, cy, w, h = coords
        return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]])
    if len(coords) < 6 or len(coords) % 2:
        raise DatasetError(f"malformed label line: {line.strip()[:80]!r}")
    return np.array(coords).reshape(-1, 2)


def polygon_line_to_box(line: str) -> tuple[float, float, float, float] | None:
    """Normalised ``cx cy w h`` of a label line's extent, clipped to the photo; ``None`` for a blank line."""
    if not line.split():
        return None
    polygon = label_polygon(line)
    if len(polygon) == 4 and len(line.split()) == 5:  # a box line: keep it exactly
        values = [float(v) for v in line.split()[1:]]
        return values[0], values[1], values[2], values[3]
    x1, y1 = np.clip(polygon.min(axis=0), 0.0, 1.0)
    x2, y2 = np.clip(polygon.max(axis=0), 0.0, 1.0)
    return float((x1 + x2) / 2), float((y1 + y2) / 2), float(x2 - x1), float(y2 - y1)


@dataclass(frozen=True)
class LabelledTile:
    """One labelled tile of a photo: its kind and polygon in photo pixels, shape (k, 2)."""

    tile: Tile
    polygon: np.ndarray

    @property
    def box(self) -> tuple[float, float, float, float]:
        xs, ys = self.polygon[:, 0], self.polygon[:, 1]
        return float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo of the real set and its labelled tiles; ``group`` names the original photo."""

    image_path: Path
    tiles: tuple[LabelledTile, ...]

    @property
    def group(self) -> str:
        # Roboflow names augmented copies "<photo>_jpeg.rf.<hash>.jpg".
        return self.image_path.name.split("_jpeg")[0].split(".rf.")[0]


def class_tiles(real_root: Path) -> list[Tile]:
    """The dataset's class ids as tiles (its names are like ``red_7`` and ``joker``)."""
    config_path = Path(real_root) / "data.yaml"
    if not config_path.is_file():
        raise DatasetError(f"no data.yaml in {real_root}: get the real dataset first (datasets/README.md)")
    names = yaml.safe_load(config_path.read_text())["names"]
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)]
    return [parse_tile(n) for n in names]


def load_real_split(real_root: Path | str, split: str) -> list[LabelledPhoto]:
    """Every photo of ``split`` ("train" or "valid") with its tiles, sorted by file name."""
    root = Path(real_root)
    tiles_by_class = class_tiles(root)
    image_dir, label_dir = root / split / "images", root / split / "labels"
    if not image_dir.is_dir():
        raise DatasetError(f"no {split} images in {root}")
    photos = []
    for image_path in sorted(image_dir.glob("*.jpg")):
        label_path = label_dir / (image_path.stem + ".txt")
        height, width = _image_size(image_path)
        tiles = []
        if label_path.is_file():
            for line in label_lines(label_path):
                if len(line.split()) < 7:  # a box line or a degenerate polygon: no tile outline
                    continue
                tiles.append(LabelledTile(tiles_by_class[int(line.split()[0])], label_polygon(line) * (width, height)))
        photos.append(LabelledPhoto(image_path, tuple(tiles)))
    return photos


def _image_size(path: Path) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as im:
        return im.height, im.width
