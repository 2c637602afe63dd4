"""The figures every evaluation reports, computed in one place: multiset precision/recall/F1, box
matching, box IoU spreads and a reliability table of the reader's confidence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.detections import Detections, box_iou

__all__ = [
    "PRF",
    "prf",
    "multiset_scores",
    "match",
    "average_precision",
    "iou_spread",
    "Reliability",
]


@dataclass(frozen=True)
class PRF:
    precision: float
    recall: float
    f1: float

    def as_dict(self) -> dict[str, float]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


def prf(hits: int, found: int, truth: int) -> PRF:
    """Precision, recall and F1 from counts (an empty side counts as perfect)."""
    precision = hits / found if found else 1.0
    recall = hits / truth if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


def multiset_scores(read: Sequence[int], truth: Sequence[int]) -> tuple[int, int, int]:
    """(true positives, tiles read, tiles labelled) for one photo, as multisets of tile kinds."""
    read_counts, true_counts = Counter(read), Counter(truth)
    tp = sum(min(read_counts[k], true_counts[k]) for k in read_counts)
    return tp, len(read), len(truth)


def match(found: Detections, truth: np.ndarray, iou: float = 0.5) -> dict[int, int]:
    """Greedy one-to-one matching, best confidence first: detection index -> truth index."""
    pairs: dict[int, int] = {}
    if len(found) == 0 or len(truth) == 0:
        return pairs
    matrix = box_iou(found.boxes, truth)
    taken: set[int] = set()
    for i in np.argsort(-found.confidences, kind="stable"):
        for j in np.argsort(-matrix[i], kind="stable"):
            if matrix[i, j] < iou:
                break
            if j not in taken:
                taken.add(int(j))
                pairs[int(i)] = int(j)
                break
    return pairs


def average_precision(results: list[tuple[Detections, np.ndarray]], iou: float = 0.5) -> float:
    """All-point interpolated AP over many photos (one class)."""
    scores, correct, n_truth = [], [], 0
    for found, truth in results:
        n_truth += len(truth)
        pairs = match(found, truth, iou)
        scores += found.confidences.tolist()
        correct += [i in pairs for i in range(len(found))]
    if n_truth == 0:
        return 1.0
    order = np.argsort(-np.array(scores))
    hits = np.array(correct, float)[order]
    tp = np.cumsum(hits)
    recall = tp / n_truth
    precision = tp / np.arange(1, len(tp) + 1)
    recall = np.concatenate([[0.0], recall, [1.0]])
    precision = np.concatenate([[1.0], precision, [0.0]])
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    return float(np.sum((recall[1:] - recall[:-1]) * precision[1:]))


def iou_spread(values: Sequence[float]) -> dict[str, float | int | None]:
    """Median and 5th percentile of box IoUs (``None`` when there are none)."""
    if not len(values):
        return {"n": 0, "median": None, "p5": None}
    array = np.asarray(values, float)
    return {"n": int(len(array)), "median": float(np.median(array)), "p5": float(np.percentile(array, 5))}


#: Confidence bins of the reliability table (lower edges).
RELIABILITY_BINS = (0.0, 0.5, 0.75, 0.9, 0.97)


@dataclass
class Reliability:
    """Tiles read, by whether they were right and whether they were flagged uncertain, and by confidence."""

    right: int = 0
    wrong: int = 0
    right_flagged: int = 0
    wrong_flagged: int = 0

    def __post_init__(self) -> None:
        self.bins = np.zeros((len(RELIABILITY_BINS), 2), int)  # per bin: tiles, right

    def add(self, right: bool, flagged: bool, confidence: float) -> None:
        if right:
            self.right += 1
            self.right_flagged += int(flagged)
        else:
            self.wrong += 1
            self.wrong_flagged += int(flagged)
        b = int(np.searchsorted(RELIABILITY_BINS, confidence, side="right") - 1)
        self.bins[max(b, 0)] += (1, int(right))

    def as_dict(self) -> dict:
        edges = list(RELIABILITY_BINS) + [1.0]
        return {
            "wrong": self.wrong,
            "wrong_flagged": self.wrong_flagged,
            "wrong_flagged_share": self.wrong_flagged / self.wrong if self.wrong else None,
            "right": self.right,
            "right_flagged_share": self.right_flagged / self.right if self.right else None,
            "table": [
                {"confidence": f"{edges[i]:.2f}-{edges[i + 1]:.2f}", "tiles": int(n), "accuracy": (r / n if n else None)}
                for i, (n, r) in enumerate(self.bins)
            ],
        }
