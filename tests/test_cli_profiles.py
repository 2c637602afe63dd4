"""``rummikub calibrate``, ``rummikub tiles list|delete`` and ``--tiles NAME`` on read and solve."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from app.cli import main
from app.profile_store import SUFFIX, ProfileStore
from datasets.synth.editions import edition
from solver.tiles import parse_tile
from tests.fonts import needs_fonts
from tests.synthetic_photos import rows_photo, vision_missing

needs_models = pytest.mark.skipif(vision_missing() is not None, reason=str(vision_missing()))
LAYOUT = "r1 r2 r3 r4 | b5 b6 b7 | j k13"


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("RUMMIKUB_DATA_DIR", str(folder))
    return folder


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _write(folder, name: str, image: np.ndarray) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    assert cv2.imwrite(str(path), image)
    return str(path)


def _layout_photo(tmp_path, rows: str = LAYOUT, name: str = "layout.png", seed: int = 5) -> str:
    return _write(tmp_path / "photos", name, rows_photo([row.split() for row in rows.split("|")], seed=seed))


def _nothing_saved(data_dir) -> bool:
    return ProfileStore(data_dir / "profiles").listing().profiles == ()


@needs_models
def test_calibrate_saves_a_profile_that_list_read_solve_and_delete_use(capsys, tmp_path, data_dir):
    photo = _layout_photo(tmp_path)
    code, out, err = _cli(capsys, "calibrate", photo, "--name", "Kitchen set", "--layout", LAYOUT, "--json")
    assert code == 0, err
    assert json.loads(out) == {
        "name": "Kitchen set", "tiles": 9, "kinds": 9, "added": 9, "photos": 1, "layout": LAYOUT, "put_back": 0, "left_out": 0,
        "notes": [],
    }
    stored = ProfileStore(data_dir / "profiles").load("kitchen set")
    assert [s.tile.short for s in stored.samples] == LAYOUT.replace("|", "").split()
    assert stored.samples[0].crops.shape == (4, 64, 64, 3)

    code, out, _ = _cli(capsys, "tiles", "list")
    assert code == 0 and out.startswith("Kitchen set: 9 tile(s) of 9 kind(s), 0 from corrections; changed ")
    # two colours of the four, four tiles and three: too few to learn the set's inks, and said so
    assert out.rstrip().endswith("; too few tiles of some colour to learn the set's inks (3 of each are needed)")
    code, out, _ = _cli(capsys, "tiles", "list", "--json")
    assert json.loads(out)["profiles"][0]["inks"] is False
    code, out, _ = _cli(capsys, "calibrate", photo, "--name", "kitchen SET", "--layout", LAYOUT)
    assert code == 0 and out.strip() == (
        "Tile profile 'Kitchen set': 9 tile(s) from 1 photo(s) added; it now holds 18 tile(s) of 9 kind(s)."
    )

    table = _write(tmp_path / "photos", "table.png", rows_photo([["r4", "r5", "r6"], ["k5", "b5", "o5"]]))
    code, out, err = _cli(capsys, "read", table, "--tiles", "Kitchen set", "--json")
    assert code == 0, err
    assert sorted(map(sorted, json.loads(out)["melds"])) == [["black-5", "blue-5", "orange-5"], ["red-4", "red-5", "red-6"]]
    rack = _write(tmp_path / "photos", "rack.png", rows_photo([["r7", "k13"]], seed=6))
    code, out, err = _cli(capsys, "solve", "--table-photo", table, "--rack-photo", rack, "--tiles", "Kitchen set", "--json")
    assert code == 0, err and json.loads(out)["played"] == ["red-7"]

    code, out, _ = _cli(capsys, "tiles", "delete", "KITCHEN set", "--json")
    assert code == 0 and json.loads(out) == {"deleted": "Kitchen set"}
    code, out, _ = _cli(capsys, "tiles", "list", "--json")
    assert json.loads(out) == {"profiles": [], "skipped": []}


@needs_models
@pytest.mark.slow
@needs_fonts(edition("original-circle"))
def test_a_set_no_model_saw_is_calibrated_and_its_table_read_with_the_profile(capsys, tmp_path):
    """One photo of a held-out edition's tiles in the default layout makes a profile; a table of that set reads right with it."""
    from datasets.synth.rows import lay_out_rows
    from vision.calibration import DEFAULT_LAYOUT

    kind = edition("original-circle")
    calibration = lay_out_rows([list(r) for r in DEFAULT_LAYOUT.rows], kind, np.random.default_rng(11), 1600, 1200)
    laid = ("j o5 o6", "k9 b9 r9 j", "r1 r2 r3 r4")
    table = lay_out_rows([[parse_tile(t) for t in row.split()] for row in laid], kind, np.random.default_rng(0), 1280, 960, gap=0.04)
    cal_path = _write(tmp_path / "photos", "calibration.jpg", calibration.image)
    table_path = _write(tmp_path / "photos", "table.png", table.image)
    code, out, err = _cli(capsys, "calibrate", cal_path, "--name", "circles")
    assert code == 0 and "54 tile(s)" in out, err
    code, out, _ = _cli(capsys, "tiles", "list")
    assert "inks" not in out  # the default layout shows every colour: the set's inks are learnt
    code, out, _ = _cli(capsys, "tiles", "list", "--json")
    assert json.loads(out)["profiles"][0]["inks"] is True
    code, out, err = _cli(capsys, "read", table_path, "--tiles", "circles", "--json")
    assert code == 0, err
    expected = [[parse_tile(t).name for t in row.split()] for row in laid]
    assert sorted(map(sorted, json.loads(out)["melds"])) == sorted(map(sorted, expected))


