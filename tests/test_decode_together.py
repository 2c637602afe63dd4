"""Photos of one game decoded together: the copy limits hold over the table and the rack."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.rules import STANDARD
from solver.tiles import JOKER_INDEX, NUM_KINDS, Tile, parse_tile
from vision.decoding import DecodingSettings
from vision.detections import Detections
from vision.pipeline import build_reading, decode_together
from vision.profiles import TileSample
from vision.reading import ProblemKind, Reading, ReadingKind


def _probs(*choices: tuple[str, float]) -> np.ndarray:
    """A tile's probabilities: the named tiles at their shares, the rest spread thinly."""
    row = np.full(NUM_KINDS, 1e-4)
    for name, p in choices:
        row[parse_tile(name).index] = p
    return row / row.sum()


def _sure(name: str) -> np.ndarray:
    return _probs((name, 0.99))


def _reading(rows: list[list[np.ndarray]], kind: ReadingKind, tile_prob: float = 1.0) -> Reading:
    """A photo as :func:`vision.read` leaves it: tiles decoded by :func:`build_reading`, each with its
    sample (probabilities and P(tile) as decoding saw them). ``rows`` are melds (table) or tiers."""
    probs = np.stack([p for row in rows for p in row])
    n = len(probs)
    boxes = np.array([[40.0 * i, 0.0, 40.0 * i + 30, 40.0] for i in range(n)], np.float32)
    groups, start = [], 0
    for row in rows:
        groups.append(list(range(start, start + len(row))))
        start += len(row)
    tile_probs = np.full(n, tile_prob)
    reading = build_reading(Detections(boxes, np.ones(n)), probs, groups, kind, STANDARD, (40 * n, 40), tile_prob=tile_probs)
    samples = tuple(
        TileSample(t.tile, np.zeros((1, 4, 4, 3), np.uint8), np.zeros(8), t.box, probs[i], tile_prob)
        for i, t in enumerate(reading.tiles)
    )
    return replace(reading, samples=samples)


TABLE = [[_sure("r7"), _sure("r8"), _sure("r9")], [_sure("r7"), _sure("k7"), _sure("b7")]]


def test_a_third_copy_on_the_rack_is_read_as_its_next_likeliest_tile_when_decoded_with_the_table():
    table = _reading(TABLE, ReadingKind.TABLE)
    rack = _reading([[_sure("o1"), _probs(("r7", 0.6), ("o7", 0.35))]], ReadingKind.RACK)
    assert [t.tile.short for t in rack.tiles] == ["o1", "r7"]  # apart: the rack alone allows a red 7

    new_table, new_rack = decode_together((table, rack))

    assert [t.tile.short for t in new_table.tiles] == [t.tile.short for t in table.tiles]
    assert [t.tile.short for t in new_rack.tiles] == ["o1", "o7"]
    assert new_rack.tiles[1].corrected and new_rack.tiles[1].uncertain  # changed, and shown for the player to check
    assert new_rack.samples[1].tile == parse_tile("o7")  # what a correction would teach follows the reading
    assert not any(p.kind is ProblemKind.COPY_LIMIT for r in (new_table, new_rack) for p in r.problems)


def test_a_third_joker_on_the_rack_is_not_kept_when_the_table_holds_both():
    table = _reading([[_sure("r7"), _sure("j"), _sure("r9")], [_sure("k5"), _sure("j"), _sure("o5")]], ReadingKind.TABLE)
    rack = _reading([[_probs(("j", 0.55), ("b12", 0.4))]], ReadingKind.RACK)
    assert rack.tiles[0].tile.index == JOKER_INDEX

    _, new_rack = decode_together((table, rack))

    assert new_rack.tiles[0].tile == parse_tile("b12")


def test_a_copy_no_reading_within_reach_explains_is_reported_in_each_photo_that_holds_it():
    table = _reading(TABLE, ReadingKind.TABLE)
    rack = _reading([[_sure("r7")]], ReadingKind.RACK)  # sure: decoding may not overrule it

    new_table, new_rack = decode_together((table, rack))

    assert new_rack.tiles[0].tile == parse_tile("r7")
    for reading, where in ((new_table, (0, 3)), (new_rack, (0,))):
        limits = [p for p in reading.problems if p.kind is ProblemKind.COPY_LIMIT]
        assert [(p.tiles, p.count, p.limit) for p in limits] == [(where, 3, 2)]


