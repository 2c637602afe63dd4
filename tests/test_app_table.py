"""At the table, through AppTest: joining by QR code, checking a turn, the table shown when time
is up, and the game clock on the Timer page."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

from app import network
from app.clock import GameClock, MSO_2019
from app.timer import TurnTimer
from app.turn_reading import TURN_END, TURN_START, TableReading, from_text, highlight
from solver.tiles import parse_melds, parse_tile
from tests.app_helpers import all_markdown, error_lines, start_app, texts
from tests.test_app_play import read_tile
from vision.reading import Reading, ReadingKind
from tests.test_network import decode_qr

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py

START = "r4 r5 r6 | k5 b5 o5 | b9 b10 b11"


# --- join by QR code ---------------------------------------------------------------------------


def sidebar_qr(at) -> str:
    html = "\n".join(m.value for m in at.sidebar.markdown)
    found = re.search(r'class="rk-join-qr" src="data:image/png;base64,([^"]+)"', html)
    assert found, html
    return decode_qr(base64.b64decode(found.group(1)))


def test_the_sidebar_qr_code_decodes_to_the_apps_home_network_address():
    at = start_app()
    expected = network.app_url(network.lan_address(), 8501)
    assert sidebar_qr(at) == expected
    assert [c.value for c in at.sidebar.code] == [expected]  # and as text
    assert any("rummikub app --https" in c for c in texts(at.sidebar.caption))


def test_over_https_the_qr_code_says_https_and_the_warning_is_explained(monkeypatch):
    import app.join

    monkeypatch.setattr(app.join, "serving_https", lambda: True)
    at = start_app()
    assert sidebar_qr(at) == network.app_url(network.lan_address(), 8501, https=True)
    assert network.browser_warning("en") in texts(at.sidebar.caption)


# --- check a turn ------------------------------------------------------------------------------


def turn_page():
    return start_app("turn")


def record_start(at, text: str = START):
    at.text_area(key="turn_start_text").input(text)
    at.button(key="turn_record").click().run()
    assert not at.exception, at.exception
    return at


def check(at, end: str, rack: str = "", opened: bool = True):
    at.text_area(key="turn_end_text").input(end)
    at.text_input(key="turn_rack_text").input(rack)
    at.toggle(key="turn_opened").set_value(opened)
    at.button(key="turn_check").click().run()
    assert not at.exception, at.exception
    return at


def test_a_turn_that_takes_a_tile_back_to_the_rack_is_reported():
    at = check(record_start(turn_page()), "r4 r5 r6 r7 | k5 o5 | b9 b10 b11", rack="r7")
    lines = error_lines(at)
    assert lines[0] == "The turn is not legal:"
    assert (
        "Taken off the table: blue 5. Every tile on the table at the start of the turn must still be there at its end."
        in lines
    )
    assert "Meld 2 at the end of the turn is not valid: a meld needs at least 3 tiles." in lines
    page = all_markdown(at)
    assert "The end of the turn, problems framed" in page and "The start of the turn, problems framed" in page
    assert page.count("rk-bad") >= 2  # the broken meld at the end and the meld the tile left at the start


def test_a_legal_turn_says_what_was_played_and_becomes_the_next_start():
    at = check(record_start(turn_page()), "r4 r5 r6 r7 | k5 b5 o5 | b9 b10 b11", rack="r7 k1")
    assert texts(at.success) == ["The turn is legal. Played: red 7."]
    at.button(key="turn_next").click().run()
    assert at.session_state[TURN_START].melds == parse_melds("r4 r5 r6 r7 | k5 b5 o5 | b9 b10 b11")
    assert not at.success


def test_an_initial_meld_below_the_threshold_is_reported():
    at = check(record_start(turn_page()), START + " | k1 k2 k3", opened=False)
    assert "The initial meld is worth 6 points; it needs at least 30." in error_lines(at)


def test_two_photos_of_different_tables_are_a_clear_message():
    at = check(record_start(turn_page()), "k1 k2 k3 | o11 o12 o13")
    assert texts(at.error) == [
        "The turn cannot be checked: the two readings look like different tables: only 0 of the 9 tiles on the "
        "table at the start of the turn are on it at the end."
    ]
    assert not at.success and at.session_state[TURN_START].melds == parse_melds(START)  # nothing lost


def test_a_second_photo_that_cannot_be_read_is_a_clear_message_and_the_start_is_kept():
    at = record_start(turn_page())
    at.file_uploader(key="turn_end_photo_upload").set_value(("end.jpg", b"not an image", "image/jpeg")).run()
    at.button(key="turn_check").click().run()
    assert not at.exception, at.exception
    (message,) = texts(at.error)
    assert message.startswith("The photo of the end of the turn cannot be read: ")
    assert at.session_state[TURN_START].melds == parse_melds(START)


def test_checking_before_recording_asks_for_the_start():
    at = turn_page()
    at.button(key="turn_record").click().run()
    assert "Photograph or type the table at the start of the turn first." in texts(at.info)
    assert not [b for b in at.button if b.key == "turn_check"]


def test_a_bad_typed_table_is_a_message():
    at = record_start(turn_page(), "r4 x9")
    assert any(e.startswith("In the typed table at the start of the turn: cannot read tile 'x9'") for e in texts(at.error))


def fake_tables(image, kind="table", rules=None, profile=None, memory=None):
    """Readings of two photos told apart by their brightness: the start, and the end where the
    blue 5 went back to the rack."""
    def t(name, x):
        return read_tile(parse_tile(name), (x, 10.0, x + 20.0, 40.0))

    if int(np.asarray(image).mean()) < 100:
        tiles = (t("r4", 0), t("r5", 30), t("r6", 60), t("k5", 100), t("b5", 130), t("o5", 160))
        return Reading(tiles, ((0, 1, 2), (3, 4, 5)))
    tiles = (t("r4", 0), t("r5", 30), t("r6", 60), t("k5", 100), t("o5", 160))
    return Reading(tiles, ((0, 1, 2), (3, 4)))


def photo(level: int) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.full((60, 200, 3), level, np.uint8)).save(out, format="PNG")
    return out.getvalue()


def check_turn_from_photos(monkeypatch, read=fake_tables, rack_photo: bool = False):
    """The Turn page after recording the dark photo as the start and checking the bright one as
    the end (with a rack photo when ``rack_photo``), each read by ``read`` (the models replaced)."""
    import vision

    import app.photos

    monkeypatch.setattr(vision, "read", read, raising=False)
    monkeypatch.setattr(vision, "annotate", lambda image, reading, scale=1.0: np.asarray(image).copy(), raising=False)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    at = turn_page()
    at.file_uploader(key="turn_start_photo_upload").set_value(("start.png", photo(50), "image/png")).run()
    at.button(key="turn_record").click().run()
    at.file_uploader(key="turn_end_photo_upload").set_value(("end.png", photo(200), "image/png")).run()
    if rack_photo:
        at.file_uploader(key="turn_rack_photo_upload").set_value(("rack.png", photo(120), "image/png")).run()
    at.button(key="turn_check").click().run()
    assert not at.exception, at.exception
    return at


def test_from_photos_the_problem_tiles_are_framed_on_the_photos(monkeypatch):
    at = check_turn_from_photos(monkeypatch)
    assert "Taken off the table: blue 5." in " ".join(error_lines(at))
    start: TableReading = at.session_state[TURN_START]
    assert start.box(start.table_rack.melds[1][1]) == (130.0, 10.0, 150.0, 40.0)  # the blue 5's box on the first photo
    assert len(at.image) >= 2  # both photos, framed (the start one is also in the recorded expander)


def test_the_dashed_boxes_on_a_turn_photo_are_explained_under_it(monkeypatch):
    """A box left out as more likely not a tile is dashed on the photo; the Turn page says so
    under the photo it is on, with the count, and says nothing under a photo without any."""
    from dataclasses import replace

    from app.photos import doubtful_note
    from vision.reading import small_tiles_note

    def read(image, kind="table", rules=None, profile=None, memory=None):
        reading = fake_tables(image, kind, rules)
        dark = int(np.asarray(image).mean()) < 100
        return replace(reading, doubtful_boxes=((1.0, 1.0, 9.0, 9.0),) * (3 if dark else 0))

    at = check_turn_from_photos(monkeypatch, read)
    assert at.session_state[TURN_START].doubtful == 3
    captions = texts(at.caption)
    assert captions.count(doubtful_note(3, "en")) == 2  # in the recorded start, and the start framed
    # the stand-in's tiles are 30 px long: each photo says so under it (start, start framed, end)
    assert captions.count(small_tiles_note(30.0, "en")) == 3
    assert not any("Dashed boxes (0)" in c for c in captions)


def test_a_blurred_turn_photo_asks_for_another_under_it(monkeypatch):
    """The blur travels with the start of the turn: the note stands under each blurred photo only."""
    from dataclasses import replace

    from vision.reading import blurred_photo_note

    def read(image, kind="table", rules=None, profile=None, memory=None):
        reading = fake_tables(image, kind, rules)
        bigger = tuple(replace(t, box=(t.box[0], t.box[1], t.box[0] + 50.0, t.box[1] + 70.0)) for t in reading.tiles)
        dark = int(np.asarray(image).mean()) < 100
        return replace(reading, tiles=bigger, blur=0.2 if dark else 0.01)

    at = check_turn_from_photos(monkeypatch, read)
    assert at.session_state[TURN_START].look.blur == 0.2
    captions = texts(at.caption)
    assert captions.count(blurred_photo_note(0.2, "en")) == 2  # in the recorded start, and the start framed
    assert not any("small" in c for c in captions)


def test_highlight_frames_the_box_in_red():
    framed = highlight(photo(255), [(50.0, 20.0, 70.0, 40.0)])
    image = np.asarray(Image.open(io.BytesIO(framed)).convert("RGB"))
    assert tuple(image[14 + 1, 60]) == (208, 24, 43)  # on the frame, just outside the tile
    assert tuple(image[30, 60]) == (255, 255, 255)  # the tile itself is left visible
    assert tuple(image[5, 5]) == (255, 255, 255)


# --- the table as it was, when time is up ------------------------------------------------------


def test_when_time_is_up_the_timer_shows_the_table_at_the_start_of_the_turn():
    at = start_app("timer")
    at.text_input(key="timer_players_text").input("Ann, Bob").run()
    at.session_state["timer"] = TurnTimer(("Ann", "Bob"), turn_seconds=60, started_at=0.0, elapsed_before_pause=60.0)
    at.run()
    assert any("“Check a turn” page" in c for c in texts(at.caption))  # nothing recorded yet
    at.session_state[TURN_START] = from_text(START)
    at.run()
    assert not at.exception, at.exception
    page = all_markdown(at)
    assert "The table at the start of the turn" in page
    assert page.count('<span class="rk-label">Meld ') == 3
    assert 'aria-label="blue 5"' in page


# --- the game clock ----------------------------------------------------------------------------


def clock_page():
    at = start_app("timer")
    at.text_input(key="timer_players_text").input("Ann, Bob").run()
    at.radio(key="timer_mode").set_value("clock").run()
    assert not at.exception, at.exception
    return at


def shown_clocks(at) -> list[tuple[str, str]]:
    return re.findall(r'rk-side-name">([^<]*)</div><div class="rk-side-time">([^<]*)<', all_markdown(at))


def test_the_game_clock_starts_at_the_tournament_setting_and_passes_the_move():
    at = clock_page()
    assert shown_clocks(at) == [("Ann", "10:00"), ("Bob", "10:00")]
    at.button(key="clock_start").click().run()
    at.button(key="clock_end_move").click().run()
    clock: GameClock = at.session_state["game_clock"]
    assert clock.player == "Bob" and clock.moves == 1 and clock.left[0] == 600  # a quick move costs nothing
    assert 'rk-side rk-side-now"><div class="rk-side-name">Bob' in all_markdown(at)


def test_a_clock_set_to_zero_is_a_clear_message():
    at = clock_page()
    at.number_input(key="clock_main_minutes").set_value(0.0).run()
    assert not at.exception, at.exception
    assert texts(at.error) == ["The clock cannot be used: a game clock needs a main time above zero."]
    assert not [b for b in at.button if b.key == "clock_start"]


def test_a_fallen_flag_is_shown_and_the_move_cannot_be_ended():
    at = clock_page()
    at.session_state["game_clock"] = GameClock(("Ann", "Bob"), MSO_2019, (600.0, 5.0), current=1, started_at=0.0)
    at.run()
    assert not at.exception, at.exception
    assert "Bob’s time is up." in all_markdown(at)
    assert at.button(key="clock_end_move").disabled


def test_a_player_name_on_the_clock_is_text_not_html():
    at = start_app("timer")
    at.text_input(key="timer_players_text").input("<b>Ann</b>, Bob").run()
    at.radio(key="timer_mode").set_value("clock").run()
    assert "&lt;b&gt;Ann&lt;/b&gt;" in all_markdown(at) and "<b>Ann</b>" not in all_markdown(at)


def test_typed_notation_in_a_turn_error_is_text():
    from tests.test_app_user_text import LINK, assert_inert

    at = record_start(turn_page(), f"r4 {LINK}")
    assert any(e.startswith(f"In the typed table at the start of the turn: cannot read tile '{LINK[:20]}…'")
               for e in texts(at.error))
    assert_inert(at)


def turn_key(at, side: str, name: str) -> str:
    """The key of one of a reading's fix editor widgets (``side``: start, end or rack) as it is now."""
    result = at.session_state[TURN_END] if side != "start" else None
    reading = at.session_state[TURN_START] if side == "start" else result.table if side == "end" else result.rack
    return f"turn_fix_{side}_{reading.revision}_{name}"


