"""The My tiles page, the profile every page's photos are read with, and corrections that teach it (AppTest)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image

from app.profile_store import CORRECTION, REMOVAL, SUFFIX, ProfileStore
from solver.i18n import Message
from solver.tiles import Tile, parse_tile
from tests.test_app_play import edit, read_tile
from tests.app_helpers import all_markdown, start_app
from vision.calibration import CalibrationError, PairedPhoto
from vision.profiles import NoTileSample, TileSample
from vision.reading import Reading, ReadingKind

READER = "fake reader"
#: What the list adds to a profile too small to learn its set's inks (vision.ink_colour).
TOO_FEW_INKS = "; too few tiles of some colour to learn the set's inks (3 of each are needed)"


@pytest.fixture(autouse=True)
def private_data(tmp_path, monkeypatch):
    """A private data folder, and a stand-in for the reader's model file (no models needed)."""
    monkeypatch.setenv("RUMMIKUB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr("vision.reader.load_reader", lambda weights=None: object())
    monkeypatch.setattr("vision.reader.reader_fingerprint", lambda reader: READER)
    return tmp_path


def shown(elements) -> list[str]:
    """The texts of message boxes as the player reads them (Markdown escapes removed)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in elements]


def _store(tmp_path) -> ProfileStore:
    return ProfileStore(tmp_path / "profiles")


def _png(grey: int = 90) -> bytes:
    photo = io.BytesIO()
    Image.fromarray(np.full((48, 64, 3), grey, np.uint8)).save(photo, format="PNG")
    return photo.getvalue()


def _sample(tile: Tile, seed: int = 0) -> TileSample:
    rng = np.random.default_rng(seed)
    box = (10.0 * seed, 0.0, 10.0 * seed + 9.0, 9.0)  # side by side, as a photo's tiles lie
    return TileSample(tile, rng.integers(0, 255, (4, 64, 64, 3), dtype=np.uint8), rng.normal(0, 1, 1280), box)


def _fake_collect(fail_on: int | None = None, put_back: tuple[int, ...] = (), left_out: int = 0):
    """A stand-in for the detector and reader: every photo fits the layout (photo ``fail_on`` does not),
    with the tiles at positions ``put_back`` put back and ``left_out`` boxes left out."""
    calls = []

    def collect(image, layout, *, progress=None, **_):
        calls.append(layout)
        if progress:
            progress(0.5, "detect")
        if len(calls) == fail_on:
            row = Message("row {row} has {found} tiles where the layout has {expected}", {"row": 2, "found": 12, "expected": 13})
            raise CalibrationError("the rows do not match the layout: {rows}", rows=[row])
        boxes = tuple(NoTileSample(np.full((4, 64, 64, 3), 30 * k, np.uint8), np.ones(1280), np.zeros(1280)) for k in range(left_out))
        return PairedPhoto(tuple(_sample(t, i) for i, t in enumerate(layout.tiles)), put_back, boxes)

    return collect


def test_the_page_draws_the_default_layout_as_tiles():
    at = start_app("tiles")
    html = all_markdown(at)
    assert html.count('class="rk-tile') == 54
    for n in range(1, 6):
        assert f'<span class="rk-label">Row {n}</span>' in html
    assert 'title="black 13"' in html and 'title="joker"' in html
    assert at.selectbox(key="tiles_active_profile").value == ""


def test_a_typed_layout_is_drawn_and_one_that_is_not_notation_is_a_message():
    at = start_app("tiles")
    at.text_input(key="tiles_layout").input("r1 r2 r3 | o1 o2").run()
    assert all_markdown(at).count('class="rk-tile') == 5
    at.text_input(key="tiles_layout").input("r1 r2 | x9").run()
    assert shown(at.error) == ["the layout is not valid tile notation: unknown colour ('x9')"]
    assert not [b for b in at.button if b.key == "tiles_read"]


def test_photos_are_read_shown_as_labelled_crops_and_saved_only_when_confirmed(monkeypatch, private_data):
    monkeypatch.setattr("vision.calibration.collect_samples", _fake_collect())
    at = start_app("tiles")
    at.text_input(key="tiles_layout").input("r1 r2 r3 | j")
    at.text_input(key="tiles_name").input("Our set")
    at.file_uploader(key="tiles_photos").set_value([("a.png", _png(), "image/png"), ("b.png", _png(), "image/png")])
    at.button(key="tiles_read").click().run()
    assert not at.exception and shown(at.error) == []
    assert len(at.image) == 4  # two rows per photo, two photos
    assert _store(private_data).listing().profiles == ()  # nothing saved before confirming
    at.button(key="tiles_save").click().run()
    assert shown(at.success) == ["Saved 8 tile(s) to the profile 'Our set'; it is now used for every photo."]
    stored = _store(private_data).load("Our set")
    assert [s.tile.short for s in stored.samples] == ["r1", "r2", "r3", "j"] * 2 and stored.readers == (READER,) * 8
    assert at.selectbox(key="tiles_active_profile").value == "Our set"
    assert not [b for b in at.button if b.key == "tiles_save"]


def test_tiles_put_back_are_marked_and_boxes_left_out_are_shown_before_saving(monkeypatch, private_data):
    monkeypatch.setattr("vision.calibration.collect_samples", _fake_collect(put_back=(2,), left_out=1))
    at = start_app("tiles")
    at.text_input(key="tiles_layout").input("r1 r2 r3 | j")
    at.text_input(key="tiles_name").input("rack set")
    at.file_uploader(key="tiles_photos").set_value([("a.png", _png(), "image/png")])
    at.button(key="tiles_read").click().run()
    assert not at.exception and shown(at.error) == []
    assert len(at.image) == 3  # two rows, and the box left out
    captions = [c for c in at.caption.values if "put back" in c or "Left out" in c]
    assert captions == [
        'Tiles marked "put back" were doubted by the reader and taken because the layout has a tile there: check them.',
        "Left out as no tile of the layout (the end of a rack, something beside the tiles): 1",
    ]
    at.button(key="tiles_save").click().run()
    stored = _store(private_data).load("rack set")
    assert [s.tile.short for s in stored.samples] == ["r1", "r2", "r3", "j"]
    assert len(stored.not_tiles) == 1 and stored.not_tile_origins == ("calibration",)  # kept as no tile of the set


def test_a_blurred_or_small_calibration_photo_says_so_above_its_tiles(monkeypatch, private_data):
    """Each photo's tiles are checked for size and blur, and only the photo concerned says so."""
    from dataclasses import replace

    from vision.reading import blurred_photo_note, small_tiles_note

    looks = iter([(80.0, 0.15), (80.0, 0.01), (20.0, 0.0)])  # blurred, sharp, small tiles

    def collect(image, layout, *, progress=None, **_):
        length, blur = next(looks)
        samples = tuple(replace(_sample(t, i), box=(100.0 * i, 0.0, 100.0 * i + length * 0.7, length)) for i, t in enumerate(layout.tiles))
        return PairedPhoto(samples, blur=blur)

    monkeypatch.setattr("vision.calibration.collect_samples", collect)
    at = start_app("tiles")
    at.text_input(key="tiles_layout").input("r1 r2 r3 | j")
    at.text_input(key="tiles_name").input("our set")
    at.file_uploader(key="tiles_photos").set_value([(f"{n}.png", _png(), "image/png") for n in "abc"])
    at.button(key="tiles_read").click().run()
    assert not at.exception and shown(at.error) == []
    assert shown(at.warning) == [blurred_photo_note(0.15, "en"), small_tiles_note(20.0, "en")]
    at.button(key="tiles_save").click().run()
    assert len(_store(private_data).load("our set").samples) == 12  # saved all the same


def test_a_photo_that_does_not_fit_the_layout_says_where_and_saves_nothing(monkeypatch, private_data):
    monkeypatch.setattr("vision.calibration.collect_samples", _fake_collect(fail_on=2))
    at = start_app("tiles")
    at.text_input(key="tiles_name").input("set")
    at.file_uploader(key="tiles_photos").set_value([("a.png", _png(), "image/png"), ("b.png", _png(), "image/png")])
    at.button(key="tiles_read").click().run()
    assert shown(at.error) == [
        "Photo 2 (b.png): the rows do not match the layout: row 2 has 12 tiles where the layout has 13. Nothing was saved."
    ]
    assert not [b for b in at.button if b.key == "tiles_save"] and _store(private_data).listing().profiles == ()


def test_an_unreadable_photo_and_an_unsafe_name_save_nothing(monkeypatch, private_data):
    monkeypatch.setattr("vision.calibration.collect_samples", _fake_collect())
    at = start_app("tiles")
    at.text_input(key="tiles_name").input("../../elsewhere")
    at.file_uploader(key="tiles_photos").set_value([("a.png", _png(), "image/png")])
    at.button(key="tiles_read").click().run()
    assert "cannot name a tile profile" in shown(at.error)[0]
    at.text_input(key="tiles_name").input("set")
    at.file_uploader(key="tiles_photos").set_value([("a.png", b"not a photo", "image/png")])
    at.button(key="tiles_read").click().run()
    assert shown(at.error)[0].startswith("Photo 1 (a.png): not an image")
    assert _store(private_data).listing().profiles == () and not (private_data / "profiles").exists()


def test_saved_profiles_are_listed_chosen_and_deleted_and_a_damaged_file_is_a_warning(private_data):
    store = _store(private_data)
    store.save("Alpha", [_sample(parse_tile("r1"))], READER)
    store.save("Beta", [_sample(parse_tile("r2")), _sample(parse_tile("j"))], READER)
    (store.root / ("gamma" + SUFFIX)).write_bytes(b"damaged")
    at = start_app("tiles")
    assert shown(at.warning) == ["the tile profile file gamma.tiles.npz is damaged or not a tile profile; it was skipped"]
    assert at.selectbox(key="tiles_active_profile").options == ["none: the reader alone", "Alpha", "Beta"]
    assert [t.value for t in at.text] == [
        "Alpha: 1 tile(s) of 1 kind(s), 0 from corrections" + TOO_FEW_INKS,
        "Beta: 2 tile(s) of 2 kind(s), 0 from corrections" + TOO_FEW_INKS,
    ]
    at.selectbox(key="tiles_active_profile").set_value("Alpha").run()
    at.button(key="tiles_delete_0").click().run()
    assert shown(at.success) == ["Deleted the tile profile 'Alpha'."]
    assert store.names() == ("Beta",) and at.selectbox(key="tiles_active_profile").value == ""


def test_a_profile_of_every_colour_learns_its_inks_and_the_list_says_nothing_of_them(private_data):
    store = _store(private_data)
    store.save("Full", [_sample(parse_tile(f"{c}{n}")) for c in "kbor" for n in (1, 2, 3)], READER)
    store.save("Three colours", [_sample(parse_tile(f"{c}{n}")) for c in "bor" for n in (1, 2, 3)], READER)
    at = start_app("tiles")
    assert [t.value for t in at.text] == [
        "Full: 12 tile(s) of 12 kind(s), 0 from corrections",
        "Three colours: 9 tile(s) of 9 kind(s), 0 from corrections" + TOO_FEW_INKS,
    ]


def test_the_boxes_a_profile_holds_as_no_tile_are_listed_and_can_be_forgotten(private_data):
    store = _store(private_data)
    store.save("Alpha", [_sample(parse_tile("r1"))], READER)
    box = NoTileSample(np.zeros((4, 64, 64, 3), np.uint8), np.ones(1280), np.zeros(1280), (1.0, 2.0, 3.0, 4.0))
    store.save("Beta", [_sample(parse_tile("r2"))], READER, not_tiles=[box, box])
    at = start_app("tiles")
    assert [t.value for t in at.text] == [
        "Alpha: 1 tile(s) of 1 kind(s), 0 from corrections" + TOO_FEW_INKS,
        "Beta: 1 tile(s) of 1 kind(s), 0 from corrections; 2 box(es) that are no tile" + TOO_FEW_INKS,
    ]
    assert [b.key for b in at.button if b.key.startswith("tiles_forget_not_tiles")] == ["tiles_forget_not_tiles_1"]
    at.button(key="tiles_forget_not_tiles_1").click().run()
    assert shown(at.success) == ["The tile profile 'Beta' no longer holds any box as no tile."]
    assert store.load("Beta").not_tiles == () and len(store.load("Beta").samples) == 1
    assert not [b for b in at.button if b.key.startswith("tiles_forget_not_tiles")]


# --- the profile on the Play page -------------------------------------------------------------------


def _reader_spy(monkeypatch, table: tuple[str, ...] = ("o4", "o5", "o6"), memories: list | None = None,
                rack: tuple[str, ...] = ("r7",), left_out: tuple = (), rack_left_out: tuple = ()):
    """vision.read (reading ``table`` on a table photo, with the boxes ``left_out`` offered; ``rack``
    on a rack photo, with ``rack_left_out``),
    vision.annotate and the model check replaced; returns the profiles each read got (and puts the
    session memories in ``memories``)."""
    import vision

    import app.photos

    profiles = []

    def read(image, kind="table", rules=None, **options):
        profiles.append(options.get("profile"))
        if memories is not None:
            memories.append(options.get("memory"))
        names = table if kind == "table" else rack
        embeddings = np.stack([_sample(parse_tile(n), i).embedding for i, n in enumerate(names)])
        memory = options.get("memory")
        heard = memory.heard(embeddings) if memory is not None else [-1] * len(names)
        removed = memory.looks_removed(embeddings) if memory is not None else [False] * len(names)
        tiles = tuple(
            read_tile(parse_tile(n), remembered=bool(h >= 0), like_removed=bool(r), uncertain=bool(h >= 0 or r))
            for n, h, r in zip(names, heard, removed)
        )
        samples = tuple(_sample(t.tile, i) for i, t in enumerate(tiles))
        return Reading(tiles, (tuple(range(len(tiles))),), kind=ReadingKind(kind), samples=samples,
                       left_out=left_out if kind == "table" else rack_left_out)

    monkeypatch.setattr(vision, "read", read, raising=False)
    monkeypatch.setattr(vision, "annotate", lambda image, reading, scale=1.0: np.zeros((20, 30, 3), np.uint8), raising=False)
    monkeypatch.setattr(app.photos, "_load_models", lambda: True)
    return profiles


def _on_play_with_profile(private_data) -> tuple[ProfileStore, object]:
    """The profile "Ours" (one red 1) saved and chosen on My tiles, then the Play page after a table
    photo was read."""
    store = _store(private_data)
    store.save("Ours", [_sample(parse_tile("r1"))], READER)
    at = start_app("tiles")
    at.selectbox(key="tiles_active_profile").set_value("Ours").run()
    at.switch_page("views/play.py").run()
    _read_table_photo(at)
    return store, at


def _read_table_photo(at, grey: int = 90):
    at.file_uploader(key="play_table_photo_upload").set_value(("table.png", _png(grey), "image/png")).run()
    at.text_area(key="play_rack_text").input("r7")
    at.button(key="play_read").click().run()
    assert not at.exception, at.exception


def test_the_chosen_profile_reads_every_photo_and_none_leaves_the_reader_alone(monkeypatch, private_data):
    profiles = _reader_spy(monkeypatch)
    _store(private_data).save("Ours", [_sample(parse_tile("j")), _sample(parse_tile("o5"), 1)], READER)
    at = start_app()
    _read_table_photo(at)
    assert profiles == [None]
    at.switch_page("views/tiles.py").run()
    at.selectbox(key="tiles_active_profile").set_value("Ours").run()
    at.switch_page("views/play.py").run()
    _read_table_photo(at)  # (an upload does not outlive its page)
    assert len(profiles) == 2 and profiles[-1] is not None and profiles[-1].name == "Ours" and profiles[-1].size == 2
    at.switch_page("views/score.py").run()  # the choice survives other pages
    at.switch_page("views/tiles.py").run()
    assert at.selectbox(key="tiles_active_profile").value == "Ours"


def test_a_deleted_active_profile_is_a_note_and_the_photo_is_still_read(monkeypatch, private_data):
    profiles = _reader_spy(monkeypatch)
    store = _store(private_data)
    store.save("Ours", [_sample(parse_tile("j"))], READER)
    at = start_app("tiles")
    at.selectbox(key="tiles_active_profile").set_value("Ours").run()
    store.delete("Ours")
    at.switch_page("views/play.py").run()
    _read_table_photo(at)
    assert profiles == [None]
    assert "The tile profile 'Ours' was not used: there is no tile profile named 'Ours'" in shown(at.warning)[0]


def _change_first_tile_to_joker(at):
    at.selectbox(key=edit(at, "place")).set_value((0, 0)).run()
    at.selectbox(key=edit(at, "new_tile_0_0")).set_value(parse_tile("j")).run()
    at.button(key=edit(at, "change")).click().run()
    assert not at.exception, at.exception


def test_a_damaged_active_profile_is_a_note_and_the_photo_is_still_read(monkeypatch, private_data):
    profiles = _reader_spy(monkeypatch)
    store = _store(private_data)
    store.save("Ours", [_sample(parse_tile("j"))], READER)
    at = start_app("tiles")
    at.selectbox(key="tiles_active_profile").set_value("Ours").run()
    store.path("Ours").write_bytes(b"damaged")
    at.switch_page("views/play.py").run()
    _read_table_photo(at)
    assert profiles == [None]
    assert "The tile profile 'Ours' was not used: the tile profile file ours.tiles.npz is damaged" in shown(at.warning)[0]
    assert store.path("Ours").read_bytes() == b"damaged"


def test_a_tile_changed_on_play_teaches_the_active_profile_only_when_switched_on(monkeypatch, private_data):
    _reader_spy(monkeypatch)
    store = _store(private_data)
    store.save("Ours", [_sample(parse_tile("r1"))], READER)
    at = start_app("tiles")
    assert not [t for t in at.toggle if t.key == "play_teach_profile"]
    at.selectbox(key="tiles_active_profile").set_value("Ours").run()
    at.switch_page("views/play.py").run()
    _read_table_photo(at)
    _change_first_tile_to_joker(at)  # switch off: the fix applies, the profile stays as it was
    assert len(store.load("Ours").samples) == 1
    at.toggle(key="play_teach_profile").set_value(True).run()
    at.button(key="play_undo_fixes").click().run()  # back to the reading as it came (the same photo keeps fixes)
    _change_first_tile_to_joker(at)
    stored = store.load("Ours")
    assert [s.tile.short for s in stored.samples] == ["r1", "j"] and stored.origins == ("calibration", CORRECTION)
    assert np.array_equal(stored.samples[1].crops, _sample(parse_tile("o4"), 0).crops)  # the photo's tile, relabelled
    assert shown(at.success)[0] == "The tile profile 'Ours' learnt this tile."
    at.selectbox(key=edit(at, "place")).set_value((0, 1)).run()
    at.selectbox(key=edit(at, "move_to")).set_value(-1)
    at.button(key=edit(at, "move")).click().run()  # a move is no correction
    assert len(store.load("Ours").samples) == 2


def test_a_box_removed_on_play_teaches_the_active_profile_that_it_is_no_tile_only_when_switched_on(monkeypatch, private_data):
    profiles = _reader_spy(monkeypatch, table=("o4", "o5", "o6", "o7", "o8"))
    store, at = _on_play_with_profile(private_data)

    def remove_last():
        at.selectbox(key=edit(at, "place")).set_value((0, 4)).run()
        at.button(key=edit(at, "remove")).click().run()
        assert not at.exception, at.exception

    remove_last()  # switch off: the session remembers it, the profile does not
    assert store.load("Ours").not_tiles == ()
    at.toggle(key="play_teach_profile").set_value(True).run()
    at.button(key="play_undo_fixes").click().run()
    remove_last()
    stored = store.load("Ours")
    assert len(stored.samples) == 1 and stored.not_tile_origins == (REMOVAL,)
    assert np.array_equal(stored.not_tiles[0].crops, _sample(parse_tile("o8"), 4).crops)  # the photo's box
    assert shown(at.success)[0] == (
        "The tile profile 'Ours' learnt that this is no tile: in later photos anything that looks the same is marked "
        "for you to check."
    )
    _read_table_photo(at, grey=91)
    assert profiles[-1].not_tiles.shape == (1, 1280)  # every later photo, in any session, is read with it
    at.switch_page("views/tiles.py").run()
    assert "Ours: 1 tile(s) of 1 kind(s), 0 from corrections; 1 box(es) that are no tile" + TOO_FEW_INKS in [
        t.value for t in at.text
    ]


def test_every_tile_changed_on_play_is_remembered_for_the_session_and_read_with_later_photos(monkeypatch):
    """No profile needed: the change goes into the session's memory, every later photo is read with
    it, the page says how many tiles it remembers, and *Forget* empties it."""
    memories = []
    _reader_spy(monkeypatch, table=("o4", "o5", "o6", "o7", "o8"), memories=memories)
    at = start_app()
    _read_table_photo(at)
    assert memories == [None] and not [b for b in at.button if b.key == "play_forget_changes"]
    _change_first_tile_to_joker(at)
    assert "Tiles you changed or added this session: 1. In later photos a tile that looks the same is read as you set it." in [
        c.value for c in at.caption
    ]
    _read_table_photo(at, grey=91)  # the next turn's photo (the stand-in reads the same tiles: the first is heard)
    assert 'title="orange 4 — unsure; read as you changed a tile like it earlier"' in all_markdown(at)
    memory = memories[-1]
    assert len(memories) == 2 and memory is not None and len(memory) == 1
    assert memory.labels.tolist() == [parse_tile("j").index]
    assert memory.exemplars.shape == (1, 1280)
    at.button(key="play_forget_changes").click().run()
    _read_table_photo(at, grey=92)
    assert memories[-1] is None and not [b for b in at.button if b.key == "play_forget_changes"]


def test_a_box_removed_on_play_is_remembered_and_a_box_like_it_is_marked_in_later_photos(monkeypatch):
    """The player removes a phantom (the last "tile"): the page says it remembers one removed box, the
    next photo's box like it is marked unsure with the reason, and no other tile is."""
    memories = []
    _reader_spy(monkeypatch, table=("o4", "o5", "o6", "o7", "o8"), memories=memories)
    at = start_app()
    _read_table_photo(at)
    at.selectbox(key=edit(at, "place")).set_value((0, 4)).run()
    at.button(key=edit(at, "remove")).click().run()
    assert not at.exception, at.exception
    captions = [c.value for c in at.caption]
    assert "Tiles you removed this session: 1. In later photos anything that looks the same is marked for you to check." in captions
    assert not any(c.startswith("Tiles you changed or added this session") for c in captions)
    _read_table_photo(at, grey=91)
    memory = memories[-1]
    assert memory is not None and (memory.changed_count, memory.removed_count) == (0, 1)
    markdown = all_markdown(at)
    assert 'title="orange 8 — unsure; looks like one you removed earlier: remove it too if it is no tile"' in markdown
    assert all(f'title="orange {n}"' in markdown for n in (4, 5, 6, 7))  # no other tile is marked
    at.selectbox(key=edit(at, "place")).set_value((0, 1)).run()
    at.selectbox(key=edit(at, "move_to")).set_value(-1)
    at.button(key=edit(at, "move")).click().run()  # a move removes nothing
    _read_table_photo(at, grey=92)
    assert memories[-1].removed_count == 1
    at.button(key="play_forget_changes").click().run()
    _read_table_photo(at, grey=93)
    assert memories[-1] is None and "looks like one you removed" not in all_markdown(at)


def test_a_change_on_a_photo_of_too_few_tiles_is_not_remembered(monkeypatch):
    memories = []
    _reader_spy(monkeypatch, memories=memories)  # three tiles: too few to tell the photo's light
    at = start_app()
    _read_table_photo(at)
    _change_first_tile_to_joker(at)
    _read_table_photo(at, grey=91)
    assert memories == [None, None]


def test_a_change_that_cannot_be_remembered_still_applies(monkeypatch):
    import app.tile_profiles

    _reader_spy(monkeypatch, table=("o4", "o5", "o6", "o7", "o8"))

    def broken(samples, changed, removed=()):
        raise ValueError("embeddings of dimension 3 do not fit this memory (1280)")

    monkeypatch.setattr(app.tile_profiles, "remember_in_session", broken)
    at = start_app()
    _read_table_photo(at)
    _change_first_tile_to_joker(at)
    assert "Tiles you changed or added this session" not in " ".join(c.value for c in at.caption)
    assert 'class="rk-tile rk-joker rk-edited"' in all_markdown(at)  # the fix applied


def test_a_tile_taken_out_of_a_read_racks_line_on_score_is_remembered_and_marked_in_the_next_rack(monkeypatch):
    """The scorekeeper deletes the phantom joker from Bob's read rack and scores the round: Cara's
    rack photo, read next, marks the box like it for checking; the page warns before scoring."""
    from tests.test_app_score import by_suffix, new_game

    memories = []
    _reader_spy(monkeypatch, memories=memories, rack=("r7", "r8", "r9", "k1", "k2", "j"))
    at = new_game(start_app("score"), "Ann", "Bob", "Cara")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.file_uploader, "_photo_1_upload").set_value(("bob.png", _png(90), "image/png")).run()
    by_suffix(at.button, "_read_1").click().run()
    assert by_suffix(at.text_input, "_rack_1").value == "r7 r8 r9 k1 k2 j" and memories == [None]
    by_suffix(at.text_input, "_rack_1").set_value("r7 r8 r9 k1 k2").run()  # no joker there: the rack's end
    by_suffix(at.file_uploader, "_photo_2_upload").set_value(("cara.png", _png(91), "image/png")).run()
    by_suffix(at.button, "_read_2").click().run()
    assert not at.exception, at.exception
    memory = memories[-1]
    assert memory is not None and (memory.changed_count, memory.removed_count) == (0, 1)
    assert 'title="joker — unsure; looks like one you removed earlier: remove it too if it is no tile"' in all_markdown(at)
    assert "The camera was unsure of joker" in " ".join(w.value for w in at.warning)
    by_suffix(at.text_input, "_rack_2").set_value("r7 r8 r9 k1 k2").run()
    by_suffix(at.button, "_score").click().run()
    assert not at.exception, at.exception
    from app.tile_profiles import MEMORY

    scored = at.session_state[MEMORY]
    assert scored is not memory and scored.removed_count == 1  # Cara's is the very box Bob's was (the stand-in reads both alike)
    by_suffix(at.button, "_score").click().run()
    assert at.session_state[MEMORY] is scored  # each tile taken out is remembered once, not at every press