@pytest.mark.parametrize("kind", [ReadingKind.TABLE, ReadingKind.RACK])
def test_a_photo_alone_decodes_as_it_was_read(kind):
    rows = [[_probs(("r3", 0.5), ("o3", 0.45)), _probs(("r4", 0.6), ("r5", 0.3)), _sure("r5")], [_probs(("j", 0.7), ("k1", 0.2))]]
    reading = _reading(rows, kind, tile_prob=0.9)

    (again,) = decode_together((reading,))

    assert again.tiles == reading.tiles
    assert again.problems == reading.problems
    assert again.melds == reading.melds


def test_invalid_melds_keep_their_own_photos_numbering():
    first = _reading([[_sure("r1"), _sure("r2"), _sure("r3")]], ReadingKind.TABLE)
    second = _reading([[_sure("k9"), _sure("k10"), _sure("k11")], [_sure("b2"), _sure("o5"), _sure("k9")]], ReadingKind.TABLE)

    new_first, new_second = decode_together((first, second))

    invalid = [p.meld for p in new_second.problems if p.kind is ProblemKind.INVALID_MELD]
    assert invalid == [1] and not any(p.kind is ProblemKind.INVALID_MELD for p in new_first.problems)


def test_the_players_marks_stay_on_the_tiles():
    table = _reading(TABLE, ReadingKind.TABLE)
    rack = _reading([[_sure("o1"), _sure("o2")]], ReadingKind.RACK)
    marked = replace(rack, tiles=(replace(rack.tiles[0], remembered=True), replace(rack.tiles[1], like_removed=True)))

    _, new_rack = decode_together((table, marked))

    assert new_rack.tiles[0].remembered and not new_rack.tiles[0].uncertain
    assert new_rack.tiles[1].like_removed and new_rack.tiles[1].uncertain


def test_a_tile_the_memory_named_is_no_longer_remembered_once_read_otherwise():
    table = _reading(TABLE, ReadingKind.TABLE)
    rack = _reading([[_probs(("r7", 0.6), ("o7", 0.35))]], ReadingKind.RACK)
    marked = replace(rack, tiles=(replace(rack.tiles[0], remembered=True),))

    _, new_rack = decode_together((table, marked))

    assert new_rack.tiles[0].tile == parse_tile("o7") and not new_rack.tiles[0].remembered


def test_one_reading_given_twice_is_decoded_in_both_places():
    rack = _reading([[_probs(("r7", 0.6), ("o7", 0.35)), _sure("r7")]], ReadingKind.RACK)

    first, second = decode_together((rack, rack))  # four red 7s read: two must give way

    assert [t.tile.short for t in first.tiles] == [t.tile.short for t in second.tiles] == ["o7", "r7"]


def test_the_last_turns_table_holds_its_tiles_on_the_table_photo_not_on_the_rack():
    table = _reading([[_sure("k7"), _sure("b7"), _probs(("r7", 0.55), ("o7", 0.4))]], ReadingKind.TABLE)
    rack = _reading([[_probs(("r1", 0.55), ("o1", 0.4))]], ReadingKind.RACK)
    before = [parse_tile(n) for n in ("k7", "b7", "o7", "o1")]  # the o1 was never on the table photo

    (alone,) = decode_together((table,), on_table_before=before)
    new_table, new_rack = decode_together((table, rack), on_table_before=before)

    assert [t.tile.short for t in alone.tiles] == ["k7", "b7", "o7"] and alone.tiles[2].uncertain
    assert [t.tile.short for t in new_table.tiles] == ["k7", "b7", "o7"]
    assert new_rack.tiles == rack.tiles  # a rack's tile never counts as one the table held


def test_the_decoders_settings_apply():
    table = _reading(TABLE, ReadingKind.TABLE)
    rack = _reading([[_probs(("r7", 0.6), ("o7", 0.35))]], ReadingKind.RACK)

    _, strict = decode_together((table, rack), settings=DecodingSettings(repair_ratio=0.9))

    assert strict.tiles[0].tile == parse_tile("r7")  # o7 is not within reach at this ratio


def test_no_readings_and_empty_readings_pass_through():
    empty = Reading((), kind=ReadingKind.RACK)
    assert decode_together(()) == ()
    assert decode_together((empty,)) == (empty,)


