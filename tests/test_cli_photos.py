"""The command line on photos: readings with problems, what files are read at all, clean stdout."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import vision
from solver.tiles import parse_tile
from tests.synthetic_photos import rows_photo
from tests.test_pipeline import _write, needs_models
from vision.images import MAX_PHOTO_MB
from vision.reading import ProblemKind, Reading, ReadingKind, ReadingProblem, ReadTile


def _cli(capfd, *argv: str) -> tuple[int, str, str]:
    from app.cli import main

    code = main(list(argv))
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _small_photo(tmp_path: Path, name: str = "photo.png") -> str:
    return _write(tmp_path, name, np.full((64, 96, 3), 120, np.uint8))


# --- a reading with problems, end to end ---------------------------------------------------------


@needs_models
def test_solve_from_a_photo_whose_reading_has_problems(capfd, tmp_path):
    """A table photo with an invalid meld (and, as read by the shipped models, doubtful tiles):
    every problem of the reading is reported, then the invalid table is refused, never a traceback."""
    photo = _write(tmp_path, "table.png", rows_photo([["r4", "r5", "k9"], ["k5", "b5", "o5"]]))
    code, out, err = _cli(capfd, "read", photo, "--json")
    assert code == 0, err
    problems = json.loads(out)["problems"]
    assert "invalid-meld" in {p["kind"] for p in problems}
    for argv in (["--json"], []):
        code, out, err = _cli(capfd, "solve", "--table-photo", photo, "--rack", "r1 r2 r3", *argv)
        assert code == 2 and out == ""
        for problem in problems:
            assert f"table photo: {problem['message']}\n" in err
        assert "table photo: Meld 1 is not valid as read:" in err
        assert "the table has invalid melds" in err


def _doubtful_reading() -> Reading:
    """A valid table whose middle tile the camera was unsure of, and a second meld read invalid."""
    red = [parse_tile(f"red-{n}") for n in (4, 5, 6)]
    tiles = tuple(ReadTile(t, (10.0 + 50 * i, 10.0, 50.0 + 50 * i, 70.0), 0.98) for i, t in enumerate(red))
    doubtful = ReadTile(red[1], tiles[1].box, 0.51, ((parse_tile("red-3"), 0.4),), uncertain=True)
    tiles = (tiles[0], doubtful, tiles[2])
    problems = (ReadingProblem(ProblemKind.UNCERTAIN_TILE, (1,), (red[1],), alternatives=(parse_tile("red-3"),)),)
    return Reading(tiles, ((0, 1, 2),), problems, ReadingKind.TABLE, (200, 80))


def test_solve_reports_doubtful_tiles_and_still_answers(capfd, tmp_path, monkeypatch):
    """The CLI's rendering of reading problems (the crash of issue 12, item 1), on a real photo
    file and a reading of real types."""
    monkeypatch.setattr(vision, "read", lambda image, kind, rules, profile=None, memory=None: _doubtful_reading())
    photo = _small_photo(tmp_path)
    code, out, err = _cli(capfd, "solve", "--table-photo", photo, "--rack", "r7 k1", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["played"] == ["red-7"]
    assert data["readings"]["table"]["problems"][0]["kind"] == "uncertain-tile"
    assert data["relies_on_unsure"] == ["red-5"]  # r7 joins the run that holds the doubtful red 5
    assert err == "table photo: Please check this tile: read as red 5, or maybe red 3.\n"
    code, out, err = _cli(capfd, "solve", "--table-photo", photo, "--rack", "r7 k1")
    assert code == 0
    assert out.rstrip().endswith("This move relies on tiles marked unsure: red 5. Check them on the table before you play.")
    code, out, err = _cli(capfd, "solve", "--table-photo", photo, "--rack", "r7 k1", "--lang", "uk")
    assert code == 0 and err.startswith("Фото (стіл): ") and "червона 5" in err
    assert "спирається на фішки, позначені як сумнівні: червона 5" in out
    # a move that leaves the doubtful meld alone relies on nothing unsure
    code, out, err = _cli(capfd, "solve", "--table-photo", photo, "--rack", "k1 k2 k3", "--json")
    assert code == 0 and json.loads(out)["relies_on_unsure"] == []


def test_a_photo_of_small_tiles_is_read_with_a_note_on_taking_a_better_one(capfd, tmp_path, monkeypatch):
    """Tiles under 40 px are misread far more often: read and solve say so, with how long they are."""
    from vision.reading import small_tiles_note

    red = [parse_tile(f"red-{n}") for n in (4, 5, 6)]
    small = Reading(tuple(ReadTile(t, (10.0 + 25 * i, 10.0, 30.0 + 25 * i, 38.0), 0.98) for i, t in enumerate(red)), ((0, 1, 2),))
    monkeypatch.setattr(vision, "read", lambda image, kind, rules, profile=None, memory=None: small)
    photo = _small_photo(tmp_path)
    note = small_tiles_note(28.0, "en")
    assert note is not None and "about 28 pixels" in note
    code, out, err = _cli(capfd, "read", photo)
    assert code == 0 and f"  - {note}" in out.splitlines()
    code, out, err = _cli(capfd, "solve", "--table-photo", photo, "--rack", "r7")
    assert code == 0 and err == f"table photo: {note}\n"
    code, out, err = _cli(capfd, "read", photo, "--json")
    assert code == 0 and json.loads(out)["problems"] == []  # a note, not a problem of the reading
    large = _doubtful_reading()  # tiles 60 px long: no note
    assert small_tiles_note(large.tile_px) is None and large.messages() == tuple(p.message() for p in large.problems)


# --- stdout carries the output alone -------------------------------------------------------------


def test_what_a_library_prints_while_reading_goes_to_stderr(capfd, tmp_path, monkeypatch):
    def chatty_read(image, kind, rules, profile=None, memory=None):
        print("Creating new Ultralytics Settings v0.0.6 file ✅")  # through sys.stdout
        os.write(1, b"WARNING: settings folder not writeable\n")  # straight to descriptor 1
        return _doubtful_reading()

    monkeypatch.setattr(vision, "read", chatty_read)
    photo = _small_photo(tmp_path)
    for argv in (["read", photo, "--json"], ["solve", "--table-photo", photo, "--rack", "r7", "--json"]):
        code, out, err = _cli(capfd, *argv)
        assert code == 0, err
        json.loads(out)  # nothing but the JSON
        assert "Ultralytics Settings" in err and "not writeable" in err
    code, out, _ = _cli(capfd, "read", photo)
    assert code == 0 and out.startswith("3 tile(s) in 1 meld(s):")


# --- which files are read at all -----------------------------------------------------------------


@pytest.mark.parametrize("command", ["read", "solve"])
def test_a_device_is_refused_not_read_until_memory_runs_out(capfd, command):
    argv = ["read", "/dev/zero"] if command == "read" else ["solve", "--table-photo", "/dev/zero", "--rack", "r7"]
    code, out, err = _cli(capfd, *argv)
    assert code == 2 and out == ""
    assert err == "rummikub: error: cannot read the photo /dev/zero: not a regular file: /dev/zero\n"


def test_the_size_limit_is_the_apps_and_a_flag_raises_it(capfd, tmp_path, monkeypatch):
    monkeypatch.setattr(vision, "read", lambda image, kind, rules, profile=None, memory=None: _doubtful_reading())
    big = tmp_path / "big.png"
    with big.open("wb") as handle:  # a real PNG followed by padding up to just over 25 MB
        handle.write(Path(_small_photo(tmp_path)).read_bytes())
        handle.truncate(MAX_PHOTO_MB * 1024 * 1024 + 1)
    code, out, err = _cli(capfd, "read", str(big), "--json")
    assert code == 2 and out == ""
    assert f"larger than {MAX_PHOTO_MB} MB (--max-photo-mb raises the limit)" in err
    code, out, err = _cli(capfd, "read", str(big), "--json", "--max-photo-mb", "26")
    assert code == 0, err
    assert json.loads(out)["tiles"]
    small = _small_photo(tmp_path)
    assert Path(small).stat().st_size > 0.0001 * 1024 * 1024
    code, out, err = _cli(capfd, "solve", "--table-photo", small, "--rack", "r7", "--max-photo-mb", "0.0001")
    assert code == 2 and out == "" and "larger than" in err


@pytest.mark.parametrize("value", ["0", "-3", "many", "nan", "inf"])
def test_the_size_flag_takes_a_positive_number(capfd, tmp_path, value):
    code, out, err = _cli(capfd, "read", _small_photo(tmp_path), "--max-photo-mb", value)
    assert code == 2 and out == "" and "--max-photo-mb" in err


def test_the_help_gives_the_default_limit(capfd):
    code, out, _ = _cli(capfd, "read", "--help")
    assert code == 0 and f"{MAX_PHOTO_MB} MB" in out


def test_an_eps_file_named_jpg_is_refused_and_starts_no_program(capfd, tmp_path, monkeypatch):
    import subprocess

    started = []

    def refuse(*args, **kwargs):
        started.append(args)
        raise OSError("no program may be started")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    path = tmp_path / "table.jpg"
    path.write_bytes(b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n%%EOF\n")
    code, out, err = _cli(capfd, "solve", "--table-photo", str(path), "--rack", "r7")
    assert code == 2 and out == "" and started == []
    assert "not an image, or an image format that cannot be read (accepted: JPEG, PNG, WebP, HEIC/HEIF" in err
