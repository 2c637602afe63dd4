"""Evaluate the tile detector and the meld layout; print the figures the model card records.

``python -m training.evaluate_detector [--real ../shared/datasets/rummikub-real] [--weights models/detector.onnx]
[--synthetic 20] [--big 6] [--big-synthetic 6] [--seed 12345] [--melds-only] [--melds-split valid|train|both]
[--annotations datasets/real_melds.yaml]``

* real validation split: precision, recall (IoU 0.5, after the detector's confidence threshold),
  AP50 (all-point interpolated, every box down to conf 0.001), missed/extra tiles per photo;
* fresh synthetic test scenes (seeds unseen in training): the same, plus meld-grouping accuracy
  (a true meld counts when exactly its detected tiles form one group);
* resolution strategy: the real photos upscaled to 12 MP (4032×3024), and crowded synthetic
  12 MP tables whose tiles are small, with ``tiling`` never vs auto and a larger ``imgsz``:
  recall and seconds per photo (detection only; decoding the JPEG is not included);
* meld grouping on the real photos, against this project's meld annotations
  (``datasets/real_melds.yaml``: all 34 validation photos, and 25 training photos that layout was
  tuned on): ``vision.meld_grouping`` fed (a) the label boxes - layout alone - and (b) the detector's boxes -
  end to end, where a true meld counts only when all its tiles are found (IoU 0.5) and form one group
  with nothing else. Tables and racks apart; loose tiles (one-tile melds) are counted on their own.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from training.annotate_melds import DEFAULT_ANNOTATIONS, PhotoMelds, label_boxes, load_annotations, photo_files
from vision.detections import Detections
from vision.detector import detect_tiles
from vision.model_files import model_path
from vision.images import load_image
from vision.meld_grouping import group_into_melds
from training.metrics import average_precision, match, prf
from training.real_data import DEFAULT_REAL, load_real_split

__all__ = ["match", "average_precision", "Counts", "MeldCounts", "exact_melds", "score_photo", "main"]


@dataclass
class Counts:
    truth: int = 0
    found: int = 0
    hits: int = 0
    photos: int = 0
    seconds: float = 0.0

    @property
    def recall(self) -> float:
        return prf(self.hits, self.found, self.truth).recall

    @property
    def precision(self) -> float:
        return prf(self.hits, self.found, self.truth).precision

    def line(self) -> str:
        missed = (self.truth - self.hits) / max(self.photos, 1)
        extra = (self.found - self.hits) / max(self.photos, 1)
        return (
            f"precision {self.precision:.4f}  recall {self.recall:.4f}  "
            f"missed/photo {missed:.2f}  extra/photo {extra:.2f}  "
            f"({self.hits}/{self.truth} tiles, {self.photos} photos, {self.seconds / max(self.photos, 1):.2f} s/photo)"
        )


def exact_melds(groups: list[list[int]], truth: list[list[int]] | tuple, pairs: dict[int, int] | None = None) -> list[bool]:
    """For each true meld: is it one of ``groups`` exactly?

    ``groups`` index the boxes layout saw; ``pairs`` maps those to truth indices (detection ->
    label line, from :func:`match`); ``None`` when layout saw the truth boxes themselves. A group
    holding a box with no true tile (an extra detection) matches no meld, and a meld with a tile
    the detector missed cannot be matched.
    """
    if pairs is None:
        pairs = {i: i for g in groups for i in g}
    as_truth = {frozenset(pairs[i] for i in g) for g in groups if all(i in pairs for i in g)}
    return [frozenset(m) in as_truth for m in truth]


@dataclass
class MeldCounts:
    """Melds (two or more tiles; on a rack, every tier) and loose tiles, grouped exactly or not."""

    melds: int = 0
    exact: int = 0
    loose: int = 0
    alone: int = 0
    photos: int = 0

    @property
    def accuracy(self) -> float:
        return self.exact / self.melds if self.melds else 1.0

    def line(self, kind: str) -> str:
        text = f"{'tiers' if kind == 'rack' else 'melds'} {self.exact}/{self.melds} = {self.accuracy:.3f}"
        if self.loose:
            text += f", loose tiles kept alone {self.alone}/{self.loose} = {self.alone / self.loose:.3f}"
        return f"{kind}s ({self.photos} photos): {text}"


def score_photo(counts: MeldCounts, photo: PhotoMelds, groups: list[list[int]], pairs: dict[int, int] | None = None) -> None:
    """Add one photo's grouping to ``counts``."""
    counts.photos += 1
    for meld, ok in zip(photo.melds, exact_melds(groups, list(photo.melds), pairs)):
        if len(meld) > 1 or photo.kind == "rack":
            counts.melds += 1
            counts.exact += ok
        else:
            counts.loose += 1
            counts.alone += ok


