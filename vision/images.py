"""Load a user's photo into the one array format the vision code works on: BGR uint8, upright.

API::

    load_image(source, *, max_side=None, max_bytes=MAX_PHOTO_BYTES) -> np.ndarray   # (H, W, 3) BGR uint8
    ImageError(ValueError)                               # every way a source can fail
    FileTooLargeError(ImageError)                        # more bytes than ``max_bytes``

``source`` is a path (``str``/``Path``), raw ``bytes``, or a binary file object (e.g. a
Streamlit upload). The format is decided by the file's first bytes, *before* any decoder runs
(:func:`photo_formats`): what phones and screenshots make, JPEG (MPO too), HEIC/HEIF (iPhones,
via pillow-heif), AVIF, PNG and WebP, and BMP, TIFF and GIF (first frame); everything else
(EPS, PostScript, PDF, ...) is refused, and Pillow is only ever handed those decoders, so no
file can make it start an external program (Pillow's EPS decoder runs Ghostscript). A path
must be a regular file, and no source may be larger than ``max_bytes`` (default
:data:`MAX_PHOTO_MB`, the app's upload limit), so ``/dev/zero`` or a FIFO is never read. The
EXIF orientation tag is applied so the array is the photo as the user saw it. Photos above
:data:`MAX_PIXELS` are refused *before* decoding (a decompression bomb or a panorama would
exhaust memory); ``max_side`` asks for a downscaled copy whose longer side is at most that
many pixels (JPEG decodes straight to a smaller size, which is faster). Nothing is ever
downscaled unless the caller asks.
"""

from __future__ import annotations

import io
import stat
import sys
import warnings
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from solver.i18n import TranslatableError

__all__ = [
    "ACCEPTED_FORMATS", "FileTooLargeError", "ImageError", "MAX_PHOTO_BYTES", "MAX_PHOTO_MB", "MAX_PIXELS",
    "load_image", "photo_formats",
]

#: Largest photo accepted, in pixels (~100 MP; phones shoot 12-50 MP, some 200 MP "hi-res" modes).
MAX_PIXELS = 100_000_000
#: Largest photo file accepted, in MB (MiB, as Streamlit counts): the app's upload limit
#: (``server.maxUploadSize`` in ``.streamlit/config.toml``, which a test keeps equal) and the
#: CLI's default (``--max-photo-mb`` raises it). Phone photos are 2-8 MB.
MAX_PHOTO_MB = 25
MAX_PHOTO_BYTES = MAX_PHOTO_MB * 1024 * 1024
#: The formats accepted, as users name them (shown when a file is refused).
ACCEPTED_FORMATS = "JPEG, PNG, WebP, HEIC/HEIF, AVIF, BMP, TIFF, GIF"

#: ISO base media file brands (bytes 8-12 of an ``ftyp`` box) of HEIC/HEIF and of AVIF.
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs"}
_AVIF_BRANDS = {b"avif", b"avis"}
_GENERIC_BRANDS = {b"mif1", b"msf1"}  # either; the decoders' own checks tell them apart

try:  # HEIC/HEIF support is a declared dependency, but keep PNG/JPEG working without it.
    import pillow_heif

    pillow_heif.register_heif_opener()
except ImportError:  # pragma: no cover - exercised only where pillow-heif is missing
    pillow_heif = None


class ImageError(TranslatableError, ValueError):
    """The source is not a readable photo (empty, truncated, not an image, too large, missing).

    Its message is a template the app and CLI show in the player's language (``error_text``)."""


class FileTooLargeError(ImageError):
    """The source has more bytes than the limit (the CLI then says how to raise it)."""


def photo_formats(head: bytes) -> tuple[str, ...]:
    """The Pillow decoders a file starting with ``head`` may go to; ``()`` when it is no
    accepted photo format. Decided from the bytes alone, whatever the file is called."""
    if head.startswith(b"\xff\xd8\xff"):
        return ("JPEG",)  # Pillow's JPEG decoder also opens the MPO files some phones make
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return ("PNG",)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ("WEBP",)
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in _HEIF_BRANDS:
            return ("HEIF",)
        if brand in _AVIF_BRANDS:
            return ("AVIF",)
        if brand in _GENERIC_BRANDS:
            return ("HEIF", "AVIF")
        return ()
    if head[:2] == b"BM":
        return ("BMP",)
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):  # TIFF, BigTIFF
        return ("TIFF",)
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return ("GIF",)
    return ()


