"""The Play page through Streamlit's AppTest: typed and photographed positions, fixes, answers."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image

from solver.rules import STANDARD
from solver.tiles import Tile, parse_tile
from vision.reading import ProblemKind, Reading, ReadingKind, ReadingProblem, ReadTile
from tests.app_helpers import all_markdown, error_lines, start_app, texts

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py


def type_position(at, table: str, rack: str):
    at.text_area(key="play_table_text").input(table)
    at.text_area(key="play_rack_text").input(rack)
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    return at


def edit(at, name: str) -> str:
    """The key of one of the fix editor's widgets for the reading as it is now."""
    return f"play_edit_{at.session_state['play_reading'].revision}_{name}"


def solve(at):
    at.button(key="play_solve").click().run()
    assert not at.exception, at.exception
    return at


def test_typed_table_and_rack_give_a_move_with_highlights_and_steps():
    at = type_position(start_app(), "r4 r5 r6 | k5 b5 o5", "r7 k13 b2")
    html = all_markdown(at)
    assert 'title="red 4"' in html and 'title="black 13"' in html  # the reading, as tiles
    assert texts(at.error) == []
    solve(at)
    assert texts(at.success) == ["Play 1 tile(s) worth 7 points: red 7"]
    html = all_markdown(at)
    assert 'class="rk-tile rk-red rk-played" title="red 7"' in html
    assert "1. Add your red 7 to [red 4 5 6]: [red 4 5 6 7]." in html
    assert "Rules: Standard" in " ".join(texts(at.caption))


def test_a_rearrangement_highlights_the_table_tiles_that_move():
    # Black 6 7 can only go down with the black 5 taken from the group of four.
    at = type_position(start_app(), "k5 b5 o5 r5", "k6 k7")
    solve(at)
    assert texts(at.success) == ["Play 2 tile(s) worth 13 points: black 6, black 7"]
    html = all_markdown(at)
    assert 'class="rk-tile rk-black rk-moved" title="black 5"' in html
    assert 'class="rk-tile rk-black rk-played" title="black 6"' in html
    assert "moved on the table" in html  # the legend explains the highlight


def test_no_legal_move_says_draw():
    at = type_position(start_app(), "r4 r5 r6", "k1 b9")
    solve(at)
    assert texts(at.warning) == ["No legal move: draw a tile."]


def test_first_turn_below_the_threshold_draws():
    at = type_position(start_app(), "", "r1 r2 r3")
    at.toggle(key="play_initial_meld_done").set_value(False).run()
    solve(at)
    assert "No legal move: draw a tile." in texts(at.warning)
    at.toggle(key="play_initial_meld_done").set_value(True).run()
    assert "No legal move: draw a tile." not in texts(at.warning)  # stale answer hidden
    solve(at)
    assert texts(at.success) == ["Play 3 tile(s) worth 6 points: red 1, red 2, red 3"]


def test_invalid_table_is_reported_meld_by_meld_and_not_solved():
    at = type_position(start_app(), "r4 r5 r6 | k5 b5 | r1 k2 o3", "r7")
    assert error_lines(at) == [
        "Meld 2 is not valid: a meld needs at least 3 tiles",
        "Meld 3 is not valid: neither a run (one colour) nor a group (one number)",
    ]
    solve(at)
    assert "Fix the table first: every meld on it must be valid before a move can be found." in texts(at.error)
    assert texts(at.success) == []


def test_bad_notation_is_a_message_and_the_typing_is_kept():
    at = type_position(start_app(), "r4 r5 x6", "r7")
    assert texts(at.error) == ["In the typed table: cannot read tile 'x6' (unknown colour)"]
    assert at.text_area(key="play_table_text").value == "r4 r5 x6"
    assert at.text_area(key="play_rack_text").value == "r7"


def fix_expander(at):
    return next(e for e in at.expander if e.label == "Fix a tile")


def test_impossible_tiles_across_table_and_rack_are_reported_right_after_reading():
    at = type_position(start_app(), "r4 r5 r6 | r4 r5 r6", "r4")
    assert error_lines(at) == [  # before any move is asked for, with where each copy lies
        "More copies than the game has: red 4 — Meld 1 · 1: red 4; Meld 2 · 1: red 4; Rack · 1: red 4"
    ]
    assert fix_expander(at).proto.expanded
    solve(at)
    assert "Impossible tiles: more copies of red 4 than the game has." in texts(at.error)


@pytest.mark.parametrize(
    ("rack", "expected"),
    [
        ("r7 r7 r7", "More copies than the game has: red 7 — Rack · 1: red 7; Rack · 2: red 7; Rack · 3: red 7"),
        ("j j j", "More copies than the game has: joker — Rack · 1: joker; Rack · 2: joker; Rack · 3: joker"),
    ],
)
def test_an_impossible_rack_is_reported_right_after_reading(rack, expected):
    at = type_position(start_app(), "", rack)
    assert error_lines(at) == [expected]
    assert fix_expander(at).proto.expanded  # where the player fixes it
    at.selectbox(key=edit(at, "place")).set_value((-1, 2)).run()
    at.button(key=edit(at, "remove")).click().run()
    assert error_lines(at) == []


