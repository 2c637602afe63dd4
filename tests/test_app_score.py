"""The Score page through AppTest: games, rounds, edits, deletes, CSV, and a restart."""

from __future__ import annotations

import pytest

from app.storage import ScoreStore
from tests.app_helpers import start_app, texts

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py


def by_suffix(widgets, suffix: str):
    (match,) = [w for w in widgets if w.key and w.key.endswith(suffix)]
    return match


def new_game(at, *players: str):
    for i, name in enumerate(players):
        at.text_input(key=f"score_new_player_{i}").input(name)
    (start,) = [b for b in at.button if b.label == "Start the game"]
    start.click().run()
    assert not at.exception, at.exception
    return at


def play_round(at, ending: str, racks: dict[int, str], save: bool = True):
    """Fill the round form (``racks`` by seat index), score it, and save it."""
    by_suffix(at.radio, "_end").set_value(ending).run()
    for seat, tiles in racks.items():
        by_suffix(at.text_input, f"_rack_{seat}").input(tiles)
    by_suffix(at.button, "_score").click().run()
    assert not at.exception, at.exception
    if save:
        by_suffix(at.button, "_save").click().run()
        assert not at.exception, at.exception
    return at


def totals(at) -> dict[str, int]:
    return {m.label.replace(" ★", ""): int(m.value) for m in at.metric}


def test_a_scored_round_is_saved_shown_in_totals_and_survives_a_restart(private_database):
    at = new_game(start_app("score"), "Ann", "Bob", "Cy")
    play_round(at, "Ann", {1: "r7 j", 2: "k3"}, save=False)
    html = "\n".join(m.value for m in at.markdown)
    assert 'title="joker"' in html and "Bob: -37" in html and "Ann: +40 ★" in html
    assert "The round balances: winners gain 40, the others pay 40." in texts(at.caption)
    by_suffix(at.button, "_save").click().run()
    assert texts(at.success) == ["Round saved."]
    assert totals(at) == {"Ann": 40, "Bob": -37, "Cy": -3}
    assert texts(at.subheader)[0] == "Round 2"
    racks = [w for w in at.text_input if w.key and "_rack_" in w.key]
    assert racks and all(w.value == "" for w in racks)  # a fresh form for the next round
    sheet = at.dataframe[0].value
    assert list(sheet["Ann"]) == [40] and list(sheet["Bob total"]) == [-37]

    restarted = start_app("score")  # a new session, a new script run, the same database file
    assert totals(restarted) == {"Ann": 40, "Bob": -37, "Cy": -3}
    assert ScoreStore(private_database).sheet(1).totals() == {"Ann": 40, "Bob": -37, "Cy": -3}


def test_running_totals_chart_and_csv_export():
    at = new_game(start_app("score"), "Ann", "Bob")
    play_round(at, "Ann", {1: "r7 j"})
    play_round(at, "__pool__", {0: "o5", 1: "k1"})
    assert totals(at) == {"Ann": 33, "Bob": -33}
    sheet = at.dataframe[0].value
    assert list(sheet["Round"]) == [1, 2]
    assert list(sheet["Outcome"]) == ["Ann went out", "pool exhausted"]
    assert list(sheet["Ann total"]) == [37, 33]
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")  # the line chart is drawn
    assert at.code[0].value.splitlines() == [
        "Round,Outcome,Ann score,Bob score,Ann total,Bob total",
        "1,Ann went out,37,-37,37,-37",
        "2,pool exhausted,-4,4,33,-33",
    ]
    assert at.get("download_button")


def test_edit_a_past_round_recomputes_the_totals():
    at = new_game(start_app("score"), "Ann", "Bob")
    play_round(at, "Ann", {1: "r7"})
    play_round(at, "Bob", {0: "k2"})
    assert totals(at) == {"Ann": 5, "Bob": -5}
    at.selectbox(key="score_pick_round").set_value(1).run()  # round ids start at 1
    at.button(key="score_edit").click().run()
    assert texts(at.subheader)[0] == "Edit round 1"
    assert by_suffix(at.text_input, "_rack_1").value == "r7"  # the round is loaded for editing
    play_round(at, "Ann", {1: "r7 r8"})
    assert texts(at.success) == ["Round updated."]
    assert totals(at) == {"Ann": 13, "Bob": -13}
    assert list(at.dataframe[0].value["Round"]) == [1, 2]
    assert texts(at.subheader)[0] == "Round 3"


def test_cancel_editing_keeps_the_round():
    at = new_game(start_app("score"), "Ann", "Bob")
    play_round(at, "Ann", {1: "r7"})
    at.button(key="score_edit").click().run()
    by_suffix(at.button, "_cancel").click().run()
    assert texts(at.subheader)[0] == "Round 2"
    assert totals(at) == {"Ann": 7, "Bob": -7}