def test_a_reading_without_its_probabilities_stands_and_its_tiles_count():
    table = Reading.from_json(_reading(TABLE, ReadingKind.TABLE).to_json())  # read back from JSON: no samples
    rack = _reading([[_probs(("r7", 0.6), ("o7", 0.35))]], ReadingKind.RACK)

    new_table, new_rack = decode_together((table, rack))

    assert new_table is table
    assert new_rack.tiles[0].tile == parse_tile("o7")
    assert decode_together((table,)) == (table,)


def test_typed_tiles_of_the_turn_count_and_stay_as_typed():
    table = _reading([[_sure("r7"), _sure("r8"), _sure("r9")], [_probs(("r7", 0.6), ("o7", 0.35)), _sure("k7"), _sure("b7")]], ReadingKind.TABLE)
    assert [t.tile.short for t in table.tiles][3] == "r7"

    (alone,) = decode_together((table,))
    (with_rack,) = decode_together((table,), known=[parse_tile("r7"), parse_tile("k1")])  # the rack, typed

    assert alone.tiles == table.tiles
    assert [t.tile.short for t in with_rack.tiles] == ["r7", "r8", "r9", "o7", "k7", "b7"]
    assert not any(p.kind is ProblemKind.INVALID_MELD for p in with_rack.problems)
    (over,) = decode_together((_reading([[_sure("j")]], ReadingKind.RACK),), known=[parse_tile("j")] * 2)
    assert [(p.kind, p.count) for p in over.problems if p.kind is ProblemKind.COPY_LIMIT] == [(ProblemKind.COPY_LIMIT, 3)]


# --- the front ends: the Play page's two photos, and ``solve --table-photo --rack-photo`` --------


def _photo_bytes() -> bytes:
    import cv2

    ok, encoded = cv2.imencode(".png", np.full((80, 480, 3), 200, np.uint8))
    assert ok
    return encoded.tobytes()


def _third_red_7_on_the_rack() -> dict[str, Reading]:
    return {
        "table": _reading(TABLE, ReadingKind.TABLE),
        "rack": _reading([[_sure("o1"), _probs(("r7", 0.6), ("o7", 0.35))]], ReadingKind.RACK),
    }


def test_the_play_pages_two_photos_are_read_as_one_turn(monkeypatch):
    import vision
    from app.photos import read_together, read_with_profile

    readings = _third_red_7_on_the_rack()
    monkeypatch.setattr(vision, "read", lambda image, kind, rules, profile=None, memory=None: readings[kind])
    table = read_with_profile(_photo_bytes(), ReadingKind.TABLE, STANDARD, None, ())
    rack = read_with_profile(_photo_bytes(), ReadingKind.RACK, STANDARD, None, ())
    assert [c.tile.short for c in rack.rows[0]] == ["o1", "r7"]

    photos = {ReadingKind.TABLE: table, ReadingKind.RACK: rack}
    new = read_together(photos, STANDARD)
    new_table, new_rack = new[ReadingKind.TABLE], new[ReadingKind.RACK]

    assert list(new) == [ReadingKind.TABLE, ReadingKind.RACK]
    assert new_table is table  # nothing changed on the table: its reading and drawing stand
    assert [c.tile.short for c in new_rack.rows[0]] == ["o1", "o7"]
    assert new_rack.rows[0][1].uncertain and new_rack.rows[0][1].sample == ("rack", 1)
    assert new_rack.annotated_jpeg != rack.annotated_jpeg  # drawn again with the new name
    assert new_rack.plain_jpeg == rack.plain_jpeg and new_rack.boxes == rack.boxes


def test_photos_whose_readings_were_not_kept_are_left_as_they_were(monkeypatch):
    import vision
    from app.photos import read_together, read_with_profile

    readings = {k: replace(r, samples=()) for k, r in _third_red_7_on_the_rack().items()}
    monkeypatch.setattr(vision, "read", lambda image, kind, rules, profile=None, memory=None: readings[kind])
    table = read_with_profile(_photo_bytes(), ReadingKind.TABLE, STANDARD, None, ())
    rack = read_with_profile(_photo_bytes(), ReadingKind.RACK, STANDARD, None, ())

    photos = {ReadingKind.TABLE: table, ReadingKind.RACK: rack}
    assert read_together(photos, STANDARD) == photos
    assert read_together({ReadingKind.RACK: rack}, STANDARD, typed=[parse_tile("r7")] * 2)[ReadingKind.RACK] is rack


