"""A stand-in for the real data (``../shared/datasets/rummikub-real``): tiny photos of one cream
tile with a blue bar for a digit on wood, labelled ``blue_1`` as Roboflow labels them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.recolour import REAL_BODY

WOOD = (40, 80, 130)
BLUE = (185, 100, 20)
#: The tile's outline in each stand-in photo (x1, y1, x2, y2 pixels) and the photo's size.
TILE_BOX = (50, 30, 100, 100)
SIZE = (120, 160)
CLASS_NAMES = sorted([f"{c}_{n}" for c in ("black", "blue", "orange", "red") for n in range(1, 14)] + ["joker"])


def scene() -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Wood, a cream tile on it with a blue bar for a digit; a box that reaches onto the wood."""
    image = np.zeros((*SIZE, 3), np.uint8)
    image[:] = WOOD
    cv2.rectangle(image, TILE_BOX[:2], TILE_BOX[2:], tuple(int(v) for v in REAL_BODY), -1)
    cv2.rectangle(image, (70, 45), (80, 85), BLUE, -1)
    return image, (40, 20, 110, 110)


def write_photo(root: Path, split: str, name: str) -> None:
    """One stand-in photo and its polygon label in ``root/split``."""
    (root / split / "images").mkdir(parents=True, exist_ok=True)
    (root / split / "labels").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(root / split / "images" / f"{name}.jpg"), scene()[0])
    x1, y1, x2, y2 = TILE_BOX
    poly = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) / np.array(SIZE[::-1])
    line = f"{CLASS_NAMES.index('blue_1')} " + " ".join(f"{v:.4f}" for v in poly.ravel())
    (root / split / "labels" / f"{name}.txt").write_text(line + "\n")


def write_real_root(root: Path) -> Path:
    """The stand-in: one validation photo, and two training photos in two Roboflow copies each."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "data.yaml").write_text(json.dumps({"names": CLASS_NAMES}))
    write_photo(root, "valid", "table-1_jpeg.rf.aaa")
    for photo in ("table-2_jpeg", "table-3_jpeg"):
        for copy in ("aaa", "bbb"):
            write_photo(root, "train", f"{photo}.rf.{copy}")
    return root