def _melds_report(real: Path, annotations: Path, weights: Path, conf: float, imgsz: int, splits: tuple[str, ...]) -> None:
    """Meld-grouping figures on the annotated real photos, label boxes and detector boxes."""
    for split, photos in load_annotations(annotations).items():
        if split not in splits:
            continue
        by_source: dict[str, dict[str, MeldCounts]] = {"label boxes (layout alone)": {}, "detector boxes (end to end)": {}}
        for stem, photo in photos.items():
            if photo.kind not in ("table", "rack"):
                continue  # heaps and backgrounds: no meld structure to score
            image_file, label_file = photo_files(real, split, stem)
            image = load_image(image_file)
            truth, _ = label_boxes(label_file, image.shape[1], image.shape[0])
            dets = Detections(truth, np.ones(len(truth), np.float32))
            score_photo(by_source["label boxes (layout alone)"].setdefault(photo.kind, MeldCounts()), photo,
                        group_into_melds(dets, photo.kind))
            found = detect_tiles(image, weights=weights, conf=conf, imgsz=imgsz, tiling="never")
            score_photo(by_source["detector boxes (end to end)"].setdefault(photo.kind, MeldCounts()), photo,
                        group_into_melds(found, photo.kind), match(found, truth))
        role = "validation" if split == "valid" else "layout tuning set"
        for source, per_kind in by_source.items():
            print(f"real {split} melds ({role}), {source}:")
            for kind in ("table", "rack"):
                if kind in per_kind:
                    print(f"  {per_kind[kind].line(kind)}")


def real_split(root: Path) -> list[tuple[Path, np.ndarray]]:
    """(photo, truth boxes in pixels) for the real validation split."""
    return [
        (photo.image_path, np.array([t.box for t in photo.tiles], np.float32).reshape(-1, 4))
        for photo in load_real_split(root, "valid")
    ]


def _evaluate(samples, weights, conf: float, **kwargs) -> tuple[Counts, float]:
    counts = Counts()
    ap_inputs = []
    for image, truth in samples:
        start = time.perf_counter()
        found_all = detect_tiles(image, weights=weights, conf=0.001, **kwargs)
        counts.seconds += time.perf_counter() - start
        found = found_all.with_min_confidence(conf)
        ap_inputs.append((found_all, truth))
        counts.truth += len(truth)
        counts.found += len(found)
        counts.hits += len(match(found, truth))
        counts.photos += 1
    return counts, average_precision(ap_inputs)


def _synthetic(count: int, seed: int):
    from datasets.synth.scenes import compose_scene

    for k in range(count):
        scene = compose_scene(np.random.default_rng([seed, k]), kind="table" if k % 4 else "rack")
        yield scene