def test_delete_a_round_asks_first_then_recomputes():
    at = new_game(start_app("score"), "Ann", "Bob")
    play_round(at, "Ann", {1: "r7"})
    play_round(at, "Bob", {0: "k2"})
    at.selectbox(key="score_pick_round").set_value(1).run()
    at.button(key="score_delete").click().run()
    assert texts(at.warning) == ["Delete round 1? The totals will be recomputed."]
    at.button(key="score_delete_no").click().run()
    assert totals(at) == {"Ann": 5, "Bob": -5}
    at.selectbox(key="score_pick_round").set_value(1).run()
    at.button(key="score_delete").click().run()
    at.button(key="score_delete_yes").click().run()
    assert texts(at.success) == ["Round 1 deleted."]
    assert totals(at) == {"Ann": -2, "Bob": 2}
    assert list(at.dataframe[0].value["Round"]) == [1]


def test_bad_rack_and_bad_names_are_messages_and_nothing_is_saved(private_database):
    at = start_app("score")
    at = new_game(at, "Ann", "", "Ann")
    assert texts(at.error) == ["Cannot start this game: duplicate player names: Ann"]
    at = new_game(at, "Solo")
    assert texts(at.error) == ["Cannot start this game: a game has 2 to 4 players, not 1"]
    at = new_game(at, "Jos\u00e9", "Jose\u0301", "ann", "Ann  ")  # NFC and NFD, case and spaces
    assert texts(at.error) == ["Cannot start this game: duplicate player names: Jos\u00e9, ann"]
    at = new_game(at, "Ann", "Bob")
    play_round(at, "Ann", {1: "r7 q9"}, save=False)
    assert texts(at.error) == ["A rack cannot be read: cannot read tile 'q9' (unknown colour)"]
    play_round(at, "Ann", {1: "r7 r7 r7"}, save=False)
    assert texts(at.error)[0].startswith("This round cannot be scored: Bob's rack is impossible")
    assert by_suffix(at.text_input, "_rack_1").value == "r7 r7 r7"  # the typing is kept
    assert ScoreStore(private_database).rounds(1) == ()
    assert texts(at.info) == ["No rounds yet."]


def test_games_are_listed_and_keep_their_own_rules():
    at = start_app("score")
    at.selectbox(key="rules_preset").set_value("opening-50").run()
    new_game(at, "Ann", "Bob")
    at.selectbox(key="rules_preset").set_value("standard").run()
    new_game(at, "Cy", "Di", "Ed", "Flo")
    game = at.selectbox(key="score_game")
    assert game.options[0].startswith("Game 2 · Cy, Di, Ed, Flo")
    assert game.options[1].startswith("Game 1 · Ann, Bob")
    assert "Rules: Standard · initial meld 30 · 2 jokers" in texts(at.caption)
    game.set_value(1).run()
    assert "Rules: Initial meld 50 · initial meld 50 · 2 jokers" in texts(at.caption)
    assert by_suffix(at.radio, "_end").options == ["Ann went out", "Bob went out", "pool exhausted"]


def test_a_rack_photo_that_is_not_an_image_is_a_message():
    at = new_game(start_app("score"), "Ann", "Bob")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.file_uploader, "_photo_1_upload").set_value(("rack.png", b"\x89PNG broken", "image/png")).run()
    by_suffix(at.button, "_read_1").click().run()
    assert not at.exception
    (error,) = texts(at.error)
    assert error.startswith("The photo cannot be read: ")


def test_typed_play_inputs_survive_a_trip_to_the_score_page():
    at = start_app()
    at.text_area(key="play_table_text").input("r4 r5 r6")
    at.text_area(key="play_rack_text").input("r7").run()
    at.switch_page("views/score.py").run()
    at.switch_page("views/play.py").run()
    assert at.text_area(key="play_table_text").value == "r4 r5 r6"
    assert at.text_area(key="play_rack_text").value == "r7"


def test_a_rack_photo_is_read_shown_and_scored(monkeypatch):
    import io

    import numpy as np
    from PIL import Image

    import app.photos
    import vision
    from tests.test_app_play import fake_annotate, fake_read

    monkeypatch.setattr(vision, "read", fake_read, raising=False)
    monkeypatch.setattr(vision, "annotate", fake_annotate, raising=False)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    photo = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(photo, format="PNG")
    at = new_game(start_app("score"), "Ann", "Bob")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.file_uploader, "_photo_1_upload").set_value(("rack.png", photo.getvalue(), "image/png")).run()
    by_suffix(at.button, "_read_1").click().run()
    assert not at.exception, at.exception
    assert by_suffix(at.text_input, "_rack_1").value == "r7"  # the reading, ready to fix by typing
    assert len(at.image) == 1
    assert 'title="red 7"' in "\n".join(m.value for m in at.markdown)
    by_suffix(at.button, "_score").click().run()
    by_suffix(at.button, "_save").click().run()
    assert totals(at) == {"Ann": 7, "Bob": -7}