@needs_models
def test_calibrate_says_which_tiles_were_put_back_and_how_many_boxes_were_left_out(capsys, tmp_path, monkeypatch):
    from vision.calibration import PairedPhoto, collect_samples
    from vision.profiles import NoTileSample

    def fitted(image, layout):
        paired = collect_samples(image, layout)
        first = paired.samples[0]
        mean = np.mean([s.embedding for s in paired.samples], axis=0)
        box = NoTileSample(first.crops, first.embedding, mean, first.box)
        return PairedPhoto(paired.samples, (1, 4), (box,))

    monkeypatch.setattr("vision.calibration.collect_samples", fitted)
    photo = _layout_photo(tmp_path)
    code, out, err = _cli(capsys, "calibrate", photo, "--name", "rack", "--layout", LAYOUT)
    assert code == 0, err
    assert out.splitlines()[:2] == [
        f"Photo {photo}: 2 tile(s) the reader doubted were taken where the layout has one: red 2, blue 5.",
        f"Photo {photo}: 1 box(es) that are no tile of the layout were left out.",
    ]
    code, out, err = _cli(capsys, "calibrate", photo, "--name", "rack", "--layout", LAYOUT, "--json")
    assert json.loads(out)["put_back"] == 2 and json.loads(out)["left_out"] == 1
    code, out, _ = _cli(capsys, "tiles", "list")
    assert code == 0 and out.startswith("rack: 18 tile(s) of 9 kind(s), 0 from corrections; changed ")
    assert "; 2 box(es) that are no tile;" in out  # the boxes left out, kept in the profile
    code, out, _ = _cli(capsys, "tiles", "list", "--json")
    assert json.loads(out)["profiles"][0]["not_tiles"] == 2


@needs_models
def test_calibrate_says_when_a_photo_is_too_blurred_to_teach_the_reader_well_and_saves_it_anyway(capsys, tmp_path, data_dir):
    """The same layout photographed with the camera moving: its tiles are measured as blurred, the
    command says so for that photo (text and JSON), and the profile is saved, as the player asked."""
    from vision.reading import BLURRED_PHOTO, blurred_photo_note

    sharp = _layout_photo(tmp_path)
    kernel = np.zeros((27, 27), np.float32)
    kernel[13, :] = 1.0 / 27  # a fifth of a 130 px tile, sideways
    shaken = _write(tmp_path / "photos", "shaken.png", cv2.filter2D(cv2.imread(sharp), -1, kernel))
    note = blurred_photo_note(BLURRED_PHOTO)
    code, out, err = _cli(capsys, "calibrate", sharp, shaken, "--name", "set", "--layout", LAYOUT)
    assert code == 0, err
    assert f"Photo {shaken}: {note}" in out.splitlines() and sharp not in out
    code, out, err = _cli(capsys, "calibrate", shaken, "--name", "set", "--layout", LAYOUT, "--json", "--lang", "ro")
    assert code == 0, err
    assert json.loads(out)["notes"] == [{"photo": shaken, "message": blurred_photo_note(BLURRED_PHOTO, "ro")}]
    assert ProfileStore(data_dir / "profiles").load("set").summary.tiles == 27


@needs_models
def test_a_row_with_the_wrong_count_is_named_and_nothing_is_saved(capsys, tmp_path, data_dir):
    photo = _layout_photo(tmp_path, "r1 r2 r3 r4 | b5 b6 | j k13")
    code, out, err = _cli(capsys, "calibrate", photo, "--name", "set", "--layout", LAYOUT)
    assert code == 2 and out == ""
    assert "row 2 has 2 tiles where the layout has 3" in err and "nothing was saved" in err, err
    assert _nothing_saved(data_dir)


@needs_models
def test_one_bad_photo_of_several_saves_nothing(capsys, tmp_path, data_dir):
    good = _layout_photo(tmp_path)
    bad = tmp_path / "photos" / "bad.jpg"
    bad.write_bytes(b"not a photo")
    code, out, err = _cli(capsys, "calibrate", good, str(bad), "--name", "set", "--layout", LAYOUT)
    assert code == 2 and out == "" and f"cannot read the photo {bad}" in err and "nothing was saved" in err
    assert _nothing_saved(data_dir)


