"""Boxes the gate left out that may be tiles: which are offered, with what tile, and where they go."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from solver.tiles import NUM_KINDS, parse_tile
from vision.detections import Detections
from vision.left_out import MAX_OFFERED, NEXT_TO, OFFER_FROM_TILE_PROB, left_out_tiles, offered, place_beside
from vision.reading import LeftOutTile, Reading, ReadingFormatError, ReadingKind, ReadTile


def tile_at(name: str, x: float, y: float, w: float = 40.0, h: float = 56.0) -> ReadTile:
    return ReadTile(parse_tile(name), (x, y, x + w, y + h), 0.99)


def table() -> Reading:
    """Two melds: a run left to right in a row (tiles 0-2), a group top to bottom in a column (3-5)."""
    run = [tile_at(n, 100 + 45 * i, 100) for i, n in enumerate(("r4", "r5", "r6"))]
    group = [tile_at(n, 500, 100 + 60 * i) for i, n in enumerate(("k9", "b9", "o9"))]
    return Reading((*run, *group), ((0, 1, 2), (3, 4, 5)), kind=ReadingKind.TABLE)


def one_hot(*names: str, p: float = 0.9) -> np.ndarray:
    probs = np.full((len(names), NUM_KINDS), (1 - p) / (NUM_KINDS - 1))
    for row, name in enumerate(names):
        probs[row, parse_tile(name).index] = p
    return probs


def box_at(x: float, y: float, w: float = 40.0, h: float = 56.0) -> tuple[float, float, float, float]:
    return (x, y, x + w, y + h)


def test_the_likeliest_tiles_are_offered_first_down_to_the_floor_and_no_more_than_the_cap():
    apart = np.array([box_at(100 * i, 0) for i in range(4)])
    nothing_read = np.zeros((0, 4))
    assert offered(apart, [0.5, OFFER_FROM_TILE_PROB - 0.01, 0.9, OFFER_FROM_TILE_PROB], nothing_read) == [2, 0, 3]
    assert offered(np.zeros((0, 4)), [], nothing_read) == []
    many = np.linspace(0.3, 0.9, MAX_OFFERED + 3)
    boxes = np.array([box_at(100 * i, 0) for i in range(len(many))])
    assert offered(boxes, many, nothing_read) == list(range(len(many) - 1, len(many) - 1 - MAX_OFFERED, -1))
    with pytest.raises(ValueError, match="4 boxes and 3 tile probabilities"):
        offered(apart, [0.5, 0.5, 0.5], nothing_read)


def test_a_box_on_a_read_tile_is_that_tile_again_and_never_offered():
    read = np.array([box_at(0, 0), box_at(45, 0)])
    again = box_at(2, 1)  # the first tile's box once more
    straddling = box_at(22, 0)  # half of each read tile
    beside = box_at(90, 0)  # the next tile, touching
    assert offered(np.array([again, straddling, beside]), [0.9, 0.9, 0.5], read) == [2]


def test_a_box_goes_beside_the_read_tile_it_lies_next_to_in_the_order_of_that_tiles_meld():
    reading = table()
    assert place_beside(box_at(235, 102), reading) == (2, False)  # after the red 6, at the run's end
    assert place_beside(box_at(55, 98), reading) == (0, True)  # before the red 4
    assert place_beside(box_at(500, 40), reading) == (3, True)  # above the group's first tile: before it
    assert place_beside(box_at(500, 280), reading) == (5, False)  # below its last: after it
    assert place_beside(box_at(300, 400), reading) == (None, False)  # next to no tile
    assert place_beside(box_at(235, 102), replace(reading, tiles=(), melds=())) == (None, False)


def test_next_to_means_within_the_reach_of_a_tiles_length():
    reading = table()  # tiles 56 pixels long; the red 6's centre at x 210
    reach = NEXT_TO * 56.0
    assert place_beside(box_at(210 + reach - 1.0 - 20.0, 100), reading)[0] == 2
    assert place_beside(box_at(210 + reach + 1.0 - 20.0, 100), reading)[0] is None


def test_on_a_rack_a_box_goes_along_its_tier_and_a_lone_tile_reads_left_to_right():
    top = [tile_at(n, 100 + 45 * i, 100) for i, n in enumerate(("r1", "r2", "r3"))]
    bottom = [tile_at(n, 100 + 45 * i, 300) for i, n in enumerate(("k1", "k2"))]  # a tier far below
    rack = Reading((*top, *bottom), kind=ReadingKind.RACK)
    assert place_beside(box_at(235, 100), rack) == (2, False)
    assert place_beside(box_at(55, 300), rack) == (3, True)
    lone = Reading((tile_at("k1", 100, 100),), kind=ReadingKind.RACK)
    assert place_beside(box_at(140, 100), lone) == (0, False)
    assert place_beside(box_at(60, 100), lone) == (0, True)
    # a tier running top to bottom (a rack photographed turned): its order is along it
    column = Reading(tuple(tile_at(n, 100, 100 + 60 * i) for i, n in enumerate(("o1", "o2", "o3"))), kind=ReadingKind.RACK)
    assert place_beside(box_at(100, 280), column) == (2, False)
    assert place_beside(box_at(100, 40), column) == (0, True)


def test_each_offer_carries_the_readers_likeliest_tile_its_alternatives_and_its_place():
    reading = table()
    boxes = np.array([box_at(235, 102), box_at(300, 400), box_at(55, 98)])
    probs = one_hot("r7", "o1", "r3", p=0.7)
    probs[0, parse_tile("k7").index] = 0.2
    offers = left_out_tiles(reading, boxes, probs, np.array([0.6, 0.1, 0.9]))
    assert [(o.tile.name, o.beside, o.before) for o in offers] == [("red-3", 0, True), ("red-7", 2, False)]
    first, second = offers[1], offers[0]
    assert first.probability == pytest.approx(0.7) and first.tile_prob == pytest.approx(0.6)
    assert first.alternatives[0].tile == parse_tile("k7") and first.alternatives[0].probability == pytest.approx(0.2)
    assert second.box == box_at(55, 98)
    assert left_out_tiles(reading, np.zeros((0, 4)), np.zeros((0, NUM_KINDS)), np.zeros(0)) == ()
    with pytest.raises(ValueError, match="3 boxes, 2 readings"):
        left_out_tiles(reading, boxes, probs[:2], np.array([0.6, 0.1, 0.9]))


def test_left_out_tiles_travel_in_the_json_and_bad_ones_are_refused():
    offer = LeftOutTile(parse_tile("o5"), (1.0, 2.0, 41.0, 58.0), 0.8123456, 0.55, ((parse_tile("o3"), 0.1),), 1, True)
    reading = replace(table(), left_out=(offer, LeftOutTile(parse_tile("j"), (0.0, 0.0, 9.0, 9.0), 0.5, 0.3)))
    data = reading.to_json()
    assert data["left_out"][0] == {
        "tile": "orange-5", "box": [1.0, 2.0, 41.0, 58.0], "probability": 0.8123, "tile_prob": 0.55,
        "alternatives": [["orange-3", 0.1]], "beside": 1, "before": True,
    }
    back = Reading.from_json(data)
    assert [(o.tile, o.beside, o.before, o.alternatives[0].tile if o.alternatives else None) for o in back.left_out] == [
        (parse_tile("o5"), 1, True, parse_tile("o3")), (parse_tile("j"), None, False, None),
    ]
    assert Reading.from_json({k: v for k, v in data.items() if k != "left_out"}).left_out == ()  # a reading saved before
    for bad in (
        {"tile": "orange-5", "box": [1, 2, 3], "probability": 0.5, "tile_prob": 0.5},
        {"tile": "orange-14", "box": [1, 2, 3, 4], "probability": 0.5, "tile_prob": 0.5},
        {"tile": "orange-5", "box": [1, 2, 3, 4], "probability": 1.5, "tile_prob": 0.5},
        {"tile": "orange-5", "box": [1, 2, 3, 4], "tile_prob": 0.5},
        {"tile": "orange-5", "box": [1, 2, 3, 4], "probability": 0.5, "tile_prob": 0.5, "beside": 6},  # 6 tiles: 0-5
        {"tile": "orange-5", "box": [1, 2, 3, 4], "probability": 0.5, "tile_prob": 0.5, "beside": "next"},
    ):
        with pytest.raises(ReadingFormatError):
            Reading.from_json({**data, "left_out": [bad]})


def test_read_offers_the_dropped_boxes_likely_to_be_tiles_numbered_on_the_annotated_photo(monkeypatch):
    import vision.pipeline as pipeline
    from vision.reader import CropReading

    kept = np.array([box_at(100 + 45 * i, 100) for i in range(3)], np.float32)
    dropped = np.array([box_at(250, 100), box_at(400, 300)], np.float32)
    seen = pipeline.SeenTiles(
        Detections(kept, np.ones(3, np.float32)), np.zeros((1, 3, 8, 8, 3), np.uint8),
        CropReading(one_hot("r4", "r5", "r6", p=0.99), np.ones(3), np.zeros((3, 4), np.float32)),
        Detections(dropped, np.array([0.4, 0.3], np.float32)),
        CropReading(one_hot("r7", "k2"), np.array([0.6, 0.05]), np.zeros((2, 4), np.float32)),
    )
    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **_: seen)
    photo = np.zeros((400, 600, 3), np.uint8)
    reading = pipeline.read(photo)
    assert len(reading.doubtful_boxes) == 2  # both dashed ...
    assert [(o.tile.name, reading.tiles[o.beside].tile.name, o.before) for o in reading.left_out] == [("red-7", "red-6", False)]
    drawn = pipeline.annotate(photo, reading)
    corner = (slice(88, 99), slice(251, 258))  # the number's patch, on the offered box's top left corner
    assert (drawn[corner] == pipeline.DOUBTFUL_BGR).all(axis=2).mean() > 0.5
    unnumbered = pipeline.annotate(photo, replace(reading, left_out=()))
    assert (unnumbered[corner] == pipeline.DOUBTFUL_BGR).all(axis=2).mean() == 0


def test_the_offered_tile_is_read_as_the_players_profile_reads_it(monkeypatch):
    """A left-out box is offered as the kept tiles are read: adapted by the player's profile."""
    import vision.pipeline as pipeline
    from vision.profiles import TileProfile, TileSample
    from vision.reader import CropReading

    looks = np.random.default_rng(3).normal(0, 1, (4, 8)) * 3 + 10.0
    kept = np.array([box_at(100 + 45 * i, 100) for i in range(3)], np.float32)
    seen = pipeline.SeenTiles(
        Detections(kept, np.ones(3, np.float32)), np.zeros((1, 3, 8, 8, 3), np.uint8),
        CropReading(one_hot("r4", "r5", "r6", p=0.99), np.ones(3), looks[:3]),
        Detections(np.array([box_at(235, 100)], np.float32), np.array([0.4], np.float32)),
        CropReading(one_hot("r1", p=0.6), np.array([0.6]), looks[3:]),  # the reader takes the player's 7 for a 1
    )
    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **_: seen)
    crops = np.zeros((1, 8, 8, 3), np.uint8)
    profile = TileProfile.from_samples("mine", [
        TileSample(parse_tile(n), crops, e) for n, e in zip(("r4", "r5", "r6", "r7"), looks)
    ])
    photo = np.zeros((400, 600, 3), np.uint8)
    assert pipeline.read(photo).left_out[0].tile == parse_tile("r1")
    assert pipeline.read(photo, profile=profile).left_out[0].tile == parse_tile("r7")