def test_a_tile_added_to_a_read_racks_line_on_score_is_remembered_once_while_the_line_holds_it(monkeypatch):
    """The scorekeeper adds the tile the camera left out of Bob's rack with its button: scoring the
    round remembers it for the session (later photos keep a near copy), once; an added tile taken
    back out of the line before scoring is not remembered."""
    from app.tile_profiles import MEMORY
    from tests.test_app_score import by_suffix, new_game
    from vision.reading import LeftOutTile

    left_out = LeftOutTile(parse_tile("o11"), (60.0, 0.0, 69.0, 9.0), 0.8, 0.5, beside=2, sample=_sample(parse_tile("o11"), 9))
    _reader_spy(monkeypatch, rack=("r7", "r8", "r9", "k1", "k2"), rack_left_out=(left_out,))  # enough tiles to centre on
    at = new_game(start_app("score"), "Ann", "Bob")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.file_uploader, "_photo_1_upload").set_value(("bob.png", _png(90), "image/png")).run()
    by_suffix(at.button, "_read_1").click().run()
    next(b for b in at.button if "_offer_1_" in str(b.key)).click().run()
    assert by_suffix(at.text_input, "_rack_1").value == "r7 r8 r9 k1 k2 o11"
    by_suffix(at.text_input, "_rack_1").set_value("r7 r8 r9 k1 k2").run()  # taken back: not a tile after all
    by_suffix(at.button, "_score").click().run()
    assert not at.exception, at.exception
    assert MEMORY not in at.session_state  # nothing to remember: the line holds the read tiles, and no more
    at = new_game(start_app("score"), "Ann", "Bob")
    by_suffix(at.radio, "_end").set_value("Ann").run()
    by_suffix(at.file_uploader, "_photo_1_upload").set_value(("bob.png", _png(90), "image/png")).run()
    by_suffix(at.button, "_read_1").click().run()
    next(b for b in at.button if "_offer_1_" in str(b.key)).click().run()
    by_suffix(at.button, "_score").click().run()
    assert not at.exception, at.exception
    memory = at.session_state[MEMORY]
    assert (memory.changed_count, memory.removed_count) == (1, 0) and memory.labels.tolist() == [parse_tile("o11").index]
    by_suffix(at.button, "_score").click().run()
    assert at.session_state[MEMORY] is memory  # once, not at every press


