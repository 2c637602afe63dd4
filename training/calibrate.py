"""Set decoding's uncertainty threshold by measurement on the calibration sets (never a test set)::

    python -m training.calibrate [--set calibration calibration-phone] [--reader W] [--detector W] [--target-wrong 0.9] [--cache DIR]

The calibration sets show the training editions at fresh seeds, as small photos (``calibration``)
and as a phone takes them (``calibration-phone``, 12 MP); their tiles are pooled, so the threshold
serves both. Every photo is read end to end once; each tile read is right or wrong (a box on no
labelled tile is wrong) and has its decoded confidence. A tile is flagged uncertain when its
confidence is below the threshold, so one pass gives the flag rates of every threshold. The
threshold chosen is the lowest that flags at least ``target-wrong`` of the wrong tiles: flagging
more would only bother the player with right tiles. The figures on the held-out editions are then
measured with that threshold by :mod:`training.evaluate_suite`, which never sees this choice.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from training.evaluate_suite import MATCH_IOU, decide_photo, load_testset, see_photo, without_hidden
from training.metrics import match
from training.testsets import DEFAULT_OUT, TEST_SETS
from training.tile_reading import load_any_reader
from vision.detections import Detections

__all__ = ["tile_outcomes", "flag_rates", "choose_threshold", "main"]

#: The sets tuned on (never reported as tests).
CALIBRATION_SETS = tuple(t.name for t in TEST_SETS if not t.is_test and not t.selects_models)
THRESHOLDS = tuple(round(float(t), 3) for t in np.arange(0.5, 0.996, 0.01))


def tile_outcomes(photos, detector: Path | None, reader, cache: Path | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right?, confidence, non-tile probability) of every tile read in ``photos``."""
    right, confidence, not_tile = [], [], []
    for photo in photos:
        reading, _ = without_hidden(photo, decide_photo(see_photo(photo.image_path, detector, reader, cache), photo.kind))
        pairs = match(Detections(reading.boxes, np.ones(len(reading.boxes), np.float32)), photo.boxes, MATCH_IOU)
        for i, label in enumerate(reading.labels):
            right.append(i in pairs and label == photo.labels[pairs[i]])
            confidence.append(reading.confidence[i])
            not_tile.append(reading.not_tile[i])
    return np.array(right, bool), np.array(confidence, float), np.array(not_tile, float)


def flag_rates(right: np.ndarray, confidence: np.ndarray, threshold: float) -> tuple[float, float]:
    """(share of wrong tiles flagged, share of right tiles flagged) at ``threshold``."""
    flagged = confidence < threshold
    wrong = ~right
    return (float(flagged[wrong].mean()) if wrong.any() else 1.0, float(flagged[right].mean()) if right.any() else 0.0)


def choose_threshold(right: np.ndarray, confidence: np.ndarray, target_wrong: float, thresholds: Sequence[float] = THRESHOLDS) -> float:
    """The lowest threshold flagging at least ``target_wrong`` of the wrong tiles (the highest if none does)."""
    for threshold in thresholds:
        if flag_rates(right, confidence, threshold)[0] >= target_wrong:
            return float(threshold)
    return float(thresholds[-1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.calibrate", description=__doc__.split("\n")[0])
    parser.add_argument("--set", nargs="+", default=list(CALIBRATION_SETS), help="the sets under --testsets to calibrate on, pooled")
    parser.add_argument("--testsets", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--reader", type=Path)
    parser.add_argument("--detector", type=Path)
    parser.add_argument("--target-wrong", type=float, default=0.9)
    parser.add_argument("--json", type=Path, help="also write every tile's outcome here")
    parser.add_argument("--cache", type=Path, help="reuse the detections and reader output saved here (training.evaluate --cache)")
    args = parser.parse_args(argv)
    selection = {t.name for t in TEST_SETS if t.selects_models}
    for name in sorted(set(args.set) - set(CALIBRATION_SETS)):
        why = ("a selection set: models chosen on it are then chosen on the threshold's photos" if name in selection
               else "a test set: its figures are then no longer a test")
        print(f"note: calibrating on {name!r}, {why}", file=sys.stderr)
    photos = [photo for name in args.set for photo in load_testset(args.testsets / name)]
    right, confidence, not_tile = tile_outcomes(photos, args.detector, load_any_reader(args.reader), args.cache)
    print(f"{len(right)} tiles read, {int((~right).sum())} wrong")
    if args.json:
        args.json.write_text(json.dumps({"right": right.tolist(), "confidence": confidence.tolist(), "not_tile": not_tile.tolist()}))
    print("threshold  wrong flagged  right flagged")
    for threshold in THRESHOLDS[::5]:
        w, r = flag_rates(right, confidence, threshold)
        print(f"  {threshold:.2f}      {w:.3f}          {r:.3f}")
    chosen = choose_threshold(right, confidence, args.target_wrong)
    w, r = flag_rates(right, confidence, chosen)
    print(f"chosen uncertain_below {chosen:.2f}: wrong flagged {w:.3f}, right flagged {r:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