def test_a_readings_messages_name_the_left_out_tiles_by_their_number_on_the_photo():
    offers = (
        LeftOutTile(parse_tile("o5"), box_at(235, 100), 0.8, 0.6, beside=2),
        LeftOutTile(parse_tile("j"), box_at(300, 400), 0.5, 0.3),
    )
    english = replace(table(), left_out=offers).messages("en")
    assert english[-1] == (
        "Left out as probably not tiles, but maybe tiles (numbered on the annotated photo): 1. orange 5, 2. joker."
    )
    assert replace(table(), left_out=offers).messages("uk")[-1] != english[-1]  # translated
    assert table().messages("en") == ()


def test_a_tile_added_from_a_left_out_box_is_kept_in_the_next_photo_and_read_as_the_player_set_it(monkeypatch):
    """The next photo of the table drops the same tile again: the session remembers it was added."""
    import vision.pipeline as pipeline
    from vision.reader import CropReading
    from vision.session_memory import SessionMemory

    looks = np.random.default_rng(4).normal(0, 1, (6, 16)) + 30.0  # five read tiles and the one left out
    kept = np.array([box_at(100 + 45 * i, 100) for i in range(5)], np.float32)

    def photo_seen(light: float) -> pipeline.SeenTiles:
        shift = light * np.random.default_rng(int(light)).normal(0, 1, 16)  # what the photo's light adds to all
        return pipeline.SeenTiles(
            Detections(kept, np.ones(5, np.float32)), np.zeros((1, 5, 8, 8, 3), np.uint8),
            CropReading(one_hot("r2", "r3", "r4", "r5", "r6", p=0.99), np.ones(5), looks[:5] + shift),
            Detections(np.array([box_at(325, 100)], np.float32), np.array([0.4], np.float32)),
            CropReading(one_hot("r1", p=0.6), np.array([0.4]), looks[5:] + shift), np.zeros((1, 1, 8, 8, 3), np.uint8),
        )

    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **_: photo_seen(0.0))
    image = np.zeros((400, 700, 3), np.uint8)
    first = pipeline.read(image, kind="rack")
    assert len(first.tiles) == 5 and first.left_out[0].tile == parse_tile("r1")
    assert np.allclose(first.left_out[0].sample.embedding, looks[5])  # what the app remembers when it is added
    memory = SessionMemory().remembering(looks, [(5, parse_tile("r7"))])  # the player added it, as a red 7
    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **_: photo_seen(3.0))
    again = pipeline.read(image, kind="rack", memory=memory)
    assert [t.tile.short for t in again.tiles] == ["r2", "r3", "r4", "r5", "r6", "r7"] and again.left_out == ()
    assert len(pipeline.read(image, kind="rack").tiles) == 5  # without the session's memory: dropped again