def test_three_jokers_are_possible_under_four_joker_rules():
    at = type_position(start_app(), "", "j j j")
    at.selectbox(key="rules_preset").set_value("four-jokers").run()
    assert error_lines(at) == []


def test_nothing_typed_asks_for_input():
    at = start_app()
    at.button(key="play_read").click().run()
    assert texts(at.info) == ["Type or photograph the table and your rack first."]


def test_fixing_the_reading_change_add_move_remove_then_solve():
    at = type_position(start_app(), "r4 r5 k6 | k5 b5 | o9", "r7 k9")
    # change: meld 1, tile 3 is really red 6
    at.selectbox(key=edit(at, "place")).set_value((0, 2)).run()
    at.selectbox(key=edit(at, "new_tile_0_2")).set_value(__import__("solver").parse_tile("r6")).run()
    at.button(key=edit(at, "change")).click().run()
    assert not at.exception
    assert "Meld 1 is not valid" not in " ".join(texts(at.error))
    # add a missed orange 5 to meld 2
    at.text_input(key=edit(at, "add_tiles")).input("o5")
    at.selectbox(key=edit(at, "add_to")).set_value(1)
    at.button(key=edit(at, "add")).click().run()
    assert not any("Meld 2" in e for e in texts(at.error))
    # move the false orange 9 (meld 3) to the rack, then remove the black 9 from the rack
    at.selectbox(key=edit(at, "place")).set_value((2, 0)).run()
    at.selectbox(key=edit(at, "move_to")).set_value(-1)
    at.button(key=edit(at, "move")).click().run()
    assert texts(at.error) == []
    rack_places = [p for p in at.selectbox(key=edit(at, "place")).options if "Rack" in p]
    assert rack_places == ["Rack · 1: red 7", "Rack · 2: black 9", "Rack · 3: orange 9"]
    at.selectbox(key=edit(at, "place")).set_value((-1, 1)).run()
    at.button(key=edit(at, "remove")).click().run()
    assert [p for p in at.selectbox(key=edit(at, "place")).options if "Rack" in p] == [
        "Rack · 1: red 7", "Rack · 2: orange 9",
    ]
    solve(at)
    assert texts(at.success) == ["Play 1 tile(s) worth 7 points: red 7"]


def test_a_bad_added_tile_is_a_message():
    at = type_position(start_app(), "r4 r5 r6", "r7")
    at.text_input(key=edit(at, "add_tiles")).input("z99")
    at.button(key=edit(at, "add")).click().run()
    assert texts(at.error) == ["cannot read tile 'z99' (unknown colour)"]


def test_a_file_that_is_not_an_image_is_a_clear_message():
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", b"not a picture", "image/png")).run()
    at.text_area(key="play_rack_text").input("r7")
    at.button(key="play_read").click().run()
    assert not at.exception
    (error,) = texts(at.error)
    assert error.startswith("The table photo cannot be read: ")
    assert "image" in error


def test_a_truncated_photo_is_a_clear_message():
    buffer = io.BytesIO()
    Image.fromarray(np.full((64, 64, 3), 200, np.uint8)).save(buffer, format="JPEG")
    at = start_app()
    at.file_uploader(key="play_rack_photo_upload").set_value(("rack.jpg", buffer.getvalue()[:200], "image/jpeg")).run()
    at.button(key="play_read").click().run()
    assert not at.exception
    (error,) = texts(at.error)
    assert error.startswith("The rack photo cannot be read: ")


def test_switching_language_keeps_working():
    at = start_app()
    for lang in ("uk", "ru", "ro", "en"):
        at.selectbox(key="lang").set_value(lang).run()
        assert not at.exception
    type_position(at, "r4 r5 r6", "r7")
    solve(at)
    assert texts(at.success)


def test_rule_preset_applies_to_the_move():
    # 10+11+12 = 33 opens under the standard 30, not under 50.
    at = type_position(start_app(), "", "k10 k11 k12")
    at.toggle(key="play_initial_meld_done").set_value(False).run()
    solve(at)
    assert texts(at.success) == ["Play 3 tile(s) worth 33 points: black 10, black 11, black 12"]
    at.selectbox(key="rules_preset").set_value("opening-50").run()
    solve(at)
    assert "No legal move: draw a tile." in texts(at.warning)
    assert "initial meld 50" in " ".join(texts(at.caption))


