"""Detections: the value every stage after the detector works with (no ultralytics objects beyond here).

API::

    Detections(boxes, confidences, class_ids=None)   # frozen; arrays copied and made read-only
    Detections.empty()
    Detections.concat([d1, d2, ...])
    d[mask_or_indices] -> Detections                  # filtering/selection
    len(d), d.centers, d.widths, d.heights, d.areas
    d.with_min_confidence(0.5), d.shifted(dx, dy), d.scaled(sx, sy), d.clipped(width, height)
    d.nms(iou_threshold=0.5, overlap_threshold=None)  # greedy, class-agnostic, keeps best first
    box_iou(a, b) -> (len(a), len(b)) IoU matrix

``boxes`` are ``(N, 4)`` float32 ``x1, y1, x2, y2`` in pixels of the *original* photo, as the user
loaded it (see :func:`vision.images.load_image`); ``confidences`` are ``(N,)`` float32 in 0..1;
``class_ids`` are optional ``(N,)`` int64 (the detector has one class, ``tile``; the reader may
attach tile indices 0..52).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

__all__ = ["Detections", "agreed", "box_iou", "box_overlap", "box_coverage", "median_length"]


def median_length(boxes: np.ndarray | Sequence[Sequence[float]]) -> float:
    """The median of the boxes' longer sides (xyxy; 0.0 for no boxes): how long a photo's tiles are."""
    boxes = np.asarray(boxes).reshape(-1, 4)  # in their own precision: the detector's are float32
    if not len(boxes):
        return 0.0
    return float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Detections:
    """Boxes (xyxy, original-photo pixels) with confidences and optional class ids."""

    boxes: np.ndarray
    confidences: np.ndarray
    class_ids: np.ndarray | None = None

    def __post_init__(self) -> None:
        boxes = np.asarray(self.boxes, dtype=np.float32).reshape(-1, 4) if np.size(self.boxes) else np.zeros((0, 4), np.float32)
        confidences = np.asarray(self.confidences, dtype=np.float32).reshape(-1)
        if len(confidences) != len(boxes):
            raise ValueError(f"{len(boxes)} boxes but {len(confidences)} confidences")
        if np.any(boxes[:, 2] < boxes[:, 0]) or np.any(boxes[:, 3] < boxes[:, 1]):
            raise ValueError("boxes must be x1, y1, x2, y2 with x2 >= x1 and y2 >= y1")
        object.__setattr__(self, "boxes", _readonly(boxes))
        object.__setattr__(self, "confidences", _readonly(confidences))
        if self.class_ids is not None:
            class_ids = np.asarray(self.class_ids, dtype=np.int64).reshape(-1)
            if len(class_ids) != len(boxes):
                raise ValueError(f"{len(boxes)} boxes but {len(class_ids)} class ids")
            object.__setattr__(self, "class_ids", _readonly(class_ids))

    @classmethod
    def empty(cls) -> "Detections":
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32))

    @classmethod
    def concat(cls, parts: Iterable["Detections"]) -> "Detections":
        parts = list(parts)
        if not parts:
            return cls.empty()
        with_ids = [p.class_ids is not None for p in parts if len(p)]
        if with_ids and any(with_ids) and not all(with_ids):
            raise ValueError("cannot concatenate detections with and without class ids")
        class_ids = None
        if with_ids and all(with_ids):
            class_ids = np.concatenate([p.class_ids for p in parts if len(p)])  # type: ignore[misc]
        return cls(
            np.concatenate([p.boxes for p in parts]),
            np.concatenate([p.confidences for p in parts]),
            class_ids,
        )

    def __len__(self) -> int:
        return len(self.boxes)

    def __getitem__(self, index: np.ndarray | Sequence[int] | slice) -> "Detections":
        index = np.asarray(index) if not isinstance(index, slice) else index
        return Detections(
            self.boxes[index],
            self.confidences[index],
            None if self.class_ids is None else self.class_ids[index],
        )

    def __repr__(self) -> str:
        return f"Detections(n={len(self)})"

    @property
    def centers(self) -> np.ndarray:
        return np.stack([(self.boxes[:, 0] + self.boxes[:, 2]) / 2, (self.boxes[:, 1] + self.boxes[:, 3]) / 2], axis=1)

    @property
    def widths(self) -> np.ndarray:
        return self.boxes[:, 2] - self.boxes[:, 0]

    @property
    def heights(self) -> np.ndarray:
        return self.boxes[:, 3] - self.boxes[:, 1]

    @property
    def areas(self) -> np.ndarray:
        return self.widths * self.heights

    def with_min_confidence(self, threshold: float) -> "Detections":
        return self[self.confidences >= threshold]

    def shifted(self, dx: float, dy: float) -> "Detections":
        return Detections(self.boxes + np.array([dx, dy, dx, dy], np.float32), self.confidences, self.class_ids)

    def scaled(self, sx: float, sy: float | None = None) -> "Detections":
        sy = sx if sy is None else sy
        return Detections(self.boxes * np.array([sx, sy, sx, sy], np.float32), self.confidences, self.class_ids)

    def clipped(self, width: int, height: int) -> "Detections":
        boxes = self.boxes.copy()
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
        return Detections(boxes, self.confidences, self.class_ids)

    def nms(self, iou_threshold: float = 0.5, overlap_threshold: float | None = None) -> "Detections":
        """Greedy class-agnostic suppression, best confidence first.

        A box is dropped when its IoU with a kept box exceeds ``iou_threshold``, or (if given) when
        more than ``overlap_threshold`` of the *smaller* box lies inside a kept box - that removes
        the half-tile boxes tiled inference produces at window borders.
        """
        if len(self) == 0:
            return self
        order = np.argsort(-self.confidences, kind="stable")
        iou = box_iou(self.boxes, self.boxes)
        overlap = box_overlap(self.boxes, self.boxes) if overlap_threshold is not None else None
        suppressed = np.zeros(len(self), bool)
        keep: list[int] = []
        for i in order:
            if suppressed[i]:
                continue
            keep.append(int(i))
            suppressed |= iou[i] > iou_threshold
            if overlap is not None:
                suppressed |= overlap[i] > overlap_threshold
        return self[np.array(sorted(keep), dtype=np.int64)]


#: A box of the first detector is kept when the second has one on it at this IoU (see agreed).
CONFIRM_IOU = 0.5
#: A box of the second detector is added when it overlaps none of the first's by this IoU.
NEW_IOU = 0.3


def agreed(first: Detections, second: Detections) -> Detections:
    """The first detector's boxes that the second confirms, then the second's boxes the first lacks.

    Two detectors trained differently seldom take the same non-tile for a tile, while a real tile is
    found by both: on the selection sets, the shipped detector (stage 6) with stage 7 reads half the
    non-tiles and as many tiles (``models/detector.md``, "Two detectors agree"). The first's boxes
    are the ones kept, because the reader was chosen behind them; a tile only the second finds is
    added with the second's box. A first box whose best match lies between :data:`NEW_IOU` and
    :data:`CONFIRM_IOU` is dropped with that match: the two disagree on where the tile is.
    """
    if len(first) == 0 or len(second) == 0:
        return second  # all new, or nothing confirmed
    iou = box_iou(first.boxes, second.boxes)
    confirmed = iou.max(axis=1) >= CONFIRM_IOU
    new = iou.max(axis=0) < NEW_IOU
    return Detections.concat([first[confirmed], second[new]])


def _intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    return np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)


def _area(boxes: np.ndarray) -> np.ndarray:
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over union of every box in ``a`` with every box in ``b`` (xyxy)."""
    inter = _intersection(a, b)
    union = _area(a)[:, None] + _area(b)[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)


def box_overlap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over the smaller box's area (1.0 when one box lies inside the other)."""
    inter = _intersection(a, b)
    smaller = np.minimum(_area(a)[:, None], _area(b)[None, :])
    return np.where(smaller > 0, inter / np.maximum(smaller, 1e-9), 0.0)


def box_coverage(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Share of each box in ``b`` that lies inside each box in ``a``, shape (len(a), len(b))."""
    area_b = _area(b)[None, :]
    return np.where(area_b > 0, _intersection(a, b) / np.maximum(area_b, 1e-9), 0.0)
