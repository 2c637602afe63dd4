"""Measure the tile reader on the real validation split (a script, not a test)::

    python -m training.evaluate [--sets ...]     (every test set end to end: training.evaluate_suite)
    python -m training.evaluate reader [--data PATH] [--weights models/reader.onnx] [--json OUT.json]
    python -m training.evaluate detector ...     (runs training.evaluate_detector)

Figures, each with and without rule-aware decoding where that applies:

* the classifier alone on crops cut at the labelled boxes: accuracy, accuracy with the crop
  turned by a quarter, half and three-quarter turn, per-class accuracy, the confusion pairs;
* the same crops decoded with the rules (melds from the layout of the labelled boxes);
* end to end (detector + layout + reader + decoding, when the detector model exists): tile
  precision/recall/F1 of the multiset read against the labels, photos read exactly, melds read
  exactly, seconds per photo, and seconds per 12 MP photo (a validation photo upscaled).

Photos are read as tables; the validation split also holds racks and loose tiles, so decoding
is measured where its assumption (every meld valid) sometimes does not hold.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from solver.rules import STANDARD
from solver.tiles import NUM_KINDS, Tile
from vision.crops import crop_tiles
from vision.decoding import Decoding, argmax_decoding, decode
from vision.detections import Detections
from training.metrics import multiset_scores, prf
from training.real_data import DEFAULT_REAL, LabelledPhoto, load_real_split
from training.train_reader import _rotated_view


def _meld_multisets(groups: Sequence[Sequence[int]], labels: Sequence[int], min_size: int = 3) -> list[tuple[int, ...]]:
    return [tuple(sorted(labels[i] for i in g)) for g in groups if len(g) >= min_size]


def _melds_matched(read: list[tuple[int, ...]], truth: list[tuple[int, ...]]) -> int:
    remaining = Counter(read)
    matched = 0
    for meld in truth:
        if remaining[meld] > 0:
            remaining[meld] -= 1
            matched += 1
    return matched


def _confusions(pairs: Counter) -> list[dict]:
    return [
        {"true": Tile.from_index(t).name, "read": Tile.from_index(r).name, "count": n}
        for (t, r), n in pairs.most_common()
        if t != r
    ]


def _swapped_6_9(true: int, read: int) -> bool:
    """A 6 read as the 9 of the same colour, or the other way round."""
    t, r = Tile.from_index(true), Tile.from_index(read)
    return t.colour == r.colour and {t.number, r.number} == {6, 9}


def _gt_detections(photo: LabelledPhoto) -> Detections:
    boxes = np.array([t.box for t in photo.tiles], np.float32).reshape(-1, 4)
    return Detections(boxes, np.ones(len(boxes), np.float32))


def evaluate_classifier(photos: Sequence[LabelledPhoto], reader) -> dict:
    """The classifier on crops at the labelled boxes, alone and decoded with the rules."""
    from vision.meld_grouping import group_into_melds
    from vision.reader import classify

    stats = Counter()
    per_class = np.zeros((NUM_KINDS, 2), int)  # correct, total
    confusion: Counter = Counter()
    decoded_confusion: Counter = Counter()
    turned_correct = Counter()
    six_nine = Counter()
    melds_true = melds_plain = melds_decoded = 0
    flags = Counter()
    for photo in photos:
        if not photo.tiles:
            continue
        image = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
        truth = [t.tile.index for t in photo.tiles]
        dets = _gt_detections(photo)
        probs = classify(crop_tiles(image, dets.boxes, reader.imgsz), reader)
        probs_single = classify(crop_tiles(image, dets.boxes, reader.imgsz), reader, rotations=False)
        groups = group_into_melds(dets, "table")
        plain = argmax_decoding(probs)
        ruled = decode(probs, groups, STANDARD, require_valid_melds=True)
        single_ruled = decode(probs_single, groups, STANDARD, require_valid_melds=True)
        stats["single_view_decoded"] += sum(int(d == t) for d, t in zip(single_ruled.labels, truth))
        for t, p, d, s in zip(truth, plain.labels, ruled.labels, np.argmax(probs_single, axis=1)):
            stats["tiles"] += 1
            stats["plain"] += int(p == t)
            stats["decoded"] += int(d == t)
            stats["single_view"] += int(s == t)
            per_class[t] += (int(p == t), 1)
            confusion[(t, p)] += 1
            decoded_confusion[(t, d)] += 1
        for i, t in enumerate(truth):
            flags["corrected"] += int(ruled.corrected[i])
            flags["corrected_right"] += int(ruled.corrected[i] and ruled.labels[i] == t)
            flags["corrected_wrong"] += int(ruled.corrected[i] and plain.labels[i] == t)
            flags["uncertain"] += int(ruled.uncertain[i])
            flags["errors"] += int(ruled.labels[i] != t)
            flags["errors_flagged"] += int(ruled.labels[i] != t and ruled.uncertain[i])
        true_melds = _meld_multisets(groups, truth)
        melds_true += len(true_melds)
        melds_plain += _melds_matched(_meld_multisets(groups, plain.labels), true_melds)
        melds_decoded += _melds_matched(_meld_multisets(groups, ruled.labels), true_melds)
        single_labels = [int(v) for v in np.argmax(probs_single, axis=1)]
        flags["one_view_melds_exact"] += _melds_matched(_meld_multisets(groups, single_labels), true_melds)
        flags["one_view_melds_exact_decoded"] += _melds_matched(_meld_multisets(groups, single_ruled.labels), true_melds)
        for turn in (90, 180, 270):
            crops = np.stack([_rotated_view(image, t.polygon, turn, 0.0, np.random.default_rng(0), reader.imgsz) for t in photo.tiles])
            turned = np.argmax(classify(crops, reader), axis=1)
            turned_correct[turn] += int(sum(int(a == b) for a, b in zip(turned, truth)))
            for t, r in zip(truth, turned):
                if Tile.from_index(t).number in (6, 9):
                    six_nine[f"turned_{turn}"] += int(r == t)
                    six_nine["turned_6_9_swapped"] += int(_swapped_6_9(t, int(r)))
        for t, r in zip(truth, plain.labels):
            if Tile.from_index(t).number in (6, 9):
                six_nine["tiles"] += 1
                six_nine["upright"] += int(r == t)
                six_nine["upright_6_9_swapped"] += int(_swapped_6_9(t, r))
    n = max(stats["tiles"], 1)
    return {
        "tiles": stats["tiles"],
        "accuracy": stats["plain"] / n,
        "accuracy_one_view": stats["single_view"] / n,
        "accuracy_one_view_decoded": stats["single_view_decoded"] / n,
        "accuracy_decoded": stats["decoded"] / n,
        "accuracy_turned": {str(k): v / n for k, v in sorted(turned_correct.items())},
        "melds": melds_true,
        "melds_exact": melds_plain / max(melds_true, 1),
        "melds_exact_decoded": melds_decoded / max(melds_true, 1),
        "decoding": dict(flags),
        "six_nine": {
            "tiles": six_nine["tiles"],
            **{
                f"accuracy_{k}": six_nine[k] / max(six_nine["tiles"], 1)
                for k in ("upright", "turned_90", "turned_180", "turned_270")
            },
            "swapped_upright": six_nine["upright_6_9_swapped"],
            "swapped_turned": six_nine["turned_6_9_swapped"],
        },
        "per_class_accuracy": {
            Tile.from_index(i).name: (round(c / t, 4) if t else None) for i, (c, t) in enumerate(per_class)
        },
        "confusions": _confusions(confusion)[:25],
        "confusions_decoded": _confusions(decoded_confusion)[:25],
    }


def _labels_for(probs: np.ndarray, groups: list[list[int]], rules_on: bool) -> Decoding:
    return decode(probs, groups, STANDARD, require_valid_melds=True) if rules_on else argmax_decoding(probs)


def evaluate_end_to_end(photos: Sequence[LabelledPhoto], reader, detector_weights: Path | None = None) -> dict:
    """Detectors (as reading runs them: vision.detector.find_tiles) + layout + reader (+ decoding) on
    every photo; multiset scores and timing."""
    from vision.detector import find_tiles, load_detector
    from vision.images import load_image
    from vision.meld_grouping import group_into_melds
    from vision.reader import read_tiles

    load_detector(detector_weights)
    totals = {True: [0, 0, 0], False: [0, 0, 0]}
    exact = {True: 0, False: 0}
    melds = {True: 0, False: 0}
    melds_true = 0
    seconds = []
    errors = []
    for photo in photos:
        start = time.perf_counter()
        image = load_image(photo.image_path)
        dets = find_tiles(image, weights=detector_weights)
        probs = read_tiles(image, dets.boxes, reader)
        groups = group_into_melds(dets, "table")
        decoded = _labels_for(probs, groups, True)
        seconds.append(time.perf_counter() - start)
        truth = [t.tile.index for t in photo.tiles]
        true_melds = _meld_multisets(group_into_melds(_gt_detections(photo), "table"), truth) if photo.tiles else []
        melds_true += len(true_melds)
        for rules_on in (True, False):
            labels = decoded.labels if rules_on else argmax_decoding(probs).labels
            tp, n_read, n_true = multiset_scores(labels, truth)
            for k, v in enumerate((tp, n_read, n_true)):
                totals[rules_on][k] += v
            exact[rules_on] += int(Counter(labels) == Counter(truth))
            melds[rules_on] += _melds_matched(_meld_multisets(groups, labels), true_melds)
        missing, extra = Counter(truth) - Counter(decoded.labels), Counter(decoded.labels) - Counter(truth)
        if missing or extra:
            errors.append({
                "photo": photo.image_path.name,
                "missing": sorted(Tile.from_index(k).name for k in missing.elements()),
                "extra": sorted(Tile.from_index(k).name for k in extra.elements()),
            })
    n = max(len(photos), 1)
    result = {"photos": len(photos), "seconds_per_photo": float(np.mean(seconds)) if seconds else None}
    for rules_on, key in ((True, "decoded"), (False, "classifier_only")):
        result[key] = {
            **prf(*totals[rules_on]).as_dict(),
            "photos_exact": exact[rules_on] / n,
            "melds_exact": melds[rules_on] / max(melds_true, 1),
        }
    result["melds"] = melds_true
    result["errors"] = errors  # per photo, after decoding: labelled tiles not read, tiles read but not there
    return result


def time_large_photo(
    photo: LabelledPhoto, repeats: int = 3, detector_weights: Path | None = None, reader_weights: Path | None = None
) -> float:
    """Median seconds to read a 4000x3000 JPEG (a validation photo upscaled), file to reading."""
    from vision.pipeline import read

    image = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
    rows = np.where(image.reshape(image.shape[0], -1).max(axis=1) > 20)[0]
    content = image[rows[0] : rows[-1] + 1] if len(rows) else image  # drop the letterbox bars
    big = cv2.resize(content, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    times = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.jpg"
        cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 92])
        weights = {"detector_weights": detector_weights, "reader_weights": reader_weights}
        read(path, **weights)  # warm
        for _ in range(repeats):
            start = time.perf_counter()
            read(path, **weights)
            times.append(time.perf_counter() - start)
    return float(np.median(times))


def evaluate_reader(
    real_root: Path, weights: Path | None = None, end_to_end: bool = True, detector_weights: Path | None = None
) -> dict:
    from vision.model_files import model_path
    from vision.reader import load_reader

    reader = load_reader(weights)
    photos = load_real_split(real_root, "valid")
    report: dict = {"split": str(Path(real_root) / "valid"), "classifier": evaluate_classifier(photos, reader)}
    if end_to_end and Path(detector_weights or model_path("detector")).is_file():
        report["end_to_end"] = evaluate_end_to_end(photos, reader, detector_weights)
        busiest = max(photos, key=lambda p: len(p.tiles))
        report["end_to_end"]["seconds_per_12mp_photo"] = time_large_photo(busiest, 3, detector_weights, weights)
    return report


def _summary(report: dict) -> str:
    c = report["classifier"]
    lines = [
        f"classifier on labelled boxes ({c['tiles']} tiles):",
        f"  accuracy {c['accuracy']:.4f} (one view, no turns averaged: {c['accuracy_one_view']:.4f}, "
        f"decoded {c['accuracy_one_view_decoded']:.4f})",
        "  turned crops: " + ", ".join(f"{k} deg {v:.4f}" for k, v in c["accuracy_turned"].items()),
        f"  with rule-aware decoding {c['accuracy_decoded']:.4f}",
        f"  melds read exactly ({c['melds']} of 3+ tiles): {c['melds_exact']:.4f} -> decoded {c['melds_exact_decoded']:.4f}",
        f"  decoding: {c['decoding']}",
        f"  6s and 9s: {c['six_nine']}",
        "  top confusions (true -> read): "
        + ", ".join(f"{x['true']}->{x['read']} x{x['count']}" for x in c["confusions"][:10]),
    ]
    e = report.get("end_to_end")
    if e:
        for key in ("decoded", "classifier_only"):
            m = e[key]
            lines.append(
                f"end to end, {key.replace('_', ' ')}: P {m['precision']:.4f} R {m['recall']:.4f} F1 {m['f1']:.4f}, "
                f"photos exact {m['photos_exact']:.3f}, melds exact {m['melds_exact']:.3f}"
            )
        lines.append(
            f"seconds per photo {e['seconds_per_photo']:.3f}; per 12 MP photo {e['seconds_per_12mp_photo']:.3f}"
        )
        lines += [
            f"  {x['photo'][:40]}: missing {' '.join(x['missing']) or '-'}; extra {' '.join(x['extra']) or '-'}"
            for x in e["errors"]
        ]
    else:
        lines.append("end to end: skipped (no detector weights)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "detector":
        from training import evaluate_detector

        return int(evaluate_detector.main(argv[1:]) or 0)
    if not argv or argv[0] != "reader":  # every test set, end to end
        from training import evaluate_suite

        return int(evaluate_suite.main(argv) or 0)
    parser = argparse.ArgumentParser(prog="python -m training.evaluate reader")
    parser.add_argument("--data", type=Path, default=DEFAULT_REAL, help="rummikub-real root (its valid split is used)")
    parser.add_argument("--weights", type=Path, help="reader model (default: the shipped reader.onnx)")
    parser.add_argument("--detector", type=Path, help="detector model (default: the shipped detector.onnx)")
    parser.add_argument("--classifier-only", action="store_true", help="skip the end-to-end part")
    parser.add_argument("--json", type=Path, help="also write the full report here")
    args = parser.parse_args(argv[1:])
    report = evaluate_reader(args.data, args.weights, not args.classifier_only, args.detector)
    print(_summary(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