def test_a_synthetic_photo_is_read_shown_fixed_and_solved():
    from tests.synthetic_photos import png_bytes, table_scene, tiles_absent_from, vision_missing

    if vision_missing():
        pytest.skip(f"real photo reading cannot run: {vision_missing()}")

    scene = table_scene()
    rack = tiles_absent_from(scene, 2)
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", png_bytes(scene.image), "image/png")).run()
    at.text_area(key="play_rack_text").input(" ".join(t.short for t in rack))
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    assert not any(e.startswith("The table photo cannot be read") for e in texts(at.error)), texts(at.error)
    assert len(at.image) == 1, "the annotated photo is shown"
    html = all_markdown(at)
    assert html.count('class="rk-tile') >= 3  # the reading as tiles (plus the rack)
    # The player fixes the reading: tiles of melds the rules reject, and extra copies, come off.
    for _ in range(200):
        errors = error_lines(at)
        bad = [e for e in errors if e.startswith("Meld ") and " is not valid" in e]
        extra = [e for e in errors if e.startswith("More copies than the game has: ")]
        if bad:
            place = (int(bad[0].split()[1]) - 1, 0)
        elif extra:
            label = extra[0].removeprefix("More copies than the game has: ").split(" — ")[0]
            options = at.selectbox(key=edit(at, "place")).options
            found = [re.fullmatch(r"Meld (\d+) · (\d+): (.*?)( ⚠)?", text) for text in options]
            meld, index = next((int(m[1]), int(m[2])) for m in found if m and m[3] == label)
            place = (meld - 1, index - 1)
        else:
            break
        at.selectbox(key=edit(at, "place")).set_value(place).run()
        at.button(key=edit(at, "remove")).click().run()
        assert not at.exception, at.exception
    assert not any(" is not valid" in e or e.startswith("More copies") for e in error_lines(at)), error_lines(at)
    solve(at)
    assert texts(at.success) or "No legal move: draw a tile." in texts(at.warning)


def read_tile(tile: Tile, box=(0.0, 0.0, 45.0, 60.0), confidence: float = 0.99,
              alternatives: tuple[Tile, ...] = (), **flags: bool) -> ReadTile:
    """A tile as the reader gives it, its alternatives at small probabilities."""
    return ReadTile(tile, box, confidence, tuple((t, 0.1) for t in alternatives), **flags)


def fake_read(image, kind="table", rules=None, profile=None, memory=None) -> Reading:
    """A stand-in reader with one doubtful tile, so the app's side is tested exactly."""
    def t(name, **kw):
        return read_tile(parse_tile(name), **kw)

    if kind == "rack":
        return Reading((t("r7"),), ((0,),), kind=ReadingKind.RACK)
    tiles = (
        t("r4"), t("r5"), t("k6", confidence=0.41, uncertain=True, alternatives=(parse_tile("r6"), parse_tile("k9"))),
        t("k5"), t("b5"), t("o5", corrected=True, alternatives=(parse_tile("o3"),)),
    )
    doubt = ReadingProblem(ProblemKind.UNCERTAIN_TILE, (2,), (tiles[2].tile,), alternatives=(parse_tile("r6"),))
    return Reading(tiles, ((0, 1, 2), (3, 4, 5)), (doubt,), ReadingKind.TABLE)


def fake_annotate(image, reading, scale=1.0):
    return np.zeros((20, 30, 3), np.uint8)


def use_fake_reader(monkeypatch, read=fake_read) -> bytes:
    """Photos are read by ``read`` (standing in for ``vision.read``), no models loaded;
    returns a small grey PNG to upload."""
    import vision

    import app.photos

    monkeypatch.setattr(vision, "read", read, raising=False)
    monkeypatch.setattr(vision, "annotate", fake_annotate, raising=False)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    photo = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(photo, format="PNG")
    return photo.getvalue()


def read_table_photo(monkeypatch, read=fake_read):
    """The Play page after a table photo (read by ``read``) and the rack ``r7`` were read."""
    photo = use_fake_reader(monkeypatch, read)
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo, "image/png")).run()
    at.text_area(key="play_rack_text").input("r7")
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    return at


def test_a_photo_reading_shows_doubts_and_is_fixed_with_an_alternative(monkeypatch):
    photo = use_fake_reader(monkeypatch)
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo, "image/png"))
    at.file_uploader(key="play_rack_photo_upload").set_value(("rack.png", photo, "image/png")).run()
    at.text_area(key="play_table_text").input("r1 r2 r3")  # a photo beats typing, and says so
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    assert len(at.image) == 2  # both annotated photos
    assert texts(at.warning) == ["- Used the table photo; the typed table was ignored."]
    html = all_markdown(at)
    assert 'class="rk-tile rk-black rk-uncertain" title="black 6 — unsure; maybe: red 6, black 9"' in html
    assert 'class="rk-tile rk-orange rk-corrected"' in html
    assert "Meld 1 · 3: black 6 ⚠ — unsure; maybe: red 6, black 9" in html  # the list of doubts
    assert error_lines(at) == ["Meld 1 is not valid: neither a run (one colour) nor a group (one number)"]
    place = at.selectbox(key=edit(at, "place"))
    assert place.value == (0, 2)  # the editor opens on the doubtful tile
    picker = at.selectbox(key=edit(at, "new_tile_0_2"))
    assert picker.options[:3] == ["black 6", "red 6", "black 9"]
    picker.set_value(parse_tile("r6")).run()
    at.button(key=edit(at, "change")).click().run()
    assert texts(at.error) == []
    assert 'class="rk-tile rk-red rk-edited"' in all_markdown(at)
    solve(at)
    assert texts(at.success) == ["Play 1 tile(s) worth 7 points: red 7"]


