"""Reading a photo of Rummikub tiles: find the tiles, group them into melds, name each one.

    from vision import read, annotate
    reading = read("table.jpg", kind="table")     # -> Reading
    reading.table_melds(), reading.rack(), reading.to_json()

The names are imported on first use (PEP 562), so that the pure modules (``vision.decoding``,
``vision.reading``, ``vision.meld_grouping``, ``vision.detections``) import without OpenCV or ONNX Runtime.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "annotate": "vision.pipeline",
    "decode_together": "vision.pipeline",
    "read": "vision.pipeline",
    "warm_up": "vision.pipeline",
    "LeftOutTile": "vision.reading",
    "ProblemKind": "vision.reading",
    "ReadTile": "vision.reading",
    "Reading": "vision.reading",
    "ReadingKind": "vision.reading",
    "ReadingProblem": "vision.reading",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