def test_a_tile_the_camera_left_out_of_the_end_photo_is_offered_and_one_tap_makes_the_turn_legal(monkeypatch):
    """The blue 5 is still on the table, but the camera left it out of the end photo: the verdict
    says a tile was taken off, the end's fix editor offers the box, and adding it, where it lay,
    makes the turn legal; the start, read whole, offers nothing."""
    from dataclasses import replace

    from vision.reading import LeftOutTile

    def read(image, kind="table", rules=None, profile=None, memory=None):
        reading = fake_tables(image, kind, rules)
        if int(np.asarray(image).mean()) < 100:
            return reading
        box = (130.0, 10.0, 150.0, 40.0)
        return replace(reading, doubtful_boxes=(box,), left_out=(LeftOutTile(parse_tile("b5"), box, 0.8, 0.4, beside=3),))

    at = check_turn_from_photos(monkeypatch, read)
    assert "Taken off the table: blue 5." in " ".join(error_lines(at))
    assert at.session_state[TURN_START].offers == ()
    assert [b.label for b in at.button if "_offer_" in str(b.key)] == ["Add 1: blue 5?"]
    at.button(key=turn_key(at, "end", "offer_table_1")).click().run()
    assert not at.exception, at.exception
    assert texts(at.success) == ["The turn is legal: no tile was played, so the player draws one."]
    end = at.session_state[TURN_END].table
    assert end.melds == parse_melds("r4 r5 r6 | k5 b5 o5")  # beside the black 5, as it lay
    assert end.table_rack.melds[1][1].uncertain  # the camera's guess, for the player to check
    assert not [b for b in at.button if "_offer_" in str(b.key)]  # offered once