def _size_limit(max_bytes: int) -> FileTooLargeError:
    return FileTooLargeError("the file is larger than {limit} MB", limit=f"{max_bytes / (1024 * 1024):g}")


def _read_limited(handle: BinaryIO, max_bytes: int) -> bytes:
    """At most ``max_bytes`` from ``handle``: one byte more means the file is too large."""
    data = handle.read(max_bytes + 1)
    if not isinstance(data, (bytes, bytearray)):
        raise ImageError("the file object must be opened in binary mode")
    if len(data) > max_bytes:
        raise _size_limit(max_bytes)
    return bytes(data)


def _read_path(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file (never a device, FIFO or directory) of at most ``max_bytes``."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ImageError("not a file but a directory: {path}", path=str(path))
        if not stat.S_ISREG(info.st_mode):
            raise ImageError("not a regular file: {path}", path=str(path))
        if info.st_size > max_bytes:
            raise _size_limit(max_bytes)
        with path.open("rb") as handle:
            return _read_limited(handle, max_bytes)  # it may have grown since stat
    except FileNotFoundError as exc:
        raise ImageError("no such file: {path}", path=str(path)) from exc
    except OSError as exc:
        raise ImageError("cannot read {path}: {detail}", path=str(path), detail=str(exc.strerror or exc)) from exc


def _open_bytes(source: str | Path | bytes | BinaryIO, max_bytes: int) -> bytes:
    if isinstance(source, (str, Path)):
        data = _read_path(Path(source), max_bytes)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        if len(source) > max_bytes:
            raise _size_limit(max_bytes)
        data = bytes(source)
    elif hasattr(source, "read"):
        data = _read_limited(source, max_bytes)
    else:
        raise ImageError("cannot load an image from a {kind}", kind=type(source).__name__)
    if not data:
        raise ImageError("the file is empty (0 bytes)")
    return data


def _not_readable() -> ImageError:
    return ImageError(
        "not an image, or an image format that cannot be read (accepted: {formats})", formats=ACCEPTED_FORMATS
    )


def _decoders(data: bytes) -> list[str]:
    """The decoders ``data`` may go to that this Pillow has (HEIF needs pillow-heif)."""
    Image.init()
    formats = [name for name in photo_formats(data[:32]) if name in Image.OPEN]
    if not formats:
        raise _not_readable()
    return formats


def _pil_open(data: bytes, formats: list[str]) -> Image.Image:
    """Open ``data`` with only the given decoders, with Pillow's own ``Image.open``:
    ultralytics replaces it with one that, on a file that is not an image, tries to install
    a HEIC plugin instead of saying so."""
    patches = sys.modules.get("ultralytics.utils.patches")
    opener = getattr(patches, "_image_open", None) or Image.open
    return opener(io.BytesIO(data), formats=formats)


def _to_rgb(image: Image.Image) -> Image.Image:
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        array = np.asarray(image, dtype=np.float64)
        top = max(float(array.max()), 1.0)
        image = Image.fromarray((array * (255.0 / top)).astype(np.uint8))
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    return image if image.mode == "RGB" else image.convert("RGB")  # convert copies even to its own mode


def load_image(
    source: str | Path | bytes | BinaryIO, *, max_side: int | None = None, max_bytes: int = MAX_PHOTO_BYTES
) -> np.ndarray:
    """Decode ``source`` into an upright BGR uint8 array; raise :class:`ImageError` if it can't be."""
    if max_side is not None and max_side < 16:
        raise ValueError(f"max_side must be at least 16 pixels, got {max_side}")
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be at least 1, got {max_bytes}")
    data = _open_bytes(source, max_bytes)
    formats = _decoders(data)
    with warnings.catch_warnings():
        # We enforce our own limit below; Pillow's bomb warning would only add noise.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = _pil_open(data, formats)
        except UnidentifiedImageError as exc:
            raise _not_readable() from exc
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
            ImageOps.exif_transpose(image, in_place=True)  # a copy of 12 MP otherwise, even when upright
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
