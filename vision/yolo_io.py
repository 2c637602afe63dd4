"""What goes into and comes out of an exported YOLO detector: letterbox, box decoding, NMS.

Pure numpy + OpenCV, no model: these are the steps ultralytics' predictor runs around the
network, written once here so the ONNX runtime gives the same boxes as the ``.pt`` model
(``tests/test_onnx_equivalence.py`` checks that on the real validation photos).

* :func:`letterbox` scales a photo to fit ``imgsz`` (aspect kept) and pads it with grey (114)
  to the smallest multiple of the stride ("minimum rectangle", as ultralytics does for one
  photo), returning the network input and the :class:`Letterbox` geometry to undo it;
* :func:`decode` turns the raw output ``(1, 4 + classes, anchors)`` — centre x, centre y,
  width, height, then one score per class — into boxes in the photo's pixels: score threshold,
  best class, greedy NMS (``cv2.dnn.NMSBoxes``), at most ``max_det`` boxes, clipped to the photo.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.detections import Detections

__all__ = ["Letterbox", "letterbox", "decode", "PAD_VALUE"]

PAD_VALUE = 114
#: Candidates kept for NMS at most (ultralytics' ``max_nms``): the most confident first.
MAX_NMS = 30000
#: A box narrower or shorter than this, in the photo's pixels after clipping, is dropped.
MIN_BOX_PX = 1.0


@dataclass(frozen=True)
class Letterbox:
    """How a photo was fitted into the network input: scale per axis, then padding."""

    scale_x: float
    scale_y: float
    pad_x: int
    pad_y: int
    width: int  # the photo's size, to clip boxes to
    height: int

    def to_photo(self, boxes: np.ndarray) -> np.ndarray:
        """xyxy boxes in network-input pixels -> the photo's pixels, clipped to the photo."""
        out = np.asarray(boxes, dtype=np.float32).reshape(-1, 4).copy()
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale_x
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale_y
        out[:, [0, 2]] = out[:, [0, 2]].clip(0, self.width)
        out[:, [1, 3]] = out[:, [1, 3]].clip(0, self.height)
        return out


def letterbox(image: np.ndarray, imgsz: int, stride: int = 32) -> tuple[np.ndarray, Letterbox]:
    """The network input (1, 3, h, w) float32 RGB in 0..1 for a BGR uint8 photo, and its geometry.

    The photo is resized (bilinear) so its longer side is ``imgsz``, and padded equally on both
    sides of the shorter one up to the next multiple of ``stride``.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("image must be an H x W x 3 BGR uint8 array")
    if imgsz <= 0 or stride <= 0:
        raise ValueError(f"imgsz and stride must be positive, got {imgsz} and {stride}")
    height, width = image.shape[:2]
    ratio = min(imgsz / height, imgsz / width)
    new_w, new_h = max(round(width * ratio), 1), max(round(height * ratio), 1)
    dw, dh = (imgsz - new_w) % stride / 2, (imgsz - new_h) % stride / 2
    resized = image if (new_w, new_h) == (width, height) else cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    padded = cv2.copyMakeBorder(resized, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    blob = np.ascontiguousarray(padded[..., ::-1].transpose(2, 0, 1)[None], dtype=np.float32) / 255.0
    return blob, Letterbox(new_w / width, new_h / height, left, top, width, height)


def decode(output: np.ndarray, geometry: Letterbox, conf: float, iou: float, max_det: int) -> Detections:
    """Boxes above ``conf`` after greedy class-agnostic NMS at ``iou``, in the photo's pixels.

    ``output`` is one image's raw detector output, ``(4 + classes, anchors)`` or with a leading
    batch axis of 1. Confidence is the best class's score; ``class_ids`` is that class.
    """
    raw = np.asarray(output, dtype=np.float32)
    if raw.ndim == 3:
        if raw.shape[0] != 1:
            raise ValueError(f"decode takes one image's output, got a batch of {raw.shape[0]}")
        raw = raw[0]
    if raw.ndim != 2 or raw.shape[0] < 5:
        raise ValueError(f"expected (4 + classes, anchors) detector output, got shape {raw.shape}")
    scores = raw[4:].T
    best = scores.argmax(axis=1)
    confidence = scores[np.arange(len(best)), best]
    keep = np.flatnonzero(confidence > conf)
    if len(keep) == 0:
        return Detections.empty()
    if len(keep) > MAX_NMS:
        keep = keep[np.argsort(-confidence[keep], kind="stable")[:MAX_NMS]]
    cx, cy, w, h = raw[:4, keep]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    # NMSBoxes takes (x, y, w, h) and scores; it returns the kept indices, most confident first.
    # No top_k: OpenCV applies it to the candidates *before* suppression, so a lone tile behind more
    # than max_det duplicate boxes of other tiles would be dropped; the output is capped below.
    chosen = cv2.dnn.NMSBoxes(
        np.stack([xyxy[:, 0], xyxy[:, 1], w, h], axis=1).astype(np.float64).tolist(),
        confidence[keep].astype(np.float64).tolist(),
        0.0,
        iou,
    )
    chosen = np.asarray(chosen, dtype=np.int64).reshape(-1)[:max_det]
    boxes = geometry.to_photo(xyxy[chosen])
    # A box lying in the letterbox's padding is clipped to a line along the photo's edge: it shows
    # nothing of the photo, and no crop can be cut from it.
    shows = (boxes[:, 2] - boxes[:, 0] >= MIN_BOX_PX) & (boxes[:, 3] - boxes[:, 1] >= MIN_BOX_PX)
    return Detections(boxes[shows], confidence[keep][chosen][shows], best[keep][chosen][shows])