def read_with_an_unsure_joker(image, kind="table", rules=None, profile=None, memory=None) -> Reading:
    """A table of two sure runs and a rack whose joker the reader doubts (wood grain, say)."""
    def t(name, **kw):
        return read_tile(parse_tile(name), **kw)

    if kind == "rack":
        return Reading((t("joker", confidence=0.55, uncertain=True), t("k13")), ((0, 1),), kind=ReadingKind.RACK)
    return Reading((t("r4"), t("r5"), t("r6"), t("b9"), t("b10"), t("b11")), ((0, 1, 2), (3, 4, 5)), (), ReadingKind.TABLE)


def test_a_move_that_plays_an_unsure_tile_says_so_and_a_checked_one_does_not(monkeypatch):
    photo = use_fake_reader(monkeypatch, read_with_an_unsure_joker)
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo, "image/png"))
    at.file_uploader(key="play_rack_photo_upload").set_value(("rack.png", photo, "image/png")).run()
    at.button(key="play_read").click().run()
    solve(at)
    assert texts(at.success) and "joker" in texts(at.success)[0]  # the joker is played
    warning = "This move relies on tiles marked unsure: joker. Check them on the table before you play."
    assert warning in texts(at.warning)
    # the player checks the tile (it really is a joker): the move no longer warns
    at.selectbox(key=edit(at, "place")).set_value((-1, 0)).run()
    at.selectbox(key=edit(at, "new_tile_-1_0")).set_value(parse_tile("joker")).run()
    at.button(key=edit(at, "change")).click().run()
    solve(at)
    assert texts(at.success) and warning not in texts(at.warning)


def test_missing_models_are_a_clear_message_not_a_traceback(monkeypatch, tmp_path):
    import app.photos
    from vision import model_files

    monkeypatch.setenv(model_files.MODELS_DIR_ENV, str(tmp_path))  # a folder without the models
    app.photos._load_models.clear()
    photo = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(photo, format="PNG")
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo.getvalue(), "image/png")).run()
    at.button(key="play_read").click().run()
    assert not at.exception
    (error,) = texts(at.error)
    assert error.startswith(f"The table photo cannot be read: photo reading is not available: the tile model file {tmp_path}")
    assert error.endswith(
        " is missing. Reinstall the package, or set RUMMIKUB_MODELS_DIR to a folder that holds detector.onnx and reader.onnx"
    )
    app.photos._load_models.clear()


def test_a_reader_crash_is_a_clear_message_not_a_traceback(monkeypatch):
    import vision

    import app.photos

    def broken(image, kind="table", rules=None, profile=None, memory=None):
        raise RuntimeError("CUDA out of memory")

    monkeypatch.setattr(vision, "read", broken, raising=False)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    photo = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(photo, format="PNG")
    at = start_app()
    at.file_uploader(key="play_rack_photo_upload").set_value(("rack.png", photo.getvalue(), "image/png")).run()
    at.button(key="play_read").click().run()
    assert not at.exception
    assert texts(at.error) == [
        "The rack photo cannot be read: the photo could not be read; try another photo or type the tiles"
    ]


def test_a_photo_with_no_tiles_says_so(monkeypatch):
    import vision

    import app.photos

    monkeypatch.setattr(vision, "read", lambda image, kind="table", rules=None, profile=None, memory=None: Reading((), ()), raising=False)
    monkeypatch.setattr(vision, "annotate", fake_annotate, raising=False)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    photo = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(photo, format="PNG")
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo.getvalue(), "image/png")).run()
    at.button(key="play_read").click().run()
    assert texts(at.error) == [
        "No tiles found on the table photo. Try a closer, sharper photo, or type the tiles."
    ]


def test_a_solver_crash_is_a_message_and_the_reading_is_kept(monkeypatch):
    import solver

    def boom(position, objective=None):
        raise RuntimeError("solver exploded")

    monkeypatch.setattr(solver, "solve", boom)
    at = type_position(start_app(), "r4 r5 r6", "r7")
    solve(at)
    assert texts(at.error) == ["The move search failed; nothing was lost. Try again, or check the tiles."]
    assert 'title="red 7"' in all_markdown(at)


def test_an_iphone_heic_photo_is_accepted(monkeypatch):
    import pillow_heif
    import vision

    import app.photos

    pillow_heif.register_heif_opener()
    seen = []

    def reader(image, kind="table", rules=None, profile=None, memory=None):
        seen.append(image.shape)
        return fake_read(image, kind, rules)

    monkeypatch.setattr(vision, "read", reader, raising=False)
    monkeypatch.setattr(vision, "annotate", fake_annotate, raising=False)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    photo = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 90, 90)).save(photo, format="HEIF")
    at = start_app()
    at.file_uploader(key="play_rack_photo_upload").set_value(("IMG_0001.HEIC", photo.getvalue(), "image/heic")).run()
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    assert seen == [(48, 64, 3)]  # decoded to the BGR array the reader takes
    assert 'title="red 7"' in all_markdown(at)