def test_a_rack_photo_is_read_with_the_typed_table(monkeypatch):
    import vision
    from app.photos import read_together, read_with_profile

    readings = _third_red_7_on_the_rack()
    monkeypatch.setattr(vision, "read", lambda image, kind, rules, profile=None, memory=None: readings[kind])
    rack = read_with_profile(_photo_bytes(), ReadingKind.RACK, STANDARD, None, ())

    new = read_together({ReadingKind.RACK: rack}, STANDARD, typed=[parse_tile("r7")] * 2)

    assert [c.tile.short for c in new[ReadingKind.RACK].rows[0]] == ["o1", "o7"]


def test_solve_reads_the_table_and_rack_photos_as_one_turn(capfd, tmp_path, monkeypatch):
    import json

    import vision
    from app.cli import main

    readings = _third_red_7_on_the_rack()
    monkeypatch.setattr(vision, "read", lambda image, kind, rules, profile=None, memory=None: readings[kind])
    photo = tmp_path / "photo.png"
    photo.write_bytes(_photo_bytes())

    code = main(["solve", "--table-photo", str(photo), "--rack-photo", str(photo), "--json"])

    out, err = capfd.readouterr()
    assert code == 0, err  # apart, three red 7s: "more copies than the game has"
    data = json.loads(out)
    assert [t["tile"] for t in data["readings"]["rack"]["tiles"]] == ["orange-1", "orange-7"]
    assert data["readings"]["rack"]["tiles"][1]["uncertain"]
    code = main(["solve", "--table", "r7 r8 r9 | r7 k7 b7", "--rack-photo", str(photo), "--json"])
    out, err = capfd.readouterr()
    assert code == 0, err  # the typed table counts too
    assert [t["tile"] for t in json.loads(out)["readings"]["rack"]["tiles"]] == ["orange-1", "orange-7"]


# --- properties, on random photos of a turn ----------------------------------------------------

def _random_row(rng: np.random.Generator) -> np.ndarray:
    """A tile's probabilities: a first reading, often a near second one, the rest thin."""
    first, second = rng.choice(NUM_KINDS, size=2, replace=False)
    top = rng.uniform(0.4, 0.99)
    return _probs((Tile.from_index(int(first)).name, top), (Tile.from_index(int(second)).name, rng.uniform(0.0, 1.0 - top)))


def _random_turn(seed: int) -> tuple[Reading, Reading]:
    rng = np.random.default_rng(seed)
    melds = [[_random_row(rng) for _ in range(int(rng.integers(3, 6)))] for _ in range(int(rng.integers(1, 9)))]
    rack = [[_random_row(rng) for _ in range(int(rng.integers(1, 15)))]]
    return _reading(melds, ReadingKind.TABLE), _reading(rack, ReadingKind.RACK)


def _excess(readings) -> int:
    counts = Counter(t.tile for r in readings for t in r.tiles)
    return sum(max(0, n - STANDARD.max_count(tile)) for tile, n in counts.items())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_together_never_holds_more_excess_copies_and_changes_a_tile_only_to_a_near_reading(seed):
    table, rack = _random_turn(seed)
    together = decode_together((table, rack))

    assert _excess(together) <= _excess((table, rack))  # reading them apart is one way to read them together
    for before, after in zip((table, rack), together):
        assert [t.box for t in after.tiles] == [t.box for t in before.tiles] and after.melds == before.melds
        for tile, sample in zip(after.tiles, after.samples):
            assert tile.tile == sample.tile
    for old, new, sample in zip(rack.tiles, together[1].tiles, rack.samples):  # a rack's tile: within the repair ratio
        assert sample.probs[new.tile.index] >= 0.1 * sample.probs.max() - 1e-12
        assert new.corrected == (new.tile.index != int(np.argmax(sample.probs)))
    if _excess((table, rack)) == 0:  # nothing to resolve across the photos: each reads as it was read
        assert [t.tile for t in together[0].tiles + together[1].tiles] == [t.tile for t in table.tiles + rack.tiles]