def test_kept_additions_counts_only_the_added_copies_the_line_still_holds():
    from app.editing import Chip, Offer
    from app.tile_profiles import kept_additions

    chips = [Chip(parse_tile(n), sample=("rack", i)) for i, n in enumerate(("r7", "o11"))]
    offers = [Offer("rack", 1, parse_tile("o11")), Offer("rack", 2, parse_tile("b2"))]
    line = [parse_tile(n) for n in ("r7", "o11", "o11", "b3")]
    assert kept_additions(chips, offers, line) == ((offers[0], parse_tile("o11")),)  # b2 changed to b3: not known
    assert kept_additions(chips, offers, line[:2]) == ()  # the read copy alone
    assert kept_additions(chips, offers, [*line, parse_tile("b2")]) == tuple((o, o.tile) for o in offers)


def test_teaching_skips_a_removed_box_like_a_kept_tile_a_second_box_and_a_photo_too_small(private_data):
    from app.tile_profiles import teach_profile

    store = _store(private_data)
    store.save("Ours", [_sample(parse_tile("r1"))], READER)
    photo = [_sample(parse_tile(n), i) for i, n in enumerate(("o4", "o5", "o6", "o7", "o8"))]
    rack_end = TileSample(parse_tile("j"), photo[0].crops, np.random.default_rng(50).normal(0, 1, 1280) * 3, (60.0, 0, 69, 9))
    like_o5 = TileSample(parse_tile("j"), photo[0].crops, photo[1].embedding + 0.01, (70.0, 0, 79, 9))
    on_o6 = TileSample(parse_tile("j"), photo[0].crops, np.random.default_rng(51).normal(0, 1, 1280), photo[2].box)
    samples = {"table": [*photo, rack_end, like_o5, on_o6], "rack": photo[:3] + [rack_end]}
    stored = teach_profile(store, "Ours", samples, [], [("table", 5), ("table", 6), ("table", 7), ("rack", 3)])
    assert [b.box for b in stored.not_tiles] == [rack_end.box]  # the rack's own photo has too few boxes
    assert np.allclose(stored.not_tiles[0].photo_mean, np.mean([s.embedding for s in samples["table"]], axis=0), atol=1e-5)
    assert teach_profile(store, "Ours", samples, [], [("table", 6)]) is None  # nothing to teach: nothing written