def test_a_non_image_is_a_message_even_after_the_models_are_loaded():
    """Ultralytics patches Image.open to fetch a HEIF plugin on unknown files; that must not leak."""
    import ultralytics.utils.patches  # noqa: F401 - installs the patch, as loading the models does

    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", b"not a picture", "image/png")).run()
    at.button(key="play_read").click().run()
    assert not at.exception
    (error,) = texts(at.error)
    assert error.startswith("The table photo cannot be read: ")


KEPT = (
    "These photos and tiles were read already: your fixes are kept. "
    "To go back to the reading as it came, use “Undo my fixes” below."
)
DROPPED = "A new reading: the fixes made to the previous one do not apply to it."


def rack_options(at) -> list[str]:
    return [p for p in at.selectbox(key=edit(at, "place")).options if p.startswith("Rack")]


def test_reading_the_same_tiles_again_keeps_the_fixes_until_undone():
    at = type_position(start_app(), "r4 r5 r6", "r7 k9")
    at.selectbox(key=edit(at, "place")).set_value((-1, 1)).run()
    at.button(key=edit(at, "remove")).click().run()
    assert rack_options(at) == ["Rack · 1: red 7"]
    at.button(key="play_read").click().run()  # the same typed tiles again
    assert texts(at.info) == [KEPT]
    assert rack_options(at) == ["Rack · 1: red 7"]  # the removed tile stays removed
    assert 'title="black 9"' not in all_markdown(at)
    at.button(key="play_undo_fixes").click().run()
    assert rack_options(at) == ["Rack · 1: red 7", "Rack · 2: black 9"]
    assert not [b for b in at.button if b.key == "play_undo_fixes"]  # nothing left to undo


def test_a_new_reading_starts_afresh_and_every_selector_follows_it():
    at = type_position(start_app(), "r4 r5 r6", "r7 k9 o1")
    at.selectbox(key=edit(at, "place")).set_value((-1, 2)).run()  # chosen on this reading, not applied
    at.selectbox(key=edit(at, "new_tile_-1_2")).set_value(parse_tile("o2")).run()
    at.selectbox(key=edit(at, "place")).set_value((-1, 0)).run()
    at.button(key=edit(at, "remove")).click().run()  # one fix
    old_editor = edit(at, "")
    at.text_area(key="play_rack_text").input("b3 b4 b5")
    at.button(key="play_read").click().run()
    assert texts(at.info) == [DROPPED]  # said, not silent
    place = at.selectbox(key=edit(at, "place"))
    assert place.value == (0, 0)  # not the tile chosen on the last reading
    assert rack_options(at) == ["Rack · 1: blue 3", "Rack · 2: blue 4", "Rack · 3: blue 5"]
    assert not [name for name in ("place", "new_tile_-1_2", "add_to") if f"{old_editor}{name}" in at.session_state]
    at.selectbox(key=edit(at, "place")).set_value((-1, 2)).run()
    picker = at.selectbox(key=edit(at, "new_tile_-1_2"))
    assert picker.value == parse_tile("b5")  # the new reading's tile, not the old choice
    picker.set_value(parse_tile("b6")).run()
    at.button(key=edit(at, "change")).click().run()
    assert texts(at.error) == []
    assert rack_options(at)[-1] == "Rack · 3: blue 6"


def use_counting_reader(monkeypatch) -> tuple[bytes, list[str]]:
    """:func:`use_fake_reader` with every reading's kind recorded in the list returned."""
    calls: list[str] = []

    def counting_read(image, kind="table", rules=None, profile=None, memory=None):
        calls.append(kind)
        return fake_read(image, kind, rules)

    return use_fake_reader(monkeypatch, counting_read), calls


def test_reading_the_same_photo_again_keeps_the_fix_and_reads_nothing(monkeypatch):
    photo, calls = use_counting_reader(monkeypatch)
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo, "image/png")).run()
    at.text_area(key="play_rack_text").input("r7")
    at.button(key="play_read").click().run()
    at.selectbox(key=edit(at, "new_tile_0_2")).set_value(parse_tile("r6")).run()  # the doubtful black 6
    at.button(key=edit(at, "change")).click().run()
    assert error_lines(at) == []
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    assert calls == ["table"]  # read once
    assert texts(at.info) == [KEPT]
    assert error_lines(at) == []  # the fixed meld is still fixed
    assert 'class="rk-tile rk-red rk-edited"' in all_markdown(at)


