"""Photo loading: formats, EXIF rotation, HEIC, and every way a file can be bad."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.images import (
    MAX_PHOTO_BYTES,
    MAX_PHOTO_MB,
    MAX_PIXELS,
    FileTooLargeError,
    ImageError,
    load_image,
    photo_formats,
)


def _photo(width: int = 64, height: int = 48) -> Image.Image:
    """A photo whose top-left quadrant is red, so orientation changes are visible."""
    array = np.zeros((height, width, 3), np.uint8)
    array[:] = (0, 0, 255)
    array[: height // 2, : width // 2] = (255, 0, 0)
    return Image.fromarray(array)


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares ``width``x``height`` but carries no pixel data (cheap bomb)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_png_path_gives_bgr_uint8(tmp_path):
    path = tmp_path / "photo.png"
    _photo().save(path)
    image = load_image(path)
    assert image.shape == (48, 64, 3) and image.dtype == np.uint8
    assert tuple(image[0, 0]) == (0, 0, 255)  # red in BGR
    assert tuple(image[-1, -1]) == (255, 0, 0)  # blue in BGR


def test_bytes_and_file_object_and_str_path_agree(tmp_path):
    path = tmp_path / "photo.png"
    _photo().save(path)
    from_path = load_image(str(path))
    assert np.array_equal(load_image(path.read_bytes()), from_path)
    with path.open("rb") as handle:
        assert np.array_equal(load_image(handle), from_path)


def test_exif_orientation_is_applied(tmp_path):
    path = tmp_path / "rotated.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display"
    _photo(64, 48).save(path, quality=95, exif=exif)
    image = load_image(path)
    assert image.shape[:2] == (64, 48)  # portrait after rotation
    # The red top-left quadrant ends up top-right after a clockwise turn.
    assert image[5, -5, 2] > 200 and image[5, -5, 0] < 60
    assert image[5, 5, 0] > 200


def test_heic_is_read(tmp_path):
    pillow_heif = pytest.importorskip("pillow_heif")
    if not pillow_heif.libheif_info().get("encoders"):
        pytest.skip("this libheif has no HEIC encoder to make a test file")
    path = tmp_path / "iphone.heic"
    _photo(64, 48).save(path, quality=95)
    image = load_image(path)
    assert image.shape == (48, 64, 3)
    assert image[40, 60, 0] > 180  # blue area stays blue


def test_rgba_png_is_flattened_on_white(tmp_path):
    path = tmp_path / "alpha.png"
    Image.new("RGBA", (10, 10), (0, 0, 0, 0)).save(path)
    assert np.all(load_image(path) == 255)


def test_max_side_downscales_only_when_asked(tmp_path):
    path = tmp_path / "big.jpg"
    _photo(800, 600).save(path, quality=90)
    assert load_image(path).shape == (600, 800, 3)
    small = load_image(path, max_side=200)
    assert max(small.shape[:2]) == 200 and small.shape[:2] == (150, 200)
    with pytest.raises(ValueError):
        load_image(path, max_side=0)


def test_empty_file_is_refused(tmp_path):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(ImageError, match="empty"):
        load_image(path)


def test_not_an_image_is_refused(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_text("these are my notes, not a photo")
    with pytest.raises(ImageError, match="not an image"):
        load_image(path)


def test_truncated_jpeg_is_refused(tmp_path):
    buffer = io.BytesIO()
    _photo(400, 300).save(buffer, format="JPEG", quality=90)
    path = tmp_path / "cut.jpg"
    path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    with pytest.raises(ImageError, match="truncated|damaged"):
        load_image(path)


def test_truncated_jpeg_is_refused_even_after_ultralytics_import(tmp_path):
    """Some libraries flip Pillow's global LOAD_TRUNCATED_IMAGES; we must still refuse."""
    pytest.importorskip("ultralytics")
    import training.yolo_env  # noqa: F401  (sets the offline environment first)
    import ultralytics  # noqa: F401

    buffer = io.BytesIO()
    _photo(400, 300).save(buffer, format="JPEG", quality=90)
    with pytest.raises(ImageError):
        load_image(buffer.getvalue()[: len(buffer.getvalue()) // 2])


def test_huge_image_is_refused_before_decoding():
    side = int((MAX_PIXELS * 1.2) ** 0.5)
    with pytest.raises(ImageError, match="too large"):
        load_image(_png_header_only(side, side))


def test_50_megapixel_photo_without_pixel_data_is_a_clear_error_not_a_crash():
    """Under the size limit, so decoding starts; the missing data must surface as ImageError."""
    with pytest.raises(ImageError, match="truncated|damaged"):
        load_image(_png_header_only(8660, 5774))  # 50 MP


def test_missing_file_and_directory_and_wrong_type_are_refused(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageError, match="directory"):
        load_image(tmp_path)
    with pytest.raises(ImageError):
        load_image(12345)  # type: ignore[arg-type]
    with pytest.raises(ImageError, match="binary"):
        load_image(io.StringIO("text"))  # type: ignore[arg-type]


def test_image_errors_reach_the_player_in_their_language(tmp_path):
    from solver.i18n import error_text

    with pytest.raises(ImageError) as empty:
        load_image(b"")
    with pytest.raises(ImageError) as missing:
        load_image(tmp_path / "absent.jpg")
    assert str(empty.value) == "the file is empty (0 bytes)"
    assert "absent.jpg" in str(missing.value) and str(missing.value).startswith("no such file")
    ukrainian = error_text(missing.value, "uk")
    assert ukrainian.startswith("немає такого файлу") and "absent.jpg" in ukrainian
    assert error_text(empty.value, "ro") != str(empty.value)


def test_app_photo_errors_keep_the_reason_translatable():
    from app.photo_reading import PhotoError, PhotoFailure, read_photo
    from solver.i18n import error_text
    from solver.rules import STANDARD
    from vision.reading import ReadingKind

    with pytest.raises(PhotoError) as err:
        read_photo(b"", ReadingKind.TABLE, STANDARD)
    assert err.value.failure is PhotoFailure.UNREADABLE
    assert str(err.value) == "the file is empty (0 bytes)"
    assert error_text(err.value, "ru") not in ("", str(err.value))


# --- formats decided by the bytes, never an external program ---------------------------------

#: A minimal Encapsulated PostScript file: Pillow's EPS decoder hands such a file to Ghostscript.
EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nnewpath 0 0 moveto 10 10 lineto stroke\nshowpage\n%%EOF\n"


@pytest.fixture
def no_subprocess(monkeypatch):
    """Record (and refuse) any attempt to start a program, e.g. Pillow looking for Ghostscript."""
    import subprocess

    from PIL import EpsImagePlugin

    started: list[object] = []

    def refuse(*args, **kwargs):
        started.append(args[0] if args else kwargs.get("args"))
        raise OSError("no program may be started while loading a photo")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(EpsImagePlugin, "gs_binary", None)  # so Pillow would look for gs again
    return started


@pytest.mark.parametrize(
    "data",
    [
        EPS,
        b"\xc5\xd0\xd3\xc6" + b"\x00" * 28 + EPS,  # DOS EPS binary header
        b"%!PS-Adobe-3.0\n%%Pages: 1\nshowpage\n",  # PostScript
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
        b"\x00\x00\x00\x0cjP  \r\n\x87\n" + b"\x00" * 40,  # JPEG 2000: not a photo format we take
    ],
    ids=["eps", "dos-eps", "postscript", "pdf", "jpeg2000"],
)
def test_other_formats_named_jpg_are_refused_without_starting_a_program(tmp_path, no_subprocess, data):
    path = tmp_path / "photo.jpg"
    path.write_bytes(data)
    with pytest.raises(ImageError, match="not an image") as err:
        load_image(path)
    assert "JPEG, PNG" in str(err.value)  # the message says what is accepted
    with pytest.raises(ImageError, match="not an image"):
        load_image(data)
    assert no_subprocess == []


def _encoded(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "BMP", "TIFF", "GIF"])
def test_each_accepted_format_is_read_by_its_bytes(fmt, no_subprocess):
    data = _encoded(_photo(), fmt)
    assert photo_formats(data[:32]) == (fmt,)
    image = load_image(data)
    assert image.shape == (48, 64, 3)
    assert image[40, 60, 0] > 180 and image[5, 5, 2] > 180  # blue bottom right, red top left
    assert no_subprocess == []


def test_avif_is_read_when_this_pillow_can_write_one():
    from PIL import features

    try:
        data = _encoded(_photo(), "AVIF")
    except (KeyError, OSError, ValueError):
        pytest.skip(f"this Pillow cannot encode AVIF (avif feature: {features.check('avif')})")
    assert photo_formats(data[:32]) in (("AVIF",), ("HEIF", "AVIF"))
    assert load_image(data).shape == (48, 64, 3)


@pytest.mark.parametrize(
    "head, formats",
    [
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", ("HEIF",)),
        (b"\x00\x00\x00\x18ftypavif\x00\x00\x00\x00mif1avif", ("AVIF",)),
        (b"\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1heic", ("HEIF", "AVIF")),
        (b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2", ()),  # an MP4 video
        (b"MM\x00*\x00\x00\x00\x08", ("TIFF",)),
        (b"RIFF\x00\x00\x00\x00WAVEfmt ", ()),  # a sound file
        (b"", ()),
    ],
)
def test_photo_formats_by_signature(head, formats):
    assert photo_formats(head) == formats


# --- what is read at all: regular files, at most MAX_PHOTO_MB ------------------------------------


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_device_is_refused_without_reading_it():
    with pytest.raises(ImageError, match="not a regular file"):
        load_image("/dev/zero")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    import os

    fifo = tmp_path / "photo.jpg"
    os.mkfifo(fifo)
    with pytest.raises(ImageError, match="not a regular file"):
        load_image(fifo)  # opening it would block for ever


def test_files_over_the_limit_are_refused_in_every_form(tmp_path):
    data = _encoded(_photo(), "PNG")
    path = tmp_path / "photo.png"
    path.write_bytes(data)
    limit = len(data) - 1
    for source in (path, str(path), data):
        with pytest.raises(FileTooLargeError, match="larger than"):
            load_image(source, max_bytes=limit)
    with path.open("rb") as handle, pytest.raises(FileTooLargeError):
        load_image(handle, max_bytes=limit)
    assert load_image(path, max_bytes=len(data)).shape == (48, 64, 3)  # exactly the limit is fine


def test_the_default_limit_is_the_apps_upload_limit(tmp_path):
    import tomllib

    config = tomllib.loads((Path(__file__).parents[1] / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == MAX_PHOTO_MB == 25
    assert MAX_PHOTO_BYTES == 25 * 1024 * 1024
    big = tmp_path / "big.jpg"
    with big.open("wb") as handle:  # sparse: 25 MB + 1 byte without writing them
        handle.truncate(MAX_PHOTO_BYTES + 1)
    with pytest.raises(FileTooLargeError, match="larger than 25 MB"):
        load_image(big)