def test_a_colour_changed_on_play_is_followed_by_the_photos_tiles_that_look_as_blue(monkeypatch):
    """The reader takes a set's navy blue for black: the player sets the first tile to blue 4, the
    table photo's black 5, bluer than it was, follows (marked to check) and the black 6 does not."""
    from dataclasses import replace

    import vision

    _reader_spy(monkeypatch, table=("k4", "k5", "k6"))
    blue_odds = {"k4": 0.3, "k5": 0.45, "k6": 0.05}
    plain_read = vision.read

    def read(image, kind="table", rules=None, **options):
        reading = plain_read(image, kind, rules, **options)
        samples = []
        for i, sample in enumerate(reading.samples):
            probs = np.full(53, 1e-6)
            if kind == "table":
                name = sample.tile.short
                probs[sample.tile.index], probs[parse_tile("b" + name[1:]).index] = 1 - blue_odds[name], blue_odds[name]
            samples.append(replace(sample, box=(60.0 * i, 0.0, 60.0 * i + 50.0, 70.0), probs=probs / probs.sum()))
        return replace(reading, samples=tuple(samples))

    monkeypatch.setattr(vision, "read", read, raising=False)
    at = start_app()
    _read_table_photo(at)
    at.selectbox(key=edit(at, "place")).set_value((0, 0)).run()
    at.selectbox(key=edit(at, "new_tile_0_0")).set_value(parse_tile("b4")).run()
    at.button(key=edit(at, "change")).click().run()
    assert not at.exception, at.exception
    assert ("Tiles of this photo changed with your black 4 → blue 4, as they look at least as much like that colour: 1. "
            "They are marked: check them.") in shown(at.info)
    page = all_markdown(at)
    assert 'title="blue 5 — unsure; changed with a tile of this photo whose colour you changed; maybe: black 5"' in page
    assert 'title="black 6"' in page and "blue 6" not in page


