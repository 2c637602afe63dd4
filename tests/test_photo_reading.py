"""The one entry for a photo (``app.photo_reading``): each way a photo fails is one PhotoError,
and both front ends (the CLI and the Play page) word every one of them, never a traceback."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

import vision
from app.photo_reading import (
    InputChoice,
    InputSource,
    PhotoError,
    PhotoFailure,
    choose_input,
    read_photo,
)
from solver.i18n import error_text
from solver.rules import STANDARD
from solver.tiles import parse_tile
from tests.app_helpers import start_app, texts
from vision.reading import Reading, ReadingKind, ReadTile

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py


def _png() -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(out, format="PNG")
    return out.getvalue()


def _one_tile(image, kind="table", rules=None, profile=None, memory=None) -> Reading:
    return Reading((ReadTile(parse_tile("r7"), (1.0, 1.0, 9.0, 9.0), 0.99),), ((0,),), kind=ReadingKind(kind))


def _raising(error: BaseException):
    def read(image, kind="table", rules=None, profile=None, memory=None):
        raise error

    return read


def _missing_models(monkeypatch, tmp_path) -> None:
    from vision import model_files

    monkeypatch.setenv(model_files.MODELS_DIR_ENV, str(tmp_path / "no-models"))


#: Each way a photo fails: (name, how to make it fail, its failure, the reason's English text).
#: A setup takes (monkeypatch, tmp_path) and returns the photo's bytes.
def _not_an_image(monkeypatch, tmp_path) -> bytes:
    return b"these bytes are not a photo"


def _too_large(monkeypatch, tmp_path) -> bytes:
    import vision.images

    monkeypatch.setattr(vision.images, "MAX_PHOTO_BYTES", 100)
    return _png()


def _models_missing(monkeypatch, tmp_path) -> bytes:
    _missing_models(monkeypatch, tmp_path)
    return _png()


def _not_installed(monkeypatch, tmp_path) -> bytes:
    monkeypatch.setattr(vision, "read", _raising(ImportError("No module named 'onnxruntime'")))
    return _png()


def _reader_crash(monkeypatch, tmp_path) -> bytes:
    monkeypatch.setattr(vision, "read", _raising(RuntimeError("out of memory")))
    return _png()


def _decoder_crash(monkeypatch, tmp_path) -> bytes:
    import vision.images

    monkeypatch.setattr(vision.images, "_pil_open", _raising(KeyError("a decoder's own bug")))
    return _png()


FAILURES = [
    ("not-an-image", _not_an_image, PhotoFailure.UNREADABLE, "not an image, or an image format that cannot be read"),
    ("decoder-crash", _decoder_crash, PhotoFailure.UNREADABLE, "not an image, or an image format that cannot be read"),
    ("too-large", _too_large, PhotoFailure.TOO_LARGE, "larger than"),
    ("models-missing", _models_missing, PhotoFailure.UNAVAILABLE, "photo reading is not available: the tile model file"),
    ("not-installed", _not_installed, PhotoFailure.UNAVAILABLE,
     "photo reading is not installed here (no tile models); type the tiles instead"),
    ("reader-crash", _reader_crash, PhotoFailure.FAILED, "the photo could not be read; try another photo or type the tiles"),
]
IDS = [f[0] for f in FAILURES]


# --- the entry itself --------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "setup", "failure", "reason"), FAILURES, ids=IDS)
def test_each_failure_is_one_photo_error(monkeypatch, tmp_path, name, setup, failure, reason):
    data = setup(monkeypatch, tmp_path)
    with pytest.raises(PhotoError) as err:
        read_photo(data, ReadingKind.TABLE, STANDARD)
    assert err.value.failure is failure
    assert reason in str(err.value)
    assert error_text(err.value, "uk") != str(err.value)  # the reason is translated


def test_a_photo_is_read_from_bytes_or_a_path_with_kind_rules_and_profile(monkeypatch, tmp_path):
    seen = []

    def read(image, kind="table", rules=None, profile=None, memory=None):
        seen.append((image.shape, kind, rules, profile))
        return _one_tile(image, kind)

    monkeypatch.setattr(vision, "read", read)
    path = tmp_path / "rack.png"
    path.write_bytes(_png())
    rules = STANDARD.with_(jokers=4)
    profile = object()
    for source in (_png(), str(path), path):
        photo = read_photo(source, ReadingKind.RACK, rules, profile)  # type: ignore[arg-type]
        assert photo.reading.rack() == (parse_tile("r7"),) and photo.image.shape == (48, 64, 3)
    assert seen == [((48, 64, 3), "rack", rules, profile)] * 3


def test_the_size_limit_is_the_callers():
    with pytest.raises(PhotoError) as err:
        read_photo(_png(), ReadingKind.TABLE, STANDARD, max_bytes=10)
    assert err.value.failure is PhotoFailure.TOO_LARGE


@pytest.mark.parametrize(
    ("has_photo", "text", "choice"),
    [
        (True, "r1 r2 r3", InputChoice(InputSource.PHOTO, text_ignored=True)),
        (True, "  \n", InputChoice(InputSource.PHOTO)),
        (True, None, InputChoice(InputSource.PHOTO)),
        (False, "r1 r2 r3", InputChoice(InputSource.TEXT)),
        (False, " ", InputChoice(InputSource.NONE)),
        (False, None, InputChoice(InputSource.NONE)),
    ],
)
def test_a_photo_wins_over_typing_and_blank_text_is_none(has_photo, text, choice):
    assert choose_input(has_photo, text) == choice


# --- through the CLI ------------------------------------------------------------------------------


def _cli(capfd, *argv: str) -> tuple[int, str, str]:
    from app.cli import main

    code = main(list(argv))
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize(("name", "setup", "failure", "reason"), FAILURES, ids=IDS)
def test_the_cli_words_each_failure_on_stderr_with_status_2(capfd, monkeypatch, tmp_path, name, setup, failure, reason):
    path = tmp_path / "photo.png"
    path.write_bytes(setup(monkeypatch, tmp_path))
    # The CLI's own limit is --max-photo-mb (vision.images.MAX_PHOTO_MB), not the library's default.
    size = ["--max-photo-mb", "0.00001"] if failure is PhotoFailure.TOO_LARGE else []
    for argv in (["read", str(path), *size], ["solve", "--table-photo", str(path), "--rack", "r7", *size]):
        code, out, err = _cli(capfd, *argv)
        assert code == 2 and out == ""
        assert err.startswith("rummikub: error: ") and err.count("\n") == 1
        assert reason in err
        if failure is PhotoFailure.UNAVAILABLE:  # about this computer, not about the file
            assert str(path) not in err
        else:
            assert err.startswith(f"rummikub: error: cannot read the photo {path}: ")
        if failure is PhotoFailure.TOO_LARGE:
            assert err.endswith("(--max-photo-mb raises the limit)\n")


def test_the_cli_refuses_text_and_photo_for_the_same_thing(capfd, monkeypatch, tmp_path):
    monkeypatch.setattr(vision, "read", _one_tile)
    path = tmp_path / "photo.png"
    path.write_bytes(_png())
    code, _, err = _cli(capfd, "solve", "--table-photo", str(path), "--table", "r1 r2 r3", "--rack", "r7")
    assert code == 2 and "give the table as --table or --table-photo, not both" in err
    code, _, err = _cli(capfd, "solve", "--rack-photo", str(path), "--rack", "r7")
    assert code == 2 and "give your rack as --rack or --rack-photo, not both" in err
    code, out, err = _cli(capfd, "solve", "--table", "r4 r5 r6", "--rack-photo", str(path), "--rack", " ", "--json")
    assert code == 0, err  # blank text is no text
    assert json.loads(out)["played"] == ["red-7"]


# --- through the Play page ------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "setup", "failure", "reason"), FAILURES, ids=IDS)
def test_the_play_page_words_each_failure_and_keeps_the_typed_rack(monkeypatch, tmp_path, name, setup, failure, reason):
    import app.photos

    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    data = setup(monkeypatch, tmp_path)
    at = start_app()
    at.text_area(key="play_rack_text").input("r7 k1")
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", data, "image/png")).run()
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    (error,) = texts(at.error)
    assert error.startswith("The table photo cannot be read: ") and reason in error
    assert at.text_area(key="play_rack_text").value == "r7 k1"  # nothing typed is lost