def unsure_tables(image, kind="table", rules=None, profile=None, memory=None):
    """The start read surely; at the end the player laid r7 from the rack, and the camera read the
    black 5 unsure, as a black 6 (a black 5 its next guess); the rack read with an unsure r1 for r7."""
    def t(name, x, **flags):
        return read_tile(parse_tile(name), (x, 10.0, x + 20.0, 40.0), **flags)

    if kind == "rack":
        return Reading((t("r1", 0, uncertain=True, alternatives=(parse_tile("r7"),)), t("k1", 30)), ((0, 1),), kind=ReadingKind.RACK)
    if int(np.asarray(image).mean()) < 100:
        tiles = (t("r4", 0), t("r5", 30), t("r6", 60), t("k5", 100), t("b5", 130), t("o5", 160))
        return Reading(tiles, ((0, 1, 2), (3, 4, 5)))
    tiles = (
        t("r4", 0), t("r5", 30), t("r6", 60), t("r7", 90),
        t("k6", 100, uncertain=True, alternatives=(parse_tile("k5"),)), t("b5", 130), t("o5", 160),
    )
    return Reading(tiles, ((0, 1, 2, 3), (4, 5, 6)))


def test_an_unsure_tile_at_the_end_of_the_turn_is_marked_and_fixing_it_gives_the_right_verdict(monkeypatch):
    """The camera's unsure black 6 would make the turn illegal (a black 5 taken off, a bad meld): the
    page marks it, says the verdict rests on unsure tiles, and one *Change* to black 5 makes it legal."""
    at = check_turn_from_photos(monkeypatch, unsure_tables)
    assert "Taken off the table: black 5." in " ".join(error_lines(at))
    assert 'class="rk-tile rk-black rk-uncertain" title="black 6 — unsure; maybe: black 5"' in all_markdown(at)
    assert any(w.startswith("Some tiles were read unsure (marked)") for w in texts(at.warning))
    assert at.selectbox(key=turn_key(at, "end", "place")).value == (1, 0)  # the editor opens on the unsure tile
    assert at.selectbox(key=turn_key(at, "end", "new_tile_1_0")).value == parse_tile("k6")
    at.selectbox(key=turn_key(at, "end", "new_tile_1_0")).set_value(parse_tile("k5"))
    at.button(key=turn_key(at, "end", "change")).click().run()
    assert not at.exception, at.exception
    assert texts(at.success) == ["The turn is legal. Played: red 7."]
    assert not any(w.startswith("Some tiles were read unsure") for w in texts(at.warning))
    assert [d for d in at.selectbox(key=turn_key(at, "end", "move_to")).options] == ["meld 1", "meld 2", "a new meld"]  # no rack
    at.button(key="turn_undo_end").click().run()
    assert "Taken off the table: black 5." in " ".join(error_lines(at))  # back as read
    at.button(key="turn_record").click().run()  # a new start: the end goes with it
    assert not [b for b in at.button if b.key == "turn_undo_end"]