def test_a_tile_whose_colour_the_inks_read_says_so_until_the_player_sets_it():
    from app.components import chip_note
    from app.photos import _chip
    from vision.reading import ReadTile

    read = ReadTile(parse_tile("b5"), (0.0, 0.0, 10.0, 14.0), 0.93, uncertain=True, ink_doubt=True)
    chip = _chip(read)
    assert chip.ink_doubt and chip.uncertain
    assert chip_note(chip, "en") == "unsure; its colour was read from the ink of your set's tiles"
    assert chip_note(chip, "uk") == "сумнівна; її колір прочитано за фарбою фішок вашого набору"
    assert chip_note(chip.fixed_to(parse_tile("k5")), "en") == "set by you"
    assert not _chip(ReadTile(parse_tile("b5"), (0.0, 0.0, 10.0, 14.0), 0.99)).ink_doubt


def test_a_tile_smeared_in_the_photo_says_so_until_the_player_sets_it():
    from app.components import chip_note
    from app.photos import _chip
    from vision.reading import ReadTile

    chip = _chip(ReadTile(parse_tile("k1"), (0.0, 0.0, 10.0, 14.0), 0.99, uncertain=True, blurred=True))
    assert chip.blurred and chip.uncertain
    assert chip_note(chip, "en") == "unsure; blurred in the photo: check it, or take the photo again"
    assert chip_note(chip, "ro").endswith("neclară în fotografie: verificați-o sau faceți din nou fotografia")
    assert chip_note(chip.fixed_to(parse_tile("k2")), "en") == "set by you"
    assert not _chip(ReadTile(parse_tile("k1"), (0.0, 0.0, 10.0, 14.0), 0.99)).blurred