def read_bobs_rack_photo(monkeypatch, read):
    """A game of Ann and Bob that Ann won, Bob's rack read from a photo by ``read``."""
    from tests.test_app_play import use_fake_reader

    photo = use_fake_reader(monkeypatch, read)
    at = new_game(start_app("score"), "Ann", "Bob")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.file_uploader, "_photo_1_upload").set_value(("rack.png", photo, "image/png")).run()
    by_suffix(at.button, "_read_1").click().run()
    assert not at.exception, at.exception
    return at


def test_an_unsure_tile_read_on_a_rack_is_named_until_the_scorekeeper_fixes_the_line(monkeypatch):
    """A phantom joker saved unchecked costs its player 30 points: the page names it before saving."""
    from solver.tiles import JOKER, parse_tile
    from tests.test_app_play import read_tile
    from vision.reading import Reading, ReadingKind

    def rack_with_unsure_joker(image, kind="table", rules=None, profile=None, memory=None):
        tiles = (read_tile(parse_tile("r7")), read_tile(JOKER, confidence=0.8, uncertain=True))
        return Reading(tiles, ((0, 1),), kind=ReadingKind.RACK)

    at = read_bobs_rack_photo(monkeypatch, rack_with_unsure_joker)
    assert by_suffix(at.text_input, "_rack_1").value == "r7 j"
    warning = "The camera was unsure of joker. Check them against the photo before you score the round."
    assert [w.value for w in at.warning] == [warning.replace(".", "\\.")]
    by_suffix(at.text_input, "_rack_1").set_value("r7").run()  # checked: there was no joker
    assert not at.warning
    by_suffix(at.button, "_score").click().run()
    by_suffix(at.button, "_save").click().run()
    assert totals(at) == {"Ann": 7, "Bob": -7}


def test_a_rack_photo_is_read_as_soon_as_it_is_uploaded(monkeypatch):
    import time

    from tests.test_app_play import use_counting_reader

    photo, calls = use_counting_reader(monkeypatch)
    at = new_game(start_app("score"), "Ann", "Bob")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.file_uploader, "_photo_1_upload").set_value(("rack.png", photo, "image/png")).run()
    deadline = time.monotonic() + 30
    while not calls and time.monotonic() < deadline:  # on the worker thread (app/photo_prefetch.py)
        time.sleep(0.05)
    assert calls == ["rack"]
    by_suffix(at.button, "_read_1").click().run()
    assert not at.exception, at.exception
    assert calls == ["rack"]  # the button took that reading
    assert by_suffix(at.text_input, "_rack_1").value == "r7"


def test_the_chosen_game_survives_a_trip_to_the_play_page():
    at = new_game(start_app("score"), "Ann", "Bob")
    new_game(at, "Cy", "Di")
    at.selectbox(key="score_game").set_value(1).run()
    at.switch_page("views/play.py").run()
    at.switch_page("views/score.py").run()
    assert at.selectbox(key="score_game").value == 1


READ_ONLY_APP = """
import json, os, sys
from tests.app_helpers import start_app, texts

at = start_app("score")
report = {"warnings": texts(at.warning), "metrics": {m.label: m.value for m in at.metric},
          "exception": [str(e) for e in at.exception]}
for i, name in enumerate(["Dee", "Eve"]):
    at.text_input(key=f"score_new_player_{i}").input(name)
next(b for b in at.button if b.label == "Start the game").click().run()
report["errors"] = texts(at.error)
print(json.dumps(report))
"""