def _letterbox_to_12mp(image: np.ndarray) -> tuple[np.ndarray, tuple[int, int, float, float]]:
    """The real photos are 4:3 shots letterboxed into 640×640: cut the bars, upscale to 4032×3024."""
    rows = np.where(image.reshape(image.shape[0], -1).max(axis=1) > 20)[0]
    cols = np.where(image.max(axis=(0, 2)) > 20)[0]
    content = image[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]
    h, w = content.shape[:2]
    size = (4032, 3024) if w >= h else (3024, 4032)
    return cv2.resize(content, size, interpolation=cv2.INTER_CUBIC), (rows.min(), cols.min(), size[0] / w, size[1] / h)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate_detector", description=__doc__.split("\n")[0])
    parser.add_argument("--real", type=Path, default=DEFAULT_REAL)
    parser.add_argument("--weights", type=Path, default=model_path("detector"))
    parser.add_argument("--conf", type=float, default=0.35)
    parser.add_argument("--imgsz", type=int, default=640, help="network input size for the real and synthetic sets")
    parser.add_argument("--synthetic", type=int, default=20, help="fresh synthetic scenes (0: skip)")
    parser.add_argument("--big", type=int, default=6, help="real photos upscaled to 12 MP for the resolution study (0: skip)")
    parser.add_argument("--big-synthetic", type=int, default=6, help="crowded synthetic 12 MP scenes (0: skip)")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--annotations", type=Path, default=DEFAULT_ANNOTATIONS, help="meld annotations of the real photos")
    parser.add_argument("--melds-only", action="store_true", help="only the meld-grouping figures on the real photos")
    parser.add_argument("--melds-split", choices=("valid", "train", "both"), default="both",
                        help="annotated split(s) for the meld figures (tune layout on train only)")
    args = parser.parse_args(argv)

    if not args.real.is_dir():
        print(f"real dataset not found at {args.real}: skipped (see datasets/README.md)")
    else:
        splits = ("valid", "train") if args.melds_split == "both" else (args.melds_split,)
        _melds_report(args.real, args.annotations, args.weights, args.conf, args.imgsz, splits)
    if args.melds_only:
        return 0

    if args.real.is_dir():
        samples = [(load_image(path), truth) for path, truth in real_split(args.real)]
        counts, ap = _evaluate(samples, args.weights, args.conf, tiling="never", imgsz=args.imgsz)
        print(f"real valid (imgsz {args.imgsz}, conf {args.conf}): AP50 {ap:.4f}  {counts.line()}")
        if args.big:
            big_samples = []
            for image, truth in samples[: args.big]:
                big, (top, left, sx, sy) = _letterbox_to_12mp(image)
                shifted = (truth - np.array([left, top, left, top], np.float32)) * np.array([sx, sy, sx, sy], np.float32)
                big_samples.append((big, shifted))
            for label, kwargs in (
                ("12 MP, imgsz 640, no tiling", {"tiling": "never"}),
                ("12 MP, imgsz 640, auto tiling", {"tiling": "auto"}),
                ("12 MP, imgsz 640, always tiling", {"tiling": "always"}),
                ("12 MP, imgsz 1024, no tiling", {"tiling": "never", "imgsz": 1024}),
            ):
                counts, ap = _evaluate(big_samples, args.weights, args.conf, **kwargs)
                print(f"{label}: AP50 {ap:.4f}  {counts.line()}")

    if args.big_synthetic:
        # Crowded tables photographed from afar: 2000x1500 scenes upscaled to 4000x3000 (12 MP),
        # so many tiles are only 6-50 px tall in a 640-px network input.
        from datasets.synth.scenes import compose_scene

        big_samples = []
        for k in range(args.big_synthetic):
            scene = compose_scene(np.random.default_rng([args.seed, 10_000 + k]), 2000, 1500, "table")
            truth = np.array([t.box for t in scene.tiles], np.float32).reshape(-1, 4) * 2
            big_samples.append((cv2.resize(scene.image, (4000, 3000), interpolation=cv2.INTER_CUBIC), truth))
        for label, kwargs in (
            ("synthetic 12 MP, imgsz 640, no tiling", {"tiling": "never"}),
            ("synthetic 12 MP, imgsz 640, auto tiling", {"tiling": "auto"}),
            ("synthetic 12 MP, imgsz 1280, no tiling", {"tiling": "never", "imgsz": 1280}),
        ):
            counts, ap = _evaluate(big_samples, args.weights, args.conf, **kwargs)
            print(f"{label}: AP50 {ap:.4f}  {counts.line()}")

    if args.synthetic:
        counts = Counts()
        ap_inputs = []
        melds_total = melds_exact = 0
        for scene in _synthetic(args.synthetic, args.seed):
            truth = np.array([t.box for t in scene.tiles], np.float32).reshape(-1, 4)
            start = time.perf_counter()
            found_all = detect_tiles(scene.image, weights=args.weights, conf=0.001, imgsz=args.imgsz)
            counts.seconds += time.perf_counter() - start
            found = found_all.with_min_confidence(args.conf)
            ap_inputs.append((found_all, truth))
            pairs = match(found, truth)
            counts.truth += len(truth)
            counts.found += len(found)
            counts.hits += len(pairs)
            counts.photos += 1
            exact = exact_melds(group_into_melds(found, scene.kind), scene.melds, pairs)
            melds_total += len(exact)
            melds_exact += sum(exact)
        print(f"synthetic test ({args.synthetic} scenes, seed {args.seed}): AP50 {average_precision(ap_inputs):.4f}  {counts.line()}")
        print(f"synthetic melds/tiers grouped exactly: {melds_exact}/{melds_total} = {melds_exact / max(melds_total, 1):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