def test_a_tile_added_from_a_box_left_out_is_remembered_and_teaches_the_active_profile_when_switched_on(monkeypatch, private_data):
    """The player adds the box the camera left out (set right from the camera's guess): the session
    remembers it, so the next photo keeps it, and with teaching on the profile learns it."""
    from app.tile_profiles import MEMORY
    from vision.reading import LeftOutTile

    names = ("o4", "o5", "o6", "o7", "o8")
    left_out_sample = _sample(parse_tile("o1"), 9)
    offer = LeftOutTile(parse_tile("o1"), (50.0, 0.0, 59.0, 9.0), 0.7, 0.5, beside=4, sample=left_out_sample)
    _reader_spy(monkeypatch, table=names, left_out=(offer,))
    store, at = _on_play_with_profile(private_data)
    at.toggle(key="play_teach_profile").set_value(True).run()
    at.button(key=edit(at, "offer_table_1")).click().run()  # added as the camera guessed: an orange 1
    assert not at.exception, at.exception
    at.selectbox(key=edit(at, "place")).set_value((0, 5)).run()
    at.selectbox(key=edit(at, "new_tile_0_5")).set_value(parse_tile("o9")).run()
    at.button(key=edit(at, "change")).click().run()  # it is an orange 9
    assert not at.exception, at.exception
    assert at.session_state["play_reading"].table_rack.table_tiles == (tuple(parse_tile(n) for n in (*names, "o9")),)
    memory = at.session_state[MEMORY]
    assert memory.labels.tolist() == [parse_tile("o9").index]  # remembered as the player left it last
    stored = store.load("Ours")
    # the profile learns the tile the player set, not the camera's guess that the add took
    assert [s.tile.short for s in stored.samples] == ["r1", "o9"] and stored.origins == ("calibration", CORRECTION)
    assert np.array_equal(stored.samples[1].crops, left_out_sample.crops)  # the box's own crops
    assert shown(at.success)[0] == "The tile profile 'Ours' learnt this tile."