def test_a_read_only_database_shows_the_sheet_and_says_why_nothing_can_be_saved(private_database, tmp_path):
    """A data folder that cannot be written (as on a shared or backed-up drive): the saved
    sheet is shown, with the reason nothing can be saved, and saving says so too."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from solver.rules import STANDARD
    from solver.scoring import PlayerRack, WentOut, score_round
    from solver.tiles import parse_tiles
    from tests.test_storage import _as_unprivileged

    store = ScoreStore(private_database)
    store.create_game(["Ann", "Bob"], STANDARD)
    racks = (PlayerRack("Ann", ()), PlayerRack("Bob", parse_tiles("r7")))
    store.add_round(1, racks, score_round(racks, WentOut("Ann")))
    root = Path(__file__).resolve().parents[1]
    os.chmod(tmp_path, 0o555)
    try:
        run = subprocess.run(
            _as_unprivileged([sys.executable, "-c", READ_ONLY_APP]), cwd=root,
            env=os.environ | {"PYTHONPATH": str(root), "RUMMIKUB_DATA_DIR": str(tmp_path)},
            capture_output=True, text=True, timeout=300,
        )
    finally:
        os.chmod(tmp_path, 0o755)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.splitlines()[-1])
    assert report["exception"] == []
    assert report["metrics"] == {"Ann ★": "7", "Bob": "-7"}
    (warning,) = report["warnings"]
    assert "cannot be written" in warning and "nothing can be saved" in warning
    (error,) = report["errors"]
    assert error.startswith("The game could not be saved: ") and "cannot be written" in error
    assert [g.players for g in ScoreStore(private_database).games()] == [("Ann", "Bob")]


def test_a_rack_photo_of_small_tiles_says_how_to_take_a_better_one(monkeypatch):
    from solver.tiles import parse_tile
    from tests.test_app_play import read_tile
    from vision.reading import Reading, ReadingKind, small_tiles_note

    def small_rack(image, kind="table", rules=None, profile=None, memory=None):
        tiles = tuple(read_tile(parse_tile(n), box=(20.0 * i, 0.0, 20.0 * i + 18.0, 25.0)) for i, n in enumerate(("r7", "b2")))
        return Reading(tiles, ((0, 1),), kind=ReadingKind.RACK)

    at = read_bobs_rack_photo(monkeypatch, small_rack)
    assert small_tiles_note(25.0, "en") in [c.value for c in at.caption]


def test_a_blurred_rack_photo_asks_for_another(monkeypatch):
    from solver.tiles import parse_tile
    from tests.test_app_play import read_tile
    from vision.reading import Reading, ReadingKind, blurred_photo_note

    def blurred_rack(image, kind="table", rules=None, profile=None, memory=None):
        tiles = tuple(read_tile(parse_tile(n), box=(80.0 * i, 0.0, 80.0 * i + 70.0, 100.0)) for i, n in enumerate(("r7", "b2")))
        return Reading(tiles, ((0, 1),), kind=ReadingKind.RACK, blur=0.11)

    at = read_bobs_rack_photo(monkeypatch, blurred_rack)
    assert blurred_photo_note(0.11, "en") in [c.value for c in at.caption]


def test_a_rack_photo_is_read_with_the_other_racks_of_the_round(monkeypatch):
    """Bob's line holds both jokers; Cy's photo shows a tile the reader takes for a joker first and
    a blue 12 next: the round's racks come from one set, so Cy's tile is the blue 12, marked unsure."""
    from solver.rules import STANDARD
    from tests.test_app_play import use_fake_reader
    from tests.test_decode_together import _probs, _reading
    from vision.reading import ReadingKind

    cys_rack = _reading([[_probs(("j", 0.55), ("b12", 0.4)), _probs(("r3", 0.99))]], ReadingKind.RACK)
    assert [t.tile.short for t in cys_rack.tiles] == ["j", "r3"] and STANDARD.jokers == 2
    photo = use_fake_reader(monkeypatch, lambda image, kind="rack", rules=None, profile=None, memory=None: cys_rack)
    at = new_game(start_app("score"), "Ann", "Bob", "Cy")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.text_input, "_rack_1").set_value("j j k5").run()
    by_suffix(at.file_uploader, "_photo_2_upload").set_value(("rack.png", photo, "image/png")).run()
    by_suffix(at.button, "_read_2").click().run()
    assert not at.exception, at.exception
    assert by_suffix(at.text_input, "_rack_2").value == "b12 r3"
    assert "blue 12" in "\n".join(w.value for w in at.warning)  # unsure: named before the round is saved


def test_a_rack_tile_the_camera_left_out_is_added_to_the_typed_line_with_one_tap(monkeypatch):
    """A tile the gate dropped would go unscored: the page offers it, and one tap types it."""
    from solver.tiles import parse_tile
    from tests.test_app_play import read_tile
    from vision.reading import LeftOutTile, Reading, ReadingKind

    def rack_with_a_tile_left_out(image, kind="table", rules=None, profile=None, memory=None):
        tiles = (read_tile(parse_tile("r7")), read_tile(parse_tile("k2"), box=(50.0, 0.0, 95.0, 60.0)))
        left_out = (LeftOutTile(parse_tile("o11"), (100.0, 0.0, 145.0, 60.0), 0.9, 0.7, beside=1),)
        return Reading(tiles, ((0, 1),), kind=ReadingKind.RACK, doubtful_boxes=(left_out[0].box,), left_out=left_out)

    at = read_bobs_rack_photo(monkeypatch, rack_with_a_tile_left_out)
    assert by_suffix(at.text_input, "_rack_1").value == "r7 k2"
    offers = [b for b in at.button if "_offer_1_" in str(b.key)]
    assert [b.label for b in offers] == ["Add 1: orange 11?"]
    offers[0].click().run()
    assert not at.exception, at.exception
    assert by_suffix(at.text_input, "_rack_1").value == "r7 k2 o11"
    assert not [b for b in at.button if "_offer_1_" in str(b.key)]  # offered once