def test_the_annotated_photo_is_a_small_jpeg_and_boxes_are_in_its_pixels(monkeypatch):
    """A 12 MP photo is shown as a preview of at most PREVIEW_PX, not sent whole to the phone."""
    import cv2

    import app.photos
    import vision
    def read(image, kind="table", rules=None, profile=None, memory=None):
        box = (1000.0, 500.0, 1200.0, 800.0)
        return Reading((ReadTile(parse_tile("r7"), box, 0.99),), (), (), ReadingKind(kind), (4000, 3000))

    monkeypatch.setattr(vision, "read", read)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    ok, photo = cv2.imencode(".jpg", np.full((3000, 4000, 3), 120, np.uint8))
    reading = app.photos.read_upload(photo.tobytes(), ReadingKind.RACK, STANDARD)
    preview = cv2.imdecode(np.frombuffer(reading.annotated_jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert reading.annotated_jpeg[:2] == b"\xff\xd8" and max(preview.shape[:2]) == app.photos.PREVIEW_PX
    assert reading.boxes[0][0] == pytest.approx((400.0, 200.0, 480.0, 320.0))  # scaled by 1600 / 4000


def test_an_uploaded_photo_is_read_before_the_button_and_the_button_takes_that_reading(monkeypatch):
    import time

    photo, calls = use_counting_reader(monkeypatch)
    at = start_app()
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo, "image/png")).run()
    deadline = time.monotonic() + 30
    while not calls and time.monotonic() < deadline:  # the reading runs on the worker thread
        time.sleep(0.05)
    assert calls == ["table"]  # read ahead, before "Read the tiles"
    at.text_area(key="play_rack_text").input("r7").run()
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    assert calls == ["table"]  # the button took that reading
    assert at.session_state["play_reading"].table_rack.melds  # and shows it


def test_boxes_left_out_as_probably_no_tile_are_explained_next_to_the_reading(monkeypatch):
    """The dashed boxes on the photo (detections dropped as more likely not tiles) are named with
    their count, so a player whose tile was left out knows to add it; none, no sentence."""
    from dataclasses import replace

    from app.photos import doubtful_note

    def read(image, kind="table", rules=None, profile=None, memory=None):
        return replace(fake_read(image, kind, rules), doubtful_boxes=((1.0, 1.0, 9.0, 9.0), (20.0, 1.0, 29.0, 9.0)))

    at = read_table_photo(monkeypatch, read)
    note = doubtful_note(2, "en")
    assert note is not None and "(2)" in note
    assert any(note in w for w in texts(at.warning))
    assert doubtful_note(0, "en") is None
    assert "(2)" in doubtful_note(2, "uk") and doubtful_note(2, "uk") != note  # translated


def test_no_sentence_about_dashed_boxes_when_nothing_was_left_out(monkeypatch):
    at = read_table_photo(monkeypatch)
    assert not any("Dashed boxes" in w for w in texts(at.warning))


@pytest.mark.parametrize("which", ["table", "rack"])
def test_the_camera_is_asked_for_its_own_frame_not_the_widget_size(which):
    """Without a resolution the widget hands over the picture at the size it shows it (about 360
    pixels wide on a phone, tiles of 10-25 pixels); asked for 1080p it hands over the camera's frame."""
    at = start_app()
    assert not at.get("camera_input")  # off until the player switches it on
    at.toggle(key=f"play_{which}_photo_camera_on").set_value(True).run()
    assert not at.exception, at.exception
    cameras = at.get("camera_input")
    assert len(cameras) == 1
    assert cameras[0].proto.resolution_height == 1080


def test_the_small_tiles_note_says_how_long_the_tiles_are_and_only_below_the_line():
    from app.photos import doubtful_note, photo_notes
    from vision.detections import median_length
    from vision.reading import SMALL_TILE_NOTE_PX, PhotoLook, blurred_photo_note, small_tiles_note

    assert median_length([(0, 0, 20, 30), (0, 0, 30, 24), (5, 5, 105, 45)]) == 30.0  # the median longer side
    assert median_length([]) == 0.0
    note = small_tiles_note(29.6, "en")
    assert note is not None and "about 30 pixels" in note
    assert small_tiles_note(SMALL_TILE_NOTE_PX, "en") is None
    assert small_tiles_note(0.0, "en") is None  # no tiles read: nothing to say about their size
    assert "30" in small_tiles_note(29.6, "ro") and small_tiles_note(29.6, "ro") != note  # translated
    assert photo_notes(2, PhotoLook(25.0, 0.0), "en") == (small_tiles_note(25.0, "en"), doubtful_note(2, "en"))
    assert photo_notes(0, PhotoLook(60.0, 0.0), "en") == ()
    assert photo_notes(1, PhotoLook(60.0, 0.2), "en") == (blurred_photo_note(0.2, "en"), doubtful_note(1, "en"))


def test_a_photo_of_small_tiles_is_read_with_a_note_on_taking_a_better_one(monkeypatch):
    from dataclasses import replace

    from vision.reading import small_tiles_note

    def read(image, kind="table", rules=None, profile=None, memory=None):
        reading = fake_read(image, kind, rules)
        small = tuple(replace(t, box=(10.0 * i, 0.0, 10.0 * i + 16.0, 22.0)) for i, t in enumerate(reading.tiles))
        return replace(reading, tiles=small)

    at = read_table_photo(monkeypatch, read)
    assert texts(at.warning) == [f"- {small_tiles_note(22.0, 'en')}"]