def test_a_fix_to_the_start_of_the_turn_is_used_by_the_verdict(monkeypatch):
    """The start read a black 5 where the end shows a black 6: set to a black 6 at the start too, no
    tile was taken off, and the verdict turns on the start's meld, which is no longer valid."""
    at = check_turn_from_photos(monkeypatch, unsure_tables)
    at.selectbox(key=turn_key(at, "start", "place")).set_value((1, 0)).run()
    at.selectbox(key=turn_key(at, "start", "new_tile_1_0")).set_value(parse_tile("k6"))
    at.button(key=turn_key(at, "start", "change")).click().run()
    assert not at.exception, at.exception
    assert at.session_state[TURN_START].melds == parse_melds("r4 r5 r6 | k6 b5 o5")
    lines = " ".join(error_lines(at))
    assert "Meld 2 at the start of the turn is not valid" in lines and "Taken off the table" not in lines


def test_the_rack_photo_is_shown_as_read_and_a_fix_there_changes_the_verdict(monkeypatch):
    """The rack at the start of the turn, read from a photo with an unsure red 1 where the red 7 was:
    the verdict says the red 7 did not come from the rack; the rack's own editor (tiles of the rack
    only, nowhere to move them) sets it right."""
    at = check_turn_from_photos(monkeypatch, unsure_tables)
    at.selectbox(key=turn_key(at, "end", "new_tile_1_0")).set_value(parse_tile("k5"))
    at.button(key=turn_key(at, "end", "change")).click().run()
    at.file_uploader(key="turn_rack_photo_upload").set_value(("rack.png", photo(120), "image/png")).run()
    at.button(key="turn_check").click().run()
    assert not at.exception, at.exception
    assert "Added to the table but not on the player's rack: red 7." in error_lines(at)
    assert 'class="rk-tile rk-black rk-edited"' in all_markdown(at)  # the end's fix is kept: the same photo
    assert "Rack as read" in all_markdown(at)
    assert 'title="red 1 — unsure; maybe: red 7"' in all_markdown(at)
    assert not [w for w in at.selectbox if str(w.key).endswith("move_to") and "_rack_" in str(w.key)]
    at.selectbox(key=turn_key(at, "rack", "new_tile_-1_0")).set_value(parse_tile("r7"))
    at.button(key=turn_key(at, "rack", "change")).click().run()
    assert not at.exception, at.exception
    assert at.session_state[TURN_END].rack.rack == (parse_tile("r7"), parse_tile("k1"))
    assert texts(at.success) == ["The turn is legal. Played: red 7."]


