"""Load a user's photo into the one array format the vision code works on: BGR uint8, upright.

API::

    load_image(source, *, max_side=None) -> np.ndarray   # (H, W, 3) BGR uint8
    ImageError(ValueError)                               # every way a source can fail

``source`` is a path (``str``/``Path``), raw ``bytes``, or a binary file object (e.g. a
Streamlit upload). JPEG, PNG, WebP, BMP, TIFF, GIF (first frame) and HEIC/HEIF from iPhones
(via pillow-heif) are read; the EXIF orientation tag is applied so the array is the photo as
the user saw it. Photos above :data:`MAX_PIXELS` are refused *before* decoding (a
decompression bomb or a panorama would exhaust memory); ``max_side`` asks for a downscaled
copy whose longer side is at most that many pixels (JPEG decodes straight to a smaller size,
which is faster). Nothing is ever downscaled unless the caller asks.
"""

from __future__ import annotations

import io
import sys
import warnings
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from solver.i18n import TranslatableError

__all__ = ["ImageError", "load_image", "MAX_PIXELS"]

#: Largest photo accepted, in pixels (~100 MP; phones shoot 12-50 MP, some 200 MP "hi-res" modes).
MAX_PIXELS = 100_000_000

try:  # HEIC/HEIF support is a declared dependency, but keep PNG/JPEG working without it.
    import pillow_heif

    pillow_heif.register_heif_opener()
except ImportError:  # pragma: no cover - exercised only where pillow-heif is missing
    pillow_heif = None


class ImageError(TranslatableError, ValueError):
    """The source is not a readable photo (empty, truncated, not an image, too large, missing).

    Its message is a template the app and CLI show in the player's language (``error_text``)."""


def _open_bytes(source: str | Path | bytes | BinaryIO) -> bytes:
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            data = path.read_bytes()
        except FileNotFoundError as exc:
            raise ImageError("no such file: {path}", path=str(path)) from exc
        except IsADirectoryError as exc:
            raise ImageError("not a file but a directory: {path}", path=str(path)) from exc
        except OSError as exc:
            raise ImageError("cannot read {path}: {detail}", path=str(path), detail=str(exc.strerror or exc)) from exc
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise ImageError("the file object must be opened in binary mode")
        data = bytes(data)
    else:
        raise ImageError("cannot load an image from a {kind}", kind=type(source).__name__)
    if not data:
        raise ImageError("the file is empty (0 bytes)")
    return data


def _pil_open(data: bytes) -> Image.Image:
    """Pillow's own ``Image.open``: ultralytics replaces it with one that, on a file that is
    not an image, tries to install a HEIC plugin instead of saying so."""
    patches = sys.modules.get("ultralytics.utils.patches")
    opener = getattr(patches, "_image_open", None) or Image.open
    return opener(io.BytesIO(data))


def _to_rgb(image: Image.Image) -> Image.Image:
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        array = np.asarray(image, dtype=np.float64)
        top = max(float(array.max()), 1.0)
        image = Image.fromarray((array * (255.0 / top)).astype(np.uint8))
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    return image.convert("RGB")


def load_image(source: str | Path | bytes | BinaryIO, *, max_side: int | None = None) -> np.ndarray:
    """Decode ``source`` into an upright BGR uint8 array; raise :class:`ImageError` if it can't be."""
    if max_side is not None and max_side < 16:
        raise ValueError(f"max_side must be at least 16 pixels, got {max_side}")
    data = _open_bytes(source)
    with warnings.catch_warnings():
        # We enforce our own limit below; Pillow's bomb warning would only add noise.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = _pil_open(data)
        except UnidentifiedImageError as exc:
            raise ImageError("not an image, or an image format that cannot be read") from exc
        except Image.DecompressionBombError as exc:
            raise ImageError(
                "the image is too large (more than {limit} megapixels)", limit=MAX_PIXELS // 1_000_000
            ) from exc
        except (OSError, SyntaxError, ValueError) as exc:
            raise ImageError("the image file is damaged: {detail}", detail=str(exc)) from exc
        width, height = image.size
        if width <= 0 or height <= 0:
            raise ImageError("the image has no pixels")
        if width * height > MAX_PIXELS:
            raise ImageError(
                "the image is too large: {width}x{height} = {megapixels} megapixels (at most {limit})",
                width=width,
                height=height,
                megapixels=round(width * height / 1e6),
                limit=MAX_PIXELS // 1_000_000,
            )
        try:
            if max_side is not None and image.format == "JPEG":
                image.draft("RGB", (max_side, max_side))  # decode at 1/2, 1/4 or 1/8 size when possible
            image.load()
            image = ImageOps.exif_transpose(image) or image
            rgb = _to_rgb(image)
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise ImageError("the image file is truncated or damaged: {detail}", detail=str(exc)) from exc
    array = np.asarray(rgb, dtype=np.uint8)
    bgr = cv2.cvtColor(array, cv2.COLOR_RGB2BGR)
    if max_side is not None and max(bgr.shape[:2]) > max_side:
        scale = max_side / max(bgr.shape[:2])
        size = (max(1, round(bgr.shape[1] * scale)), max(1, round(bgr.shape[0] * scale)))
        bgr = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(bgr)
