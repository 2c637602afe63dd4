"""How much a calibration profile helps, measured (a script, not a test)::

    python -m training.evaluate_profiles [--photos 10] [--seed 1] [--data PATH] [--skip-real] [--json OUT.json]

1. **Held-out tile styles** (:data:`datasets.synth.styles.HELD_OUT_STYLES`: fonts, inks, marks and
   jokers the reader never saw). Per style, one calibration photo in the default layout is paired
   with the layout (:func:`vision.calibration.collect_samples`), and ``--photos`` test photos of
   random melds in the same style (some photographed from the other side) are read end to end:
   tile precision / recall / F1 of the decoded reading against the labels, photos read exactly,
   and the classifier's accuracy on the detections that match a labelled tile - without a profile
   and with each adaptation method compared (:func:`methods`), and the shipped one with a second
   calibration photo added. The methods' settings were chosen on ``--seed 0``; the figures in the
   model card are from the default seed 1.
2. **Corrections**: the class the reader gets wrong most often in a style's test photos is left
   out of the calibration profile and taught one corrected tile at a time, as the Play page's
   *Change* adds them; reported: how many corrections until every tile of that class in the
   remaining photos is read right - on the test photos (light new in every photo) and on as many
   photos of one session (same light and table, new tiles and camera).
3. **The real validation split** with profiles made from the real training split (one random tile
   per class, as one calibration photo of the training edition would give; three such profiles):
   tiles misread at the labelled boxes with each method and profile, and end to end without and
   with the first profile (no regression is the target).
4. **Time** to calibrate from one 12 MP JPEG (4000 x 3000, the default layout), file to profile.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.scenes import Scene, random_meld
from datasets.synth.styles import HELD_OUT_STYLES, TileStyle, lay_out_rows
from solver.rules import STANDARD
from solver.tiles import NUM_KINDS, Tile
from vision.calibration import DEFAULT_LAYOUT, collect_samples
from vision.decoding import decode
from vision.detections import Detections, box_iou
from vision.profiles import TEMPERATURE, WEIGHT, TileProfile, TileSample

Adapter = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: IoU at which a detection counts as a labelled tile.
MATCH_IOU = 0.5


@dataclass(frozen=True, eq=False)
class SeenPhoto:
    """One test photo read once: everything the methods need to re-decode it."""

    detections: Detections
    groups: list[list[int]]
    probs: np.ndarray
    embeddings: np.ndarray
    views: np.ndarray
    truth: list[int]  # labelled tiles
    matched: np.ndarray  # per detection: the labelled tile's class, or -1


# --- the methods compared ----------------------------------------------------------------------


def _profile_opinion(profile: TileProfile, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q over all 53 classes, cosine to the nearest class mean) as :meth:`TileProfile.adapt` sees them."""
    centred = embeddings - profile.centre
    cosine = _unit(centred) @ profile.means[profile.seen].T
    nearest = cosine.max(axis=1, keepdims=True)
    q = np.zeros((len(embeddings), NUM_KINDS))
    q[:, profile.seen] = np.exp((cosine - nearest) / TEMPERATURE)
    return q / q.sum(axis=1, keepdims=True), nearest


