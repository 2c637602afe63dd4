"""The real training photos printed in the training editions, as one-class detector data.

On the real validation split printed in the held-out editions (``real-restyled-small``) the
reader reads almost every tile the detector finds, but at half size the detector misses more
tiles than it does in the real edition's own print: it has learnt that edition's look. Here each
real *training* photo (one of Roboflow's copies of it) is printed again in training editions
(:func:`datasets.synth.restyle.restyle_photo`): real plastic, light and camera with other fonts,
marks and colours; every four printed photos are also put together at half size
(:func:`datasets.synth.restyle.mosaic`), tiles as small as a table shot from further away. Written
in the YOLO layout (``images/``, ``labels/``, class 0), as the detector's config asks
(``restyled:`` in ``datasets/configs/*.yaml``). Never an edition of
:data:`datasets.synth.editions.NEVER_TRAINED`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.editions import NEVER_TRAINED, TRAINING_EDITIONS, edition
from datasets.synth.restyle import mosaic, restyle_photo
from datasets.synth.writer import yolo_line
from solver.tiles import Tile
from training.real_data import LabelledPhoto, load_real_split

__all__ = ["printed_photo", "write_restyled_training"]

#: Repaints a photo's (tile, box) pairs in an edition: restyle_photo or recolour_photo.
Repaint = Callable[..., np.ndarray]

TRAINING = tuple(e.name for e in TRAINING_EDITIONS)


def _one_copy_each(photos):
    """The first of Roboflow's augmented copies of each source photo (as the detector's real data
    chooses them, :func:`training.train_detector.select_copies`)."""
    from training.train_detector import select_copies

    keep = set(select_copies([photo.image_path.name for photo in photos], 1))
    return [photo for photo in photos if photo.image_path.name in keep]


def printed_photo(
    photo: LabelledPhoto, editions: Sequence[str], rng: np.random.Generator, repaint: Repaint = restyle_photo,
) -> tuple[np.ndarray, list[tuple[Tile, tuple[float, float, float, float]]], str]:
    """One real photo repainted (``repaint``) in an edition drawn from ``editions`` with ``rng``:
    the image, its (tile, box) pairs and the edition's name."""
    image = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"unreadable image {photo.image_path}")
    look = edition(str(rng.choice(list(editions))))
    own = [(t.tile, t.box) for t in photo.tiles]
    return repaint(image, own, look, rng), own, look.name


def _write(out: Path, name: str, image: np.ndarray, boxes: Sequence[Sequence[float]]) -> None:
    height, width = image.shape[:2]
    cv2.imwrite(str(out / "images" / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    lines = []
    for x1, y1, x2, y2 in boxes:
        x1, x2 = max(x1, 0.0), min(x2, float(width))
        y1, y2 = max(y1, 0.0), min(y2, float(height))
        if x2 > x1 and y2 > y1:
            lines.append(yolo_line(0, (x1, y1, x2, y2), width, height) + "\n")
    (out / "labels" / f"{name}.txt").write_text("".join(lines))


def write_restyled_training(
    real_root: Path, out: Path, seed: int, copies: int = 1, editions: Sequence[str] = TRAINING,
) -> int:
    """Write ``copies`` printings of each real training photo, each in one of ``editions`` (drawn
    from ``seed``), and the mosaics of every four of them, to ``out`` (emptied first); the number
    of images written."""
    forbidden = set(editions) & NEVER_TRAINED
    if forbidden:
        raise ValueError(f"editions {sorted(forbidden)} are never trained on")
    if copies < 1:
        raise ValueError(f"copies must be at least 1, got {copies}")
    photos = _one_copy_each(load_real_split(real_root, "train"))
    rng = np.random.default_rng(seed)
    if out.exists():
        shutil.rmtree(out)
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    printed = []
    for copy in range(copies):
        for number, photo in enumerate(photos):
            image, own, _ = printed_photo(photo, editions, rng)
            _write(out, f"restyled_{copy}_{number:04d}", image, [box for _, box in own])
            printed.append((image, own))
    order = rng.permutation(len(printed))
    mosaics = 0
    for start in range(0, len(order) - 3, 4):
        image, labelled = mosaic([printed[i] for i in order[start:start + 4]], 2)
        _write(out, f"mosaic_{mosaics:04d}", image, [box for _, box in labelled])
        mosaics += 1
    return len(printed) + mosaics
