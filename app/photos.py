"""The app's one door to :mod:`vision`: photo bytes in, a reading the player can fix out.

The models load once per server process (``st.cache_resource``) and are shared by every
session. Uploads arrive as bytes and are decoded in memory; no name or path a user gives is
ever opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import streamlit as st

from solver.rules import RuleSet

from .editing import Chip


class PhotoError(ValueError):
    """A photo that cannot be read (not an image, damaged, too large, or vision missing)."""


@dataclass(frozen=True)
class PhotoReading:
    """What the camera saw: chips per meld (a rack is one row), the annotated photo, doubts."""

    rows: tuple[tuple[Chip, ...], ...]
    annotated_png: bytes
    problems: tuple[str, ...]
    tile_count: int


@st.cache_resource(show_spinner=False)
def _vision() -> Any:
    """Import :mod:`vision` (and let it load its models) once per server process."""
    import vision

    warm = getattr(vision, "warm_up", None)
    if callable(warm):
        warm()
    return vision


def vision_available() -> bool:
    try:
        return callable(getattr(_vision(), "read", None))
    except Exception:  # noqa: BLE001 - any import failure means: type the tiles instead
        return False


def _chip(read_tile: Any) -> Chip:
    alternatives = tuple(getattr(a, "tile", a) for a in getattr(read_tile, "alternatives", ()) or ())
    return Chip(
        read_tile.tile,
        uncertain=bool(getattr(read_tile, "uncertain", False)),
        corrected=bool(getattr(read_tile, "corrected", False)),
        alternatives=tuple(a for a in alternatives if a is not None and a != read_tile.tile),
        confidence=getattr(read_tile, "confidence", None),
    )


def _png(image: np.ndarray) -> bytes:
    ok, encoded = cv2.imencode(".png", image)
    if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 array
        raise PhotoError("could not draw the annotated photo")
    return encoded.tobytes()


def read_photo(data: bytes, kind: str, rules: RuleSet) -> PhotoReading:
    """Read a table (``kind="table"``: rows are melds) or a rack (one row) from photo bytes."""
    try:
        from vision.images import ImageError, load_image
    except ImportError as err:  # pragma: no cover - vision ships with the app
        raise PhotoError("photo reading is not available here; type the tiles instead") from err
    try:
        image = load_image(data)
    except ImageError as err:
        raise PhotoError(str(err)) from err
    if not vision_available():
        raise PhotoError("photo reading is not available here; type the tiles instead")
    vision = _vision()
    reading = vision.read(image, kind=kind, rules=rules)
    tiles = tuple(reading.tiles)
    if kind == "table":
        rows = tuple(tuple(_chip(tiles[i]) for i in meld) for meld in reading.melds)
    else:
        rows = (tuple(_chip(t) for t in tiles),)
    annotated = _png(vision.annotate(image, reading))
    problems = tuple(str(p) for p in getattr(reading, "problems", ()) or ())
    return PhotoReading(rows, annotated, problems, len(tiles))
