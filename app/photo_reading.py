"""One way in for a photo: bytes or a path in, a :class:`vision.reading.Reading` out, or one
:class:`PhotoError`.

Both front ends read photos here (the CLI, and :mod:`app.photos` for the pages), so a photo
fails the same way everywhere and each front end only words the error in its own sentence.
Nothing here knows Streamlit or argparse. :mod:`vision`'s runtime (OpenCV, ONNX Runtime) is
imported on the first photo, so commands that read none never pay for it.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from solver.i18n import TranslatableError
from solver.rules import RuleSet
from vision.reading import Reading, ReadingKind

if TYPE_CHECKING:
    import numpy as np

    from vision.profiles import TileProfile
    from vision.session_memory import SessionMemory

log = logging.getLogger(__name__)


class PhotoFailure(enum.Enum):
    """Why a photo was not read; a front end that words the cases differently tells them apart."""

    #: Not an image, damaged, empty, not a regular file, or too many pixels.
    UNREADABLE = "unreadable"
    #: More bytes than the limit the caller gave.
    TOO_LARGE = "too-large"
    #: Photos cannot be read here: a model file or the runtime packages are missing.
    UNAVAILABLE = "unavailable"
    #: The reader itself failed on this photo (the log keeps the traceback).
    FAILED = "failed"
    #: Read, but no tile on it, where the caller needs tiles (a rack to check a turn with).
    NO_TILES = "no-tiles"


class PhotoError(TranslatableError, ValueError):
    """A photo that cannot be read, with the :class:`PhotoFailure` that says why.

    Its text is the reason alone ("the file is empty (0 bytes)"), in the reader's language
    through :func:`solver.i18n.error_text`; the front end says which photo it was.
    """

    def __init__(self, message: str, /, *, failure: PhotoFailure, **params: object) -> None:
        self.failure = failure
        super().__init__(message, **params)


@dataclass(frozen=True)
class PhotoRead:
    """A photo decoded (upright BGR pixels, what the boxes refer to) and what was read on it."""

    image: np.ndarray
    reading: Reading


PhotoSource = bytes | str | Path


def read_photo(
    source: PhotoSource,
    kind: ReadingKind,
    rules: RuleSet,
    profile: TileProfile | None = None,
    *,
    memory: SessionMemory | None = None,
    max_bytes: int | None = None,
) -> PhotoRead:
    """Decode ``source`` (photo bytes, or the path of a photo file) and read every tile on it
    as a table or a rack under ``rules``, adapted by a tile ``profile`` and by the tiles the
    player changed this session (``memory``) when they are given.

    ``max_bytes``: the largest file read (default :data:`vision.images.MAX_PHOTO_BYTES`, the
    app's upload limit). Raises :class:`PhotoError` and nothing else for any photo.
    """
    image = load_photo(source, max_bytes)
    try:
        import vision
        from vision.images import ImageError
        from vision.model_files import ModelFileError

        reading = vision.read(image, kind=kind.value, rules=rules, profile=profile, memory=memory)
    except ImportError as err:
        raise _not_installed(err) from err
    except ModelFileError as err:
        log.warning("photo reading unavailable: %s", err)
        raise PhotoError("photo reading is not available: {reason}", failure=PhotoFailure.UNAVAILABLE, reason=err) from err
    except ImageError as err:
        raise _unreadable(err) from err
    except Exception as err:  # noqa: BLE001 - never a traceback for a photo; the log keeps it
        raise _failed(kind, err) from err
    return PhotoRead(image, reading)


def load_photo(source: PhotoSource, max_bytes: int | None = None) -> np.ndarray:
    """The photo's upright BGR pixels; raises :class:`PhotoError` (see :func:`read_photo`)."""
    try:
        from vision.images import MAX_PHOTO_BYTES, ImageError, load_image
    except ImportError as err:
        raise _not_installed(err) from err
    try:
        return load_image(source, max_bytes=MAX_PHOTO_BYTES if max_bytes is None else max_bytes)
    except ImageError as err:
        raise _unreadable(err) from err
    except Exception as err:  # noqa: BLE001 - a decoder's own bug on odd bytes is still "not an image"
        log.warning("decoding a photo failed: %r", err)
        raise PhotoError(
            "not an image, or an image format that cannot be read", failure=PhotoFailure.UNREADABLE
        ) from err


def annotate(photo: PhotoRead, scale: float = 1.0) -> np.ndarray:
    """The photo (scaled by ``scale`` ≤ 1) with each tile's box and name drawn on it; raises
    :class:`PhotoError`."""
    try:
        import vision

        return vision.annotate(photo.image, photo.reading, scale=scale)
    except Exception as err:  # noqa: BLE001 - as in read_photo
        raise _failed(photo.reading.kind, err) from err


def annotate_preview(preview: np.ndarray, reading: Reading, scale: float) -> np.ndarray:
    """A copy of ``preview`` (the photo already scaled by ``scale``) with ``reading`` drawn on it,
    as :func:`annotate` draws it; raises :class:`PhotoError`."""
    try:
        from vision.pipeline import draw_reading

        return draw_reading(preview.copy(), reading, scale)
    except Exception as err:  # noqa: BLE001 - as in read_photo
        raise _failed(reading.kind, err) from err


def _unreadable(err: TranslatableError) -> PhotoError:
    from vision.images import FileTooLargeError

    failure = PhotoFailure.TOO_LARGE if isinstance(err, FileTooLargeError) else PhotoFailure.UNREADABLE
    return PhotoError(err.message, failure=failure, **err.params)


def _not_installed(err: ImportError) -> PhotoError:
    log.warning("photo reading unavailable: %s", err)
    return PhotoError(
        "photo reading is not installed here (no tile models); type the tiles instead",
        failure=PhotoFailure.UNAVAILABLE,
    )


def _failed(kind: ReadingKind, err: Exception) -> PhotoError:
    log.error("reading a %s photo failed", kind.value, exc_info=err)
    return PhotoError(
        "the photo could not be read; try another photo or type the tiles", failure=PhotoFailure.FAILED
    )


# --- a photo or typed text ------------------------------------------------------------------


class InputSource(enum.Enum):
    """Where the table (or the rack) comes from when both a photo and typing are offered."""

    PHOTO = "photo"
    TEXT = "text"
    NONE = "none"


@dataclass(frozen=True)
class InputChoice:
    """The source to use, and whether typed text was given too and is set aside for the photo
    (the app says so; the CLI refuses the pair)."""

    source: InputSource
    text_ignored: bool = False


def choose_input(has_photo: bool, text: str | None) -> InputChoice:
    """The one precedence rule of both front ends: a photo wins over typed text, and text of
    only blanks is no text."""
    typed = bool(text and text.strip())
    if has_photo:
        return InputChoice(InputSource.PHOTO, text_ignored=typed)
    return InputChoice(InputSource.TEXT if typed else InputSource.NONE)
