"""The app's one door to :mod:`vision`: photo bytes in, a reading the player can fix out.

The models load once per server process (``st.cache_resource``) and are shared by every
session. Uploads arrive as bytes and are decoded in memory; no name or path a user gives is
ever opened.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import streamlit as st

from solver.i18n import TranslatableError, error_text, tr
from solver.rules import RuleSet

from .editing import Chip


class PhotoError(TranslatableError, ValueError):
    """A photo that cannot be read (not an image, damaged, too large, or vision missing)."""


Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class PhotoReading:
    """What the camera saw: chips per meld (a rack is one row), the annotated photo, doubts.

    ``boxes`` has the shape of ``rows``: each chip's box (x1, y1, x2, y2) in the pixels of
    ``annotated_jpeg`` (the photo scaled down to at most :data:`PREVIEW_PX`), so a page can point
    at a tile on it.
    """

    rows: tuple[tuple[Chip, ...], ...]
    annotated_jpeg: bytes
    problems: tuple[str, ...]
    tile_count: int
    boxes: tuple[tuple[Box, ...], ...] = ()
    #: Per tile of the reading, its crops and embedding (a chip's ``sample`` indexes this).
    samples: tuple = ()


#: Reading problems the pages already report in their own words (invalid melds and copy
#: limits from the table check, doubtful tiles as highlighted chips); any other kind is
#: passed on as the reader words it.
SHOWN_BY_THE_APP = ("invalid-meld", "uncertain-tile", "copy-limit")

log = logging.getLogger(__name__)


@st.cache_resource(show_spinner=False)
def _load_models() -> bool:
    """Open the detector and the reader once per server process and run them once (a failure is retried)."""
    import vision

    vision.warm_up()
    return True


def warm_up_in_background() -> None:
    """Start loading the models in a thread at server start, so the first photo is as fast as the next.

    Called on every page run; the cached thread starts once per server process. A failure is only
    logged here: reading a photo later reports it to the player.
    """
    _start_warm_up()


@st.cache_resource(show_spinner=False)
def _start_warm_up() -> threading.Thread:
    def run() -> None:
        try:
            import vision

            vision.warm_up()  # the sessions are cached per process (vision.model_files.open_model)
        except Exception:  # noqa: BLE001 - the player sees the reason when they read a photo
            log.warning("warming up the tile models failed", exc_info=True)

    thread = threading.Thread(target=run, name="rummikub-warm-up", daemon=True)
    thread.start()
    return thread


def vision_available() -> bool:
    """True when photos can be read here (the package and its model weights are present)."""
    try:
        import vision

        return callable(getattr(vision, "read", None)) and _load_models()
    except Exception:  # noqa: BLE001 - any failure means: type the tiles instead
        return False


def _chip(read_tile: Any, sample: tuple[str, int] | None = None) -> Chip:
    alternatives = tuple(getattr(a, "tile", a) for a in getattr(read_tile, "alternatives", ()) or ())
    return Chip(
        read_tile.tile,
        uncertain=bool(getattr(read_tile, "uncertain", False)),
        corrected=bool(getattr(read_tile, "corrected", False)),
        alternatives=tuple(a for a in alternatives if a is not None and a != read_tile.tile),
        confidence=getattr(read_tile, "confidence", None),
        sample=sample,
    )


#: Longest side of the annotated photo a page shows: enough for a phone or laptop screen; the
#: full 12 MP photo as PNG was 17 MB sent to the phone for every reading.
PREVIEW_PX = 1600
PREVIEW_JPEG_QUALITY = 85


def _preview(image: np.ndarray, reading: Any) -> tuple[bytes, float]:
    """The annotated photo as a JPEG at most :data:`PREVIEW_PX` on its longer side, and its scale."""
    import vision

    scale = min(1.0, PREVIEW_PX / max(image.shape[:2]))
    annotated = vision.annotate(image, reading, scale=scale)
    ok, encoded = cv2.imencode(".jpg", annotated, [cv2.IMWRITE_JPEG_QUALITY, PREVIEW_JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 array
        raise PhotoError("could not draw the annotated photo")
    return encoded.tobytes(), scale


def _problem_text(problem: Any, lang: str) -> str | None:
    kind = getattr(getattr(problem, "kind", None), "value", None)
    if kind in SHOWN_BY_THE_APP:
        return None
    message = getattr(problem, "message", None)
    return message(lang) if callable(message) else str(problem)


def _row_positions(reading: Any, kind: str) -> tuple[tuple[int, ...], ...]:
    """Tile positions per meld (table) or the rack as one row; a tile outside every meld is its own row."""
    melds = [tuple(m) for m in reading.melds]
    grouped = {i for m in melds for i in m}
    melds += [(i,) for i in range(len(reading.tiles)) if i not in grouped]
    rows = tuple(meld for meld in melds if meld)
    if kind == "rack":
        return (tuple(i for row in rows for i in row),)
    return rows


def read_photo(data: bytes, kind: str, rules: RuleSet, lang: str = "en") -> PhotoReading:
    """Read a table (``kind="table"``: rows are melds) or a rack (one row) from photo bytes."""
    from vision.images import ImageError, load_image
    from vision.model_files import ModelFileError

    try:
        image = load_image(data)
    except ImageError as err:
        raise PhotoError(err.message, **err.params) from err
    except Exception as err:  # noqa: BLE001 - e.g. ultralytics' Image.open hook failing on a non-image
        log.warning("decoding an upload failed: %r", err)
        raise PhotoError("not an image, or an image format that cannot be read") from err
    try:
        import vision

        _load_models()
    except ModelFileError as err:
        log.warning("photo reading unavailable: %s", err)
        raise PhotoError("photo reading is not available: {reason}", reason=err) from err
    except ImportError as err:
        log.warning("photo reading unavailable: %s", err)
        raise PhotoError("photo reading is not installed here (no tile models); type the tiles instead") from err
    profile, profile_note = _active_profile(lang)
    try:
        reading = vision.read(image, kind=kind, rules=rules, **({"profile": profile} if profile is not None else {}))
        annotated, scale = _preview(image, reading)
    except ImageError as err:
        raise PhotoError(err.message, **err.params) from err
    except Exception as err:  # noqa: BLE001 - never a traceback on screen; the log keeps it
        log.exception("reading a %s photo failed", kind)
        raise PhotoError("the photo could not be read; try another photo or type the tiles") from err
    problems = tuple(t for t in (profile_note, *(_problem_text(p, lang) for p in reading.problems or ())) if t)
    tiles = tuple(reading.tiles)
    samples = tuple(getattr(reading, "samples", ()) or ())
    kept = len(samples) == len(tiles)
    positions = _row_positions(reading, kind)
    rows = tuple(tuple(_chip(tiles[i], (kind, i) if kept else None) for i in row) for row in positions)
    boxes = tuple(tuple(tuple(float(v) * scale for v in tiles[i].box) for i in row) for row in positions)
    return PhotoReading(rows, annotated, problems, sum(len(r) for r in rows), boxes, samples)  # type: ignore[arg-type]


def _active_profile(lang: str) -> tuple[Any, str | None]:
    """The session's tile profile (None: the reader alone) and, when it cannot be used, why."""
    from vision.model_files import ModelFileError

    from .profile_store import ProfileError
    from .tile_profiles import active_name, active_profile

    try:
        return active_profile(), None
    except (ProfileError, ModelFileError) as err:
        log.warning("tile profile %r not used: %s", active_name(), err)
        return None, tr("The tile profile {name!r} was not used: {reason}", lang, name=active_name(), reason=error_text(err, lang))