def test_a_fix_on_the_turn_page_is_remembered_for_the_session(monkeypatch):
    """As on the Play page, a tile changed on a photo of the turn goes into the session's memory, so
    later photos read a tile that looks the same as the player set it."""
    from dataclasses import replace

    from app import tile_profiles
    from tests.test_app_tiles import _sample

    def read(image, kind="table", rules=None, profile=None, memory=None):
        reading = unsure_tables(image, kind, rules)
        return replace(reading, samples=tuple(_sample(t.tile, i) for i, t in enumerate(reading.tiles)))

    at = check_turn_from_photos(monkeypatch, read)
    at.selectbox(key=turn_key(at, "end", "new_tile_1_0")).set_value(parse_tile("k5"))
    at.button(key=turn_key(at, "end", "change")).click().run()
    memory = at.session_state[tile_profiles.MEMORY]
    assert (memory.changed_count, memory.removed_count) == (1, 0)
    assert memory.labels.tolist() == [parse_tile("k5").index]
    assert "Tiles you changed or added this session: 1. In later photos a tile that looks the same is read as you set it." in texts(at.caption)


def test_fixes_that_make_the_end_another_table_are_a_message_and_undo_brings_the_verdict_back(monkeypatch):
    """Removing most of the end's tiles leaves two readings that share too few tiles: the page says
    the turn cannot be checked (no verdict, no *Next turn*), and keeps the editor to undo it."""
    at = check_turn_from_photos(monkeypatch, unsure_tables)
    for _ in range(3):  # r4, r5, r6: each time the first tile of meld 1
        at.selectbox(key=turn_key(at, "end", "place")).set_value((0, 0)).run()
        at.button(key=turn_key(at, "end", "remove")).click().run()
        assert not at.exception, at.exception
    assert at.session_state[TURN_END].table.melds[0] == (parse_tile("r7"),)
    assert texts(at.error) == [
        "The turn cannot be checked: the two readings look like different tables: only 2 of the 6 tiles on the "
        "table at the start of the turn are on it at the end."
    ]
    assert not at.success and not [b for b in at.button if b.key == "turn_next"]
    at.button(key="turn_undo_end").click().run()
    assert "Taken off the table: black 5." in " ".join(error_lines(at))