def test_a_missing_photo_saves_nothing(capsys, tmp_path, data_dir):
    code, out, err = _cli(capsys, "calibrate", str(tmp_path / "nowhere.jpg"), "--name", "set")
    assert code == 2 and "no such file" in err and _nothing_saved(data_dir)


def test_a_layout_that_is_not_notation_is_refused(capsys, tmp_path, data_dir):
    code, out, err = _cli(capsys, "calibrate", str(tmp_path / "any.jpg"), "--name", "set", "--layout", "r1 r2 | q7")
    assert code == 2 and out == "" and "the layout is not valid tile notation" in err and "'q7'" in err
    assert _nothing_saved(data_dir)


@pytest.mark.parametrize("name", ["../../etc/x", "a/b", "CON", ""])
def test_unsafe_profile_names_are_refused(capsys, tmp_path, data_dir, name):
    code, out, err = _cli(capsys, "calibrate", str(tmp_path / "any.jpg"), "--name", name)
    assert code == 2 and out == "" and "tile profile" in err
    assert not data_dir.exists()
    code, _, err = _cli(capsys, "read", str(tmp_path / "any.jpg"), "--tiles", name)
    assert code == 2 and "tile profile" in err


def test_a_damaged_profile_file_is_skipped_with_a_message(capsys, data_dir):
    folder = data_dir / "profiles"
    folder.mkdir(parents=True)
    (folder / ("broken" + SUFFIX)).write_bytes(b"garbage")
    code, out, err = _cli(capsys, "tiles", "list")
    assert code == 0 and out.strip() == "No tile profiles yet: make one with rummikub calibrate."
    assert err.strip() == f"rummikub: warning: the tile profile file broken{SUFFIX} is damaged or not a tile profile; it was skipped"
    code, out, err = _cli(capsys, "tiles", "list", "--json")
    assert code == 0 and len(json.loads(out)["skipped"]) == 1


def test_reading_with_a_damaged_profile_is_a_message_not_a_crash(capsys, tmp_path, data_dir):
    folder = data_dir / "profiles"
    folder.mkdir(parents=True)
    (folder / ("broken" + SUFFIX)).write_bytes(b"garbage")
    code, out, err = _cli(capsys, "read", str(tmp_path / "any.jpg"), "--tiles", "broken")
    assert code == 2 and out == ""
    assert f"the tile profile file broken{SUFFIX} is damaged or not a tile profile" in err
    assert (folder / ("broken" + SUFFIX)).read_bytes() == b"garbage"  # left as it was


def test_unknown_profiles_and_tiles_without_photos_are_errors(capsys, tmp_path):
    code, out, err = _cli(capsys, "read", str(tmp_path / "any.jpg"), "--tiles", "nobody")
    assert code == 2 and out == "" and "there is no tile profile named 'nobody'" in err
    code, out, err = _cli(capsys, "tiles", "delete", "nobody")
    assert code == 2 and "there is no tile profile named 'nobody'" in err
    code, out, err = _cli(capsys, "solve", "--table", "r1 r2 r3", "--rack", "r4", "--tiles", "nobody")
    assert code == 2 and "--tiles applies to photos" in err


def test_read_passes_the_profile_to_the_reader(capsys, tmp_path, data_dir, monkeypatch):
    import vision
    from vision.profiles import TileSample
    from vision.reader import CropReading
    from vision.reading import Reading, ReadTile

    seen = {}

    def fake_read(image, kind="table", rules=None, profile=None, memory=None):
        seen["profile"] = profile
        return Reading((ReadTile(parse_tile("r7"), (0, 0, 5, 5), 0.9),), ((0,),))

    def reembed(views, reader):
        n = views.shape[1]
        return CropReading(np.full((n, 53), 1 / 53), np.ones(n), np.ones((n, 1280)))

    monkeypatch.setattr(vision, "read", fake_read)
    monkeypatch.setattr("vision.reader.load_reader", lambda weights=None: object())
    monkeypatch.setattr("vision.reader.reader_fingerprint", lambda reader: "the reader now")
    monkeypatch.setattr("vision.reader.read_views", reembed)
    sample = TileSample(parse_tile("r7"), np.zeros((4, 64, 64, 3), np.uint8), np.ones(1280))
    ProfileStore(data_dir / "profiles").save("set", [sample], reader="some other reader")
    photo = _write(tmp_path, "p.png", np.full((60, 80, 3), 120, np.uint8))
    code, out, err = _cli(capsys, "read", photo, "--tiles", "set", "--json")
    assert code == 0, err
    assert seen["profile"].name == "set" and seen["profile"].size == 1
    code, out, err = _cli(capsys, "read", photo, "--json")
    assert code == 0 and seen["profile"] is None
