"""A test set blurred once more, to measure how reading holds up as a photo gets shakier.

Each photo is blurred by a Gaussian of σ = ``per_1000px`` × its longer side / 1000 px (a blur that
spans the same share of any frame) and saved as JPEG; labels and metadata are copied as they are.
Read the copy like any test set::

    python -m training.blurred_copies --set held-out-phone --per-1000px 1 --out DIR
    python -m training.evaluate --testsets DIR --sets held-out-phone
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from training.testsets import DEFAULT_OUT

__all__ = ["blur_to_scale", "write_blurred_copy"]

#: JPEG quality of the copies: high, so that the blur and not the compression is what is measured.
JPEG_QUALITY = 92


def _check_blur(per_1000px: float) -> None:
    if per_1000px < 0:
        raise ValueError(f"the blur must not be negative (got {per_1000px})")


def blur_to_scale(image: np.ndarray, per_1000px: float) -> np.ndarray:
    """``image`` blurred by a Gaussian of σ = ``per_1000px`` × its longer side / 1000 (itself at 0)."""
    _check_blur(per_1000px)
    if per_1000px == 0:
        return image.copy()
    return cv2.GaussianBlur(image, (0, 0), per_1000px * max(image.shape[:2]) / 1000)


def write_blurred_copy(source: Path, out: Path, per_1000px: float) -> int:
    """Copy the test set at ``source`` to ``out`` with every photo blurred; the number of photos."""
    images = Path(source) / "images"
    if not images.is_dir():
        raise FileNotFoundError(f"{source} holds no images/ folder: not a test set (python -m training.testsets writes them)")
    _check_blur(per_1000px)  # before anything at ``out`` is replaced
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("images"))
    (out / "images").mkdir()
    count = 0
    for path in sorted(images.iterdir()):
        image = cv2.imread(str(path))
        if image is None:
            raise ValueError(f"{path} is not an image")
        target = out / "images" / (path.stem + ".jpg")
        cv2.imwrite(str(target), blur_to_scale(image, per_1000px), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        count += 1
    return count


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.blurred_copies", description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", required=True, help="a test set's name (a folder of --testsets)")
    parser.add_argument("--per-1000px", type=float, required=True, help="σ of the added blur per 1000 px of the longer side")
    parser.add_argument("--out", type=Path, required=True, help="where the blurred sets go (the copy is OUT/SET)")
    parser.add_argument("--testsets", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        count = write_blurred_copy(args.testsets / args.set, args.out / args.set, args.per_1000px)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{args.set}: {count} photos blurred by σ = {args.per_1000px:g} px per 1000 px into {args.out / args.set}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