def test_with_a_tile_profile_chosen_the_turn_page_shows_one_teaching_switch_and_a_fix_teaches_it(monkeypatch, private_database):
    """Three photos, three fix editors, one switch (its key is the Play page's: one choice for the
    session); with it on, a tile changed at the end of the turn goes into the profile."""
    from dataclasses import replace

    from app import tile_profiles
    from tests.test_app_tiles import READER, _sample, _store

    def read(image, kind="table", rules=None, profile=None, memory=None):
        reading = unsure_tables(image, kind, rules)
        return replace(reading, samples=tuple(_sample(t.tile, i) for i, t in enumerate(reading.tiles)))

    monkeypatch.setattr("vision.reader.load_reader", lambda weights=None: object())  # no model needed
    monkeypatch.setattr("vision.reader.reader_fingerprint", lambda reader: READER)
    store = _store(private_database.parent)  # the app's data folder
    store.save("Ours", [_sample(parse_tile("r1"))], READER)
    at = check_turn_from_photos(monkeypatch, read)
    at.file_uploader(key="turn_rack_photo_upload").set_value(("rack.png", photo(120), "image/png")).run()
    at.session_state[tile_profiles.ACTIVE] = "Ours"
    at.button(key="turn_check").click().run()
    assert not at.exception, at.exception
    assert [t.key for t in at.toggle if t.key == tile_profiles.TEACH] == [tile_profiles.TEACH]
    at.toggle(key=tile_profiles.TEACH).set_value(True).run()
    at.selectbox(key=turn_key(at, "end", "new_tile_1_0")).set_value(parse_tile("k5"))
    at.button(key=turn_key(at, "end", "change")).click().run()
    assert not at.exception, at.exception
    assert [s.tile.short for s in store.load("Ours").samples] == ["r1", "k5"]
    assert "The tile profile 'Ours' learnt this tile." in texts(at.success)