def test_a_blurred_photo_is_read_with_a_note_to_take_it_again(monkeypatch):
    from dataclasses import replace

    from vision.reading import blurred_photo_note

    at = read_table_photo(monkeypatch, lambda image, kind="table", rules=None, profile=None, memory=None: replace(
        fake_read(image, kind, rules), blur=0.15,
    ))
    assert texts(at.warning) == [f"- {blurred_photo_note(0.15, 'en')}"]
    at = read_table_photo(monkeypatch, lambda image, kind="table", rules=None, profile=None, memory=None: replace(
        fake_read(image, kind, rules), blur=0.03,
    ))
    assert not any("blurred" in w for w in texts(at.warning))


def read_two_photos(monkeypatch, readings: dict, table_text: str = ""):
    """The Play page after reading a rack photo, and a table photo (or ``table_text`` typed), read
    as ``readings`` gives them by kind (no models loaded)."""
    photo = use_fake_reader(monkeypatch, lambda image, kind="table", rules=None, profile=None, memory=None: readings[kind])
    at = start_app()
    if table_text:
        at.text_area(key="play_table_text").input(table_text)
    else:
        at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo, "image/png"))
    at.file_uploader(key="play_rack_photo_upload").set_value(("rack.png", photo, "image/png")).run()
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    return at


def test_a_table_photo_and_a_rack_photo_are_read_as_one_turn(monkeypatch):
    """The table holds both red 7s and the rack photo's doubtful tile reads red 7 first, orange 7
    next: read together, the rack's tile is the orange 7, marked for the player to check, and the
    reading is not refused as holding more copies than the game has."""
    from tests.test_decode_together import _third_red_7_on_the_rack

    at = read_two_photos(monkeypatch, _third_red_7_on_the_rack())
    rack = at.session_state["play_reading"].table_rack.rack
    assert [(c.tile.short, c.uncertain) for c in rack] == [("o1", False), ("o7", True)]
    assert not any("More copies than the game has" in w for w in texts(at.warning) + texts(at.error))
    solve(at)
    assert texts(at.error) == []


def test_a_rack_photo_is_read_with_the_typed_table(monkeypatch):
    from tests.test_decode_together import _third_red_7_on_the_rack

    at = read_two_photos(monkeypatch, _third_red_7_on_the_rack(), table_text="r7 r8 r9 | r7 k7 b7")
    assert [c.tile.short for c in at.session_state["play_reading"].table_rack.rack] == ["o1", "o7"]
    assert error_lines(at) == []


def test_a_copy_conflict_that_stays_opens_the_fix_editor_on_the_least_sure_copy(monkeypatch):
    """Both photos sure of a red 7 each time (no near reading to give way): the line says where the
    three lie, and the editor opens on the one the camera was least sure of."""
    from tests.test_decode_together import TABLE, _probs, _reading, _sure

    at = read_two_photos(monkeypatch, {
        "table": _reading(TABLE, ReadingKind.TABLE),
        "rack": _reading([[_sure("o1"), _probs(("r7", 0.97))]], ReadingKind.RACK),
    })
    assert error_lines(at) == ["More copies than the game has: red 7 — Meld 1 · 1: red 7; Meld 2 · 1: red 7; Rack · 2: red 7"]
    assert at.selectbox(key=edit(at, "place")).value == (-1, 1)


def _turns(monkeypatch, first_table: list, rack_text: str = "k1"):
    """The Play page after reading ``first_table`` from a photo (rack typed), then a second photo
    of a table that holds a tile read red 7 first and orange 7 next beside k7 b7 (both groups valid)."""
    from tests.test_decode_together import _probs, _reading, _sure

    readings = {"table": _reading(first_table, ReadingKind.TABLE)}
    photo = use_fake_reader(monkeypatch, lambda image, kind="table", rules=None, profile=None, memory=None: readings[kind])
    at = start_app()
    at.text_area(key="play_rack_text").input(rack_text)
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", photo, "image/png")).run()
    at.button(key="play_read").click().run()
    readings["table"] = _reading(
        [[_sure("k7"), _sure("b7"), _probs(("r7", 0.55), ("o7", 0.4))], [_sure(n) for n in ("r1", "r2", "r3")],
         [_sure(n) for n in ("k9", "k10", "k11")], [_sure(n) for n in ("b4", "b5", "b6")]], ReadingKind.TABLE,
    )
    later = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), 140, np.uint8)).save(later, format="PNG")
    at.file_uploader(key="play_table_photo_upload").set_value(("later.png", later.getvalue(), "image/png")).run()
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception
    return [c.tile.short for c in at.session_state["play_reading"].table_rack.melds[0]]


def test_a_photo_of_the_same_table_reads_a_tile_as_the_last_reading_held_it(monkeypatch):
    from tests.test_decode_together import _sure

    first = [[_sure("k7"), _sure("b7"), _sure("o7")], [_sure(n) for n in ("r1", "r2", "r3")], [_sure(n) for n in ("k9", "k10", "k11")]]
    assert _turns(monkeypatch, first) == ["k7", "b7", "o7"]


def test_another_table_lends_the_next_photo_nothing(monkeypatch):
    from tests.test_decode_together import _sure

    other = [[_sure("k7"), _sure("b7"), _sure("o7")], [_sure(n) for n in ("o10", "o11", "o12")], [_sure(n) for n in ("j", "b2", "b3")]]
    assert _turns(monkeypatch, other) == ["k7", "b7", "r7"]  # 2 of its 9 tiles on the new photo: not this table


