"""How well the blurred-photo note picks the photos that are read badly (``vision.sharpness``)::

    python -m training.blur_study [--sets NAME ...] [--cache DIR] [--json OUT.json]

Each photo is read end to end as :mod:`training.evaluate` reads it; its tiles' blur is measured on
the kept boxes as :func:`vision.read` measures it (:func:`vision.sharpness.photo_blur`). A photo
whose tiles are small gets the small-tiles note instead (:meth:`vision.reading.PhotoLook.advice`), so
only the others count here. For each set, and pooled: how many photos the note is given on, the
tile F1 of those photos against the rest, and how many of them were read without an error (a note
a player did not need). Then the pooled figures at other thresholds, so that the choice of
:data:`vision.reading.BLURRED_PHOTO` can be seen. Choose on the selection and calibration sets (the
default); measure the test sets once, after.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from training.evaluate_suite import (
    REAL_VALIDATION,
    add_reading_arguments,
    decide_photo,
    load_named_set,
    see_photo,
    without_hidden,
)
from training.metrics import multiset_scores, prf
from training.tile_reading import load_any_reader
from vision.detections import median_length
from vision.images import load_image
from vision.reading import BLURRED_PHOTO, SMALL_TILE_NOTE_PX
from vision.sharpness import photo_blur

__all__ = ["PhotoBlur", "blur_report", "main"]

#: The sets a threshold is chosen on.
CHOOSING_SETS = (REAL_VALIDATION, "selection", "selection-phone", "selection-unseen", "calibration", "calibration-phone")
#: The other thresholds the pooled figures are given at.
SWEEP = (0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10)


@dataclass(frozen=True)
class PhotoBlur:
    """One photo: its set and name, its tiles' median length and blur, and how it was read."""

    set: str
    photo: str
    tile_px: float
    blur: float
    tiles: int
    read: int
    right: int


def blur_report(photos: Iterable[PhotoBlur], threshold: float = BLURRED_PHOTO) -> dict:
    """The note's figures over ``photos`` at ``threshold``: photos measured (those whose tiles are
    not small), photos noted, their tile F1 against the rest's, noted photos read without error,
    and the highest blur of a photo not noted."""
    measured = [p for p in photos if p.tile_px >= SMALL_TILE_NOTE_PX]
    noted = [p for p in measured if p.blur >= threshold]
    rest = [p for p in measured if p.blur < threshold]

    def f1(group: Sequence[PhotoBlur]) -> float | None:
        if not group:
            return None
        return prf(sum(p.right for p in group), sum(p.read for p in group), sum(p.tiles for p in group)).f1

    def errors(group: Sequence[PhotoBlur]) -> int:
        return sum((p.tiles - p.right) + (p.read - p.right) for p in group)

    return {
        "threshold": threshold,
        "photos_measured": len(measured),
        "photos_noted": len(noted),
        "f1_noted": f1(noted),
        "f1_rest": f1(rest),
        #: Tiles missed or read wrong plus tiles read where there was none, in the noted photos, as a
        #: share of those in all the measured photos.
        "share_of_errors_noted": errors(noted) / max(errors(measured), 1),
        "noted_without_error": sum(1 for p in noted if p.right == p.tiles == p.read),
        "highest_blur_not_noted": max((p.blur for p in rest), default=None),
        "noted": [f"{p.set}/{p.photo}" for p in noted],
    }


def measure_set(name: str, real: Path, testsets: Path, cache: Path | None, reader, detector: Path | None) -> list[PhotoBlur]:
    """Read every photo of the set ``name`` and measure its tiles' blur."""
    photos = load_named_set(name, real, testsets)
    out = []
    for photo in photos:
        seen = see_photo(photo.image_path, detector, reader, cache)
        reading, _ = without_hidden(photo, decide_photo(seen, photo.kind))
        image = load_image(photo.image_path)
        right, read, tiles = multiset_scores(reading.labels, photo.labels)
        blur = photo_blur(image, reading.boxes)
        out.append(PhotoBlur(name, photo.name, median_length(reading.boxes), blur, tiles, read, right))
    return out


def _line(name: str, r: dict) -> str:
    share = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    return (
        f"{name:18s} measured {r['photos_measured']:3d}  noted {r['photos_noted']:3d}  F1 noted {share(r['f1_noted'])}"
        f"  rest {share(r['f1_rest'])}  errors in noted {r['share_of_errors_noted']:.0%}"
        f"  noted without error {r['noted_without_error']}  highest not noted {share(r['highest_blur_not_noted'])}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.blur_study", description=__doc__.split("\n")[0])
    add_reading_arguments(parser, CHOOSING_SETS)
    parser.add_argument("--threshold", type=float, default=BLURRED_PHOTO, help="blur (share of a tile's length) noted")
    parser.add_argument("--json", type=Path, help="also write every photo's figures and the report here")
    args = parser.parse_args(argv)
    if not args.threshold > 0:
        parser.error(f"--threshold must be above 0 (got {args.threshold})")
    reader = load_any_reader(args.reader)
    photos: list[PhotoBlur] = []
    report = {}
    for name in args.sets:
        try:
            measured = measure_set(name, args.real, args.testsets, args.cache, reader, args.detector)
        except (FileNotFoundError, ValueError) as exc:
            print(f"{name}: skipped ({exc})")
            continue
        photos += measured
        report[name] = blur_report(measured, args.threshold)
        print(_line(name, report[name]), flush=True)
    pooled = blur_report(photos, args.threshold)
    print(_line("pooled", pooled))
    print("noted: " + (", ".join(pooled["noted"]) or "none"))
    print("\npooled at other thresholds:")
    sweep = {t: blur_report(photos, t) for t in SWEEP}
    for t, r in sweep.items():
        print(_line(f"  blur >= {t:.2f}", r))
    if args.json:
        args.json.write_text(json.dumps({
            "sets": report, "pooled": pooled, "sweep": {str(t): r for t, r in sweep.items()},
            "photos": [asdict(p) for p in photos],
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