def turn_with_decodable_readings(monkeypatch, start, end=None, rack=None):
    """The Turn page after recording the dark photo (read as ``start``, rows of probabilities) and
    checking the bright one (``end``) with a rack photo (``rack``, when given), each decoded as the
    reader would leave it (tests/test_decode_together.py)."""
    from tests.test_decode_together import _reading

    def read(image, kind="table", rules=None, profile=None, memory=None):
        if kind == "rack":
            return _reading(rack, ReadingKind.RACK)
        return _reading(start if int(np.asarray(image).mean()) < 100 else end, ReadingKind.TABLE)

    return check_turn_from_photos(monkeypatch, read, rack_photo=rack is not None)


def test_the_end_photo_is_read_with_the_start_as_the_play_page_reads_the_next_turns_photo(monkeypatch):
    """No tile may leave the table: a tile of the end photo read first as a red 7 and next, nearly as
    likely, as the orange 7 the start held there is read as that orange 7 (marked), so the turn is
    legal instead of "orange 7 taken off"."""
    from tests.test_decode_together import _probs, _sure

    start = [[_sure("k7"), _sure("b7"), _sure("o7")], [_sure(n) for n in ("r1", "r2", "r3")], [_sure(n) for n in ("k9", "k10", "k11")]]
    end = [[_sure("k7"), _sure("b7"), _probs(("r7", 0.55), ("o7", 0.4))], *start[1:], [_sure(n) for n in ("b4", "b5", "b6")]]
    at = turn_with_decodable_readings(monkeypatch, start, end)
    assert texts(at.success) == ["The turn is legal. Played: blue 4, blue 5, blue 6."]
    assert at.session_state[TURN_END].table.table_rack.melds[0][2].tile == parse_tile("o7")


def test_an_end_photo_that_is_not_plainly_the_start_table_is_read_alone(monkeypatch):
    """An end photo holding only 5 of the start's 9 tiles as read (enough to check the turn, too few
    to take it for the same table) lends the reading nothing: the red 7 stays, and the turn is
    judged on what the camera saw."""
    from tests.test_decode_together import _probs, _sure

    start = [[_sure("k7"), _sure("b7"), _sure("o7")], [_sure(n) for n in ("r1", "r2", "r3")], [_sure(n) for n in ("k9", "k10", "k11")]]
    end = [[_sure("k7"), _sure("b7"), _probs(("r7", 0.55), ("o7", 0.4))], start[1], [_sure(n) for n in ("o10", "o11", "o12")]]
    at = turn_with_decodable_readings(monkeypatch, start, end)
    assert at.session_state[TURN_END].table.table_rack.melds[0][2].tile == parse_tile("r7")
    assert "Taken off the table: black 9, black 10, black 11, orange 7." in " ".join(error_lines(at))


def test_the_rack_photo_is_read_with_the_start_of_the_turn_for_the_copy_limits(monkeypatch):
    """The start holds both red 7s: a rack tile read red 7 first and red 1 next, nearly as likely, is
    the red 1 (one game holds two of each), so the red 1 played from it came from the rack."""
    from tests.test_decode_together import _probs, _sure

    start = [[_sure("r7"), _sure("r8"), _sure("r9")], [_sure("r7"), _sure("k7"), _sure("b7")]]
    end = [[_sure("r7"), _sure("r8"), _sure("r9")], [_sure("r7"), _sure("k7"), _sure("b7")], [_sure("r1"), _sure("r2"), _sure("r3")]]
    rack = [[_probs(("r7", 0.55), ("r1", 0.4)), _sure("r2"), _sure("r3"), _sure("o5")]]
    at = turn_with_decodable_readings(monkeypatch, start, end, rack)
    assert at.session_state[TURN_END].rack.rack[0] == parse_tile("r1")
    assert texts(at.success) == ["The turn is legal. Played: red 1, red 2, red 3."]