def test_the_same_table_is_told_by_the_share_of_its_tiles_read_again():
    from app.photos import same_table
    from solver.tiles import parse_tiles

    before = parse_tiles("k7 b7 o7 r1 r2 r3 k9 k10 k11 b4")
    assert same_table(before, parse_tiles("k7 b7 r7 r1 r2 r3 k9 k10 k11 b4 b5 b6"))  # 9 of 10 read again
    assert not same_table(before, parse_tiles("k7 b7 r7 r1 r2 r3 k8 k10 k12 b4"))  # 7 of 10
    assert not same_table(parse_tiles("k7 b7 o7"), parse_tiles("k7 b7 o7 r1"))  # too few to tell


def read_with_left_out_tiles(image, kind="table", rules=None, profile=None, memory=None) -> Reading:
    """A table of two runs whose last red tile the camera left out (offered as a red 7 after the red
    6), and a box on no tile beside nothing (offered as a joker); the rack reads as it is."""
    from vision.profiles import TileSample
    from vision.reading import LeftOutTile

    if kind == "rack":
        return Reading((read_tile(parse_tile("k1")),), ((0,),), kind=ReadingKind.RACK)
    tiles = tuple(
        read_tile(parse_tile(name), box=(50.0 * i, 100.0 * row, 50.0 * i + 45.0, 100.0 * row + 60.0))
        for row, names in enumerate((("r4", "r5", "r6"), ("b9", "b10", "b11"))) for i, name in enumerate(names)
    )
    samples = tuple(TileSample(t.tile, np.zeros((4, 8, 8, 3), np.uint8), np.zeros(8), t.box) for t in tiles)
    left_out = (
        LeftOutTile(parse_tile("r7"), (150.0, 0.0, 195.0, 60.0), 0.8, 0.6, ((parse_tile("r1"), 0.1),), beside=2),
        LeftOutTile(parse_tile("j"), (400.0, 300.0, 445.0, 360.0), 0.5, 0.25),
    )
    return Reading(tiles, ((0, 1, 2), (3, 4, 5)), kind=ReadingKind.TABLE, samples=samples,
                   doubtful_boxes=tuple(o.box for o in left_out), left_out=left_out)


def test_a_tile_the_camera_left_out_is_added_with_one_tap_where_it_lay(monkeypatch):
    at = read_table_photo(monkeypatch, read_with_left_out_tiles)
    assert [b.label for b in at.button if "_offer_" in str(b.key)] == ["Add 1: red 7?", "Add 2: joker?"]
    assert any(c.startswith("Numbered dashed boxes on the photo") for c in texts(at.caption))
    at.button(key=edit(at, "offer_table_1")).click().run()
    assert not at.exception, at.exception
    table_rack = at.session_state["play_reading"].table_rack
    assert table_rack.table_tiles == (tuple(parse_tile(n) for n in ("r4", "r5", "r6", "r7")), table_rack.table_tiles[1])
    assert "red 7 — unsure; added by you from a box the camera left out; maybe: red 1" in all_markdown(at)
    assert [b.label for b in at.button if "_offer_" in str(b.key)] == ["Add 2: joker?"]  # offered once
    at.button(key="play_undo_fixes").click().run()
    assert [b.label for b in at.button if "_offer_" in str(b.key)] == ["Add 1: red 7?", "Add 2: joker?"]
    solve(at)
    assert not at.exception, at.exception


def test_the_offered_tiles_keep_their_numbers_order_where_a_phone_stacks_the_columns(monkeypatch):
    """Five offers in rows of three: stacked on a phone they read 1, 2, 3, 4, 5, as numbered on the photo."""
    from dataclasses import replace

    from vision.reading import LeftOutTile

    def five_left_out(image, kind="table", rules=None, profile=None, memory=None):
        reading = read_with_left_out_tiles(image, kind, rules)
        if kind == "rack":
            return reading
        offers = tuple(LeftOutTile(parse_tile(f"o{n}"), (500.0 + 50 * n, 300.0, 545.0 + 50 * n, 360.0), 0.5, 0.5) for n in range(1, 6))
        return replace(reading, left_out=offers)

    at = read_table_photo(monkeypatch, five_left_out)
    assert [b.label for b in at.button if "_offer_" in str(b.key)] == [f"Add {n}: orange {n}?" for n in range(1, 6)]


def test_an_offers_button_names_its_photo_only_when_both_photos_offer_tiles():
    from app.components import offer_label
    from app.editing import Offer

    on_rack = Offer("rack", 2, parse_tile("o5"))
    assert offer_label(on_rack, "en") == "Add 2: orange 5?"
    assert offer_label(on_rack, "en", photos=2) == "Add rack 2: orange 5?"
    assert offer_label(Offer("table", 1, parse_tile("j")), "en", photos=2) == "Add table 1: joker?"
    assert offer_label(on_rack, "uk", photos=2) != offer_label(on_rack, "en", photos=2)  # translated
