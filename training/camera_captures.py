"""The 12 MP test sets as the app's own camera hands them over::

    python -m training.camera_captures [--sets held-out-phone ...] [--out data/testsets-camera]
    python -m training.evaluate --testsets data/testsets-camera/CAPTURE --sets held-out-phone ...

The Play page can take its photo with ``st.camera_input`` instead of an upload. Without a
``resolution`` that widget returns the picture at the size it *shows* it, whatever the camera's
frame (358 x 269 on a phone-sized page in Chromium, ``tests/test_browser.py``; at most 704 pixels
wide on the app's centred page), so a table's tiles come out 10-25 pixels long. Asked for
``"1080p"``, it returns the camera's own frame, 1080 pixels on its shorter side.
This writes each photo of the 12 MP sets shrunk to each capture's size (area averaging, as a
camera's scaler shrinks its sensor's image) with its labels scaled alike, one folder per capture,
so that the evaluation reads them as the app would get them (:data:`CAPTURES`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2

from training.testsets import DEFAULT_OUT

#: JPEG quality of a shrunk photo (the widget's screenshot is a JPEG at its best quality).
JPEG_QUALITY = 95
#: The sets written by default: the sets drawn as a phone takes them (12 MP).
PHONE_SETS = ("held-out-phone", "selection-phone", "selection-unseen", "calibration-phone")


@dataclass(frozen=True)
class Capture:
    """A picture size the app's camera widget hands over: a width, or a shorter side."""

    name: str
    pixels: int
    #: "width": the picture's width (the widget's screenshot at its shown size); "short": its shorter side.
    side: str

    def scale(self, width: int, height: int) -> float:
        """The factor that brings a ``width`` x ``height`` photo to this capture's size (never up)."""
        length = width if self.side == "width" else min(width, height)
        return min(1.0, self.pixels / length)


#: What ``st.camera_input`` returns: without a resolution, the widget's shown width on a phone and on
#: a laptop's centred page; with ``resolution="720p"`` or ``"1080p"``, the camera's frame.
CAPTURES = (
    Capture("phone-widget", 360, "width"),
    Capture("laptop-widget", 704, "width"),
    Capture("720p", 720, "short"),
    Capture("1080p", 1080, "short"),
)


def _scaled(values, factor: float):
    """Coordinates (nested lists of numbers) times ``factor``."""
    if isinstance(values, list):
        return [_scaled(v, factor) for v in values]
    return round(float(values) * factor, 2)


def scaled_meta(meta: dict, factor: float, size: tuple[int, int]) -> dict:
    """A photo's labels (``training.testsets`` meta) for the photo shrunk by ``factor`` to ``size``."""
    out = dict(meta, width=size[0], height=size[1])
    for key in ("distractors", "hidden"):
        if key in meta:
            out[key] = _scaled(meta[key], factor)
    out["tiles"] = [dict(t, box=_scaled(t["box"], factor), corners=_scaled(t.get("corners", []), factor)) for t in meta["tiles"]]
    return out


def write_capture(source: Path, out: Path, capture: Capture) -> int:
    """Write the set in ``source`` as ``capture`` hands it over to ``out``; the number of photos."""
    if (out / "meta").exists():
        shutil.rmtree(out)
    (out / "meta").mkdir(parents=True)
    (out / "images").mkdir()
    count = 0
    for meta_path in sorted((source / "meta").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(source / meta["image"]), cv2.IMREAD_COLOR)
        if image is None:
            raise FileNotFoundError(f"cannot read {source / meta['image']}")
        height, width = image.shape[:2]
        factor = capture.scale(width, height)
        size = (max(1, round(width * factor)), max(1, round(height * factor)))
        shrunk = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if factor < 1.0 else image
        cv2.imwrite(str(out / meta["image"]), shrunk, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        (out / "meta" / meta_path.name).write_text(json.dumps(scaled_meta(meta, factor, size)))
        count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.camera_captures", description=__doc__.split("\n")[0])
    parser.add_argument("--testsets", type=Path, default=DEFAULT_OUT, help="where the 12 MP sets are")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT.parent / "testsets-camera")
    parser.add_argument("--sets", nargs="+", default=list(PHONE_SETS))
    parser.add_argument("--captures", nargs="+", choices=[c.name for c in CAPTURES], default=[c.name for c in CAPTURES])
    args = parser.parse_args(argv)
    for capture in (c for c in CAPTURES if c.name in args.captures):
        for name in args.sets:
            source = args.testsets / name
            if not (source / "meta").is_dir():
                print(f"{name}: not written yet (python -m training.testsets --only {name})", file=sys.stderr)
                return 1
            count = write_capture(source, args.out / capture.name / name, capture)
            print(f"{capture.name}/{name}: {count} photos")
    return 0


if __name__ == "__main__":
    sys.exit(main())