def _product(profile: TileProfile, weight: float = 0.5) -> Adapter:
    """Product of experts among the profile's classes: p ** (1 - w) * q ** w, their total mass kept."""

    def adapt(probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        if not len(probs):
            return probs
        q, _ = _profile_opinion(profile, embeddings)
        seen = profile.seen
        mixed = np.maximum(probs[:, seen], 1e-12) ** (1 - weight) * np.maximum(q[:, seen], 1e-12) ** weight
        out = probs.copy()
        out[:, seen] = mixed / mixed.sum(axis=1, keepdims=True) * probs[:, seen].sum(axis=1, keepdims=True)
        return out

    return adapt


def _ungated(profile: TileProfile, weight: float = WEIGHT) -> Adapter:
    """The shipped mix without the gate: the profile is heard on every tile."""

    def adapt(probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        return probs if not len(probs) else (1 - weight) * probs + weight * _profile_opinion(profile, embeddings)[0]

    return adapt


def _logistic_head(profile: TileProfile, samples: Sequence[TileSample], steps: int = 300, l2: float = 1e-2, lr: float = 0.5) -> Adapter:
    """A residual linear head on the centred unit embeddings, fitted by gradient descent (numpy).

    Logits are the classifier's log-probabilities plus ``W e + b``, W and b starting at zero, so
    an untrained head changes nothing; cross-entropy on the profile's samples plus an L2 penalty.
    """
    from vision.reader import load_reader, read_views

    seen = read_views(np.stack([s.crops for s in samples], axis=1), load_reader())
    features = _unit(seen.embeddings - profile.centre)
    onehot = np.eye(NUM_KINDS)[[s.tile.index for s in samples]]
    base = np.log(np.maximum(seen.probs, 1e-12))
    weights, bias = np.zeros((features.shape[1], NUM_KINDS)), np.zeros(NUM_KINDS)
    for _ in range(steps):
        logits = base + features @ weights + bias
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        grad = (p / p.sum(axis=1, keepdims=True) - onehot) / len(samples)
        weights -= lr * (features.T @ grad + l2 * weights)
        bias -= lr * grad.sum(axis=0)

    def adapt(probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        if not len(probs):
            return probs
        logits = np.log(np.maximum(probs, 1e-12)) + _unit(embeddings - profile.centre) @ weights + bias
        out = np.exp(logits - logits.max(axis=1, keepdims=True))
        return out / out.sum(axis=1, keepdims=True)

    return adapt


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-12)


def methods(samples: Sequence[TileSample]) -> dict[str, Adapter]:
    """Each adaptation compared, fitted to one calibration photo's ``samples`` ("none": no profile)."""
    profile = TileProfile.from_samples("eval", samples)
    return {
        "none": lambda probs, embeddings: probs,
        "gated mix (shipped)": profile.adapt,
        "ungated mix": _ungated(profile),
        "product of experts": _product(profile),
        "logistic head": _logistic_head(profile, samples),
    }


# --- scoring ---------------------------------------------------------------------------------


def _prf(tp: int, n_read: int, n_true: int) -> dict[str, float]:
    precision = tp / n_read if n_read else 1.0
    recall = tp / n_true if n_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def score(photos: Sequence[SeenPhoto], adapt: Adapter) -> dict:
    """End-to-end F1 (decoded), photos read exactly, classifier accuracy on matched detections."""
    tp = n_read = n_true = exact = correct = matched = 0
    for photo in photos:
        probs = adapt(photo.probs, photo.embeddings)
        labels = list(decode(probs, photo.groups, STANDARD, require_valid_melds=True).labels) if len(probs) else []
        hits = sum((Counter(labels) & Counter(photo.truth)).values())
        tp, n_read, n_true = tp + hits, n_read + len(labels), n_true + len(photo.truth)
        exact += int(Counter(labels) == Counter(photo.truth))
        known = photo.matched >= 0
        matched += int(known.sum())
        correct += int((np.argmax(probs, axis=1)[known] == photo.matched[known]).sum()) if len(probs) else 0
    return {
        **{k: round(v, 4) for k, v in _prf(tp, n_read, n_true).items()},
        "photos_exact": round(exact / max(len(photos), 1), 4),
        "classifier_accuracy": round(correct / max(matched, 1), 4),
        "tiles": n_true,
    }


def see_photo(image: np.ndarray, boxes: np.ndarray, labels: Sequence[int]) -> SeenPhoto:
    """Read a labelled photo end to end once (detector, reader) and match detections to labels."""
    from vision.meld_grouping import group_into_melds
    from vision.pipeline import see_tiles

    seen = see_tiles(image)
    matched = np.full(len(seen.detections), -1)
    if len(seen.detections) and len(boxes):
        iou = box_iou(seen.detections.boxes, boxes)
        for d in np.argsort(-iou.max(axis=1)):
            g = int(np.argmax(iou[d]))
            if iou[d, g] >= MATCH_IOU:
                matched[d] = labels[g]
                iou[:, g] = 0.0
    return SeenPhoto(
        seen.detections, group_into_melds(seen.detections, "table"), seen.reading.probs, seen.reading.embeddings,
        seen.views, list(labels), matched,
    )


def _scene_photo(scene: Scene) -> SeenPhoto:
    boxes = np.array([t.box for t in scene.tiles], np.float32).reshape(-1, 4)
    return see_photo(scene.image, boxes, [t.tile.index for t in scene.tiles])


def test_scene(style: TileStyle, rng: np.random.Generator, light: int | None = None) -> Scene:
    """A table of 3-6 random melds in ``style``, one per row; a third photographed from the other side.

    Light, colour cast and blur are new in every photo, or those of ``light`` (one session)."""
    melds = [random_meld(rng) for _ in range(int(rng.integers(3, 7)))]
    turn = 180.0 if rng.random() < 1 / 3 else float(rng.normal(0, 6))
    return lay_out_rows(melds, style, rng, 1280, 960, gap=0.04, turn=turn, light=light)


def calibration_scene(style: TileStyle, rng: np.random.Generator, width: int = 1600, height: int = 1200) -> Scene:
    return lay_out_rows([list(r) for r in DEFAULT_LAYOUT.rows], style, rng, width, height)


# --- the experiments ---------------------------------------------------------------------------


def corrections_needed(calibration: Sequence[TileSample], photos: Sequence[SeenPhoto], limit: int = 10) -> dict:
    """How many Play-page corrections teach the profile a class the reader keeps getting wrong.

    The class: the one the reader (no profile) misreads most often in ``photos``. The profile
    starts as the calibration photo's without that class (a part of the set not laid out) and
    gets one corrected tile of it at a time, taken from the photos in order, as a player fixes
    them while playing; after each, the photos after the one it came from are read again.
    Reported: the class, its misreads before, misreads with the profile before any correction,
    and the corrections it took until none of its tiles in the remaining photos was wrong (None
    when ``limit`` or the photos ran out first).
    """
    wrong: Counter = Counter()
    for photo in photos:
        known = photo.matched >= 0
        for true, read in zip(photo.matched[known], np.argmax(photo.probs[known], axis=1)):
            wrong[int(true)] += int(true != read)
    target, before = wrong.most_common(1)[0] if wrong and wrong.most_common(1)[0][1] else (None, 0)
    if target is None:
        return {"class": None, "wrong_before": 0, "corrections": 0}
    base = [s for s in calibration if s.tile.index != target]

    def misreads(samples: list[TileSample], rest: Sequence[SeenPhoto]) -> int:
        profile = TileProfile.from_samples("corrections", samples)
        return sum(
            int(((np.argmax(profile.adapt(r.probs, r.embeddings), axis=1) != target) & (r.matched == target)).sum())
            for r in rest
        )

    report = {"class": Tile.from_index(target).name, "wrong_before": before, "wrong_without_it": misreads(base, photos)}
    taught: list[TileSample] = []
    for p, photo in enumerate(photos):
        for d in np.flatnonzero(photo.matched == target):
            taught.append(TileSample(Tile.from_index(target), photo.views[:, d], photo.embeddings[d]))
            rest = photos[p + 1 :]
            if not any((r.matched == target).any() for r in rest) or len(taught) > limit:
                return {**report, "corrections": None}
            if misreads(base + taught, rest) == 0:
                return {**report, "corrections": len(taught)}
    return {**report, "corrections": None}


def synthetic_experiment(style: TileStyle, seed: int, count: int) -> dict:
    rng = np.random.default_rng(seed)
    calibration = calibration_scene(style, rng)
    start = time.perf_counter()
    samples = collect_samples(calibration.image, DEFAULT_LAYOUT)
    seconds = time.perf_counter() - start
    second = collect_samples(calibration_scene(style, rng).image, DEFAULT_LAYOUT)
    photos = [_scene_photo(test_scene(style, rng)) for _ in range(count)]
    session_light = int(rng.integers(1 << 30))
    session = [_scene_photo(test_scene(style, rng, session_light)) for _ in range(count)]
    compared = methods(samples)
    compared["gated mix, two calibration photos"] = TileProfile.from_samples("two", samples + second).adapt
    return {
        "style": style.name,
        "calibration_seconds": round(seconds, 2),
        "methods": {name: score(photos, adapt) for name, adapt in compared.items()},
        "corrections": {
            "light_changing": corrections_needed(samples, photos),
            "one_session": corrections_needed(samples, session),
        },
    }


def real_experiment(real_root: Path, seed: int, profiles: int = 3) -> dict:
    """The training edition: profiles of one real training tile per class, on the validation split.

    ``profiles`` profiles are drawn (one random training tile per class each); every method is
    scored at the labelled boxes with each (tiles misread), and end to end with the first.
    """
    from training.evaluate import _gt_detections
    from training.train_reader import load_real_split
    from vision.images import load_image
    from vision.reader import crop_views, load_reader, read_views

    reader = load_reader()
    rng = np.random.default_rng(seed)
    train = load_real_split(real_root, "train")
    by_class: dict[int, list[tuple[int, int]]] = {}
    for p, photo in enumerate(train):
        for t, tile in enumerate(photo.tiles):
            by_class.setdefault(tile.tile.index, []).append((p, t))
    drawn = []
    for _ in range(profiles):
        samples = []
        for c, spots in sorted(by_class.items()):
            p, t = spots[int(rng.integers(len(spots)))]
            views = crop_views(load_image(train[p].image_path), [train[p].tiles[t].box], reader.imgsz)
            samples.append(TileSample(Tile.from_index(c), views[:, 0], read_views(views, reader).embeddings[0]))
        drawn.append(methods(samples))
    valid = [photo for photo in load_real_split(real_root, "valid") if photo.tiles]
    misread = {name: [0] * profiles for name in drawn[0]}
    end_to_end, tiles = [], 0
    for photo in valid:
        image = load_image(photo.image_path)
        truth = np.array([t.tile.index for t in photo.tiles])
        seen = read_views(crop_views(image, _gt_detections(photo).boxes, reader.imgsz), reader)
        tiles += len(truth)
        for k, compared in enumerate(drawn):
            for name, adapt in compared.items():
                misread[name][k] += int((np.argmax(adapt(seen.probs, seen.embeddings), axis=1) != truth).sum())
        end_to_end.append(see_photo(image, np.array([t.box for t in photo.tiles], np.float32), list(truth)))
    shipped = drawn[0]["gated mix (shipped)"]
    return {
        "profile_classes": len(by_class),
        "tiles": tiles,
        "misread_at_labelled_boxes": misread,
        "end_to_end": {"none": score(end_to_end, lambda p, e: p), "profile": score(end_to_end, shipped)},
    }


def time_12mp(style: TileStyle, seed: int) -> float:
    """Seconds from a 4000 x 3000 JPEG of the default layout to a profile."""
    from vision.images import load_image

    scene = calibration_scene(style, np.random.default_rng(seed), 4000, 3000)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calibration.jpg"
        cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        start = time.perf_counter()
        TileProfile.from_samples("timed", collect_samples(load_image(path), DEFAULT_LAYOUT))
        return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    from training.train_reader import DEFAULT_REAL

    parser = argparse.ArgumentParser(prog="python -m training.evaluate_profiles", description=__doc__.split("\n")[0])
    parser.add_argument("--photos", type=int, default=10, help="test photos per style")
    parser.add_argument("--seed", type=int, default=1, help="the method's settings were chosen on seed 0")
    parser.add_argument("--data", type=Path, default=DEFAULT_REAL, help="rummikub-real root")
    parser.add_argument("--skip-real", action="store_true", help="skip the real validation split")
    parser.add_argument("--skip-synthetic", action="store_true", help="skip the held-out tile styles")
    parser.add_argument("--styles", nargs="*", help="only these styles")
    parser.add_argument("--json", type=Path, help="also write the full report here")
    args = parser.parse_args(argv)
    report: dict = {"synthetic": []}
    for k, style in enumerate(HELD_OUT_STYLES):
        if args.skip_synthetic or (args.styles and style.name not in args.styles):
            continue
        result = synthetic_experiment(style, args.seed * 100 + k, args.photos)
        report["synthetic"].append(result)
        print(f"{style.name}: calibration {result['calibration_seconds']} s; corrections {result['corrections']}")
        for name, m in result["methods"].items():
            print(f"  {name:24s} F1 {m['f1']:.4f} (P {m['precision']:.4f} R {m['recall']:.4f}), photos exact "
                  f"{m['photos_exact']:.2f}, classifier {m['classifier_accuracy']:.4f} ({m['tiles']} tiles)")
        sys.stdout.flush()
    if not args.skip_real:
        real = real_experiment(args.data, args.seed)
        report["real"] = real
        print(f"real validation ({real['tiles']} tiles), profiles of one training tile per class ({real['profile_classes']}):")
        for name, counts in real["misread_at_labelled_boxes"].items():
            print(f"  {name:24s} tiles misread at the labelled boxes, per profile: {counts}")
        for key, m in real["end_to_end"].items():
            print(f"  end to end, {key}: F1 {m['f1']:.4f}, photos exact {m['photos_exact']:.3f}, classifier {m['classifier_accuracy']:.4f}")
    report["seconds_12mp"] = round(time_12mp(HELD_OUT_STYLES[0], args.seed), 2)
    print(f"calibration from one 12 MP JPEG: {report['seconds_12mp']} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
