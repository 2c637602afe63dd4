"""The Reading value: solver views, JSON round trip and schema, problem messages, bad JSON."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from solver.position import Position
from solver.tiles import JOKER, NUM_KINDS, parse_tile
from vision.detections import Detections
from vision.pipeline import build_reading
from vision.reading import (
    ProblemKind,
    Reading,
    ReadingFormatError,
    ReadingKind,
    ReadingProblem,
    ReadTile,
)


def tile(name: str, x: float, confidence: float = 0.97, **kw) -> ReadTile:
    return ReadTile(parse_tile(name), (x, 10.0, x + 40.0, 70.0), confidence, **kw)


def sample() -> Reading:
    tiles = (
        tile("red-7", 0, alternatives=((parse_tile("orange-7"), 0.02),)),
        tile("red-8", 50, 0.91, corrected=True),
        tile("red-9", 100),
        tile("joker", 200, 0.55, alternatives=((parse_tile("black-6"), 0.3),), uncertain=True),
        tile("blue-2", 250),
    )
    problems = (
        ReadingProblem(ProblemKind.INVALID_MELD, (3, 4), (JOKER, parse_tile("blue-2")), meld=1),
        ReadingProblem(ProblemKind.UNCERTAIN_TILE, (3,), (JOKER,), alternatives=(parse_tile("black-6"),)),
        ReadingProblem(ProblemKind.COPY_LIMIT, (0,), (parse_tile("red-7"),), count=3, limit=2),
    )
    return Reading(
        tiles, ((0, 1, 2), (3, 4)), problems, ReadingKind.TABLE, (640, 480), doubtful_boxes=((300.0, 5.0, 340.5, 65.0),),
        blur=0.0312,
    )


def test_solver_views():
    reading = sample()
    assert reading.table_melds() == (
        (parse_tile("red-7"), parse_tile("red-8"), parse_tile("red-9")),
        (JOKER, parse_tile("blue-2")),
    )
    assert reading.rack() == tuple(t.tile for t in reading.tiles)
    position = Position(table=reading.table_melds()[:1], rack=reading.rack()[3:])
    assert position.rack == (JOKER, parse_tile("blue-2"))


def test_json_has_the_documented_shape():
    data = sample().to_json()
    assert data["tiles"][0] == {
        "tile": "red-7",
        "box": [0.0, 10.0, 40.0, 70.0],
        "confidence": 0.97,
        "alternatives": [["orange-7", 0.02]],
        "corrected": False,
        "uncertain": False,
    }
    assert data["melds"] == [["red-7", "red-8", "red-9"], ["joker", "blue-2"]]
    assert [p["kind"] for p in data["problems"]] == ["invalid-meld", "uncertain-tile", "copy-limit"]
    assert data["problems"][2]["count"] == 3 and data["problems"][2]["limit"] == 2
    assert data["doubtful_boxes"] == [[300.0, 5.0, 340.5, 65.0]]
    assert data["blur"] == 0.0312
    json.dumps(data)  # plain JSON types only
    assert Reading.from_json({k: v for k, v in data.items() if k != "doubtful_boxes"}).doubtful_boxes == ()
    assert Reading.from_json({k: v for k, v in data.items() if k != "blur"}).blur == 0.0  # a reading saved before


def test_json_round_trip():
    reading = sample()
    again = Reading.from_json(json.loads(json.dumps(reading.to_json())))
    assert again == reading


def test_problem_messages_name_the_tiles():
    messages = sample().messages()
    assert messages[0] == "Meld 2 is not valid as read: joker, blue 2."
    assert "joker" in messages[1] and "black 6" in messages[1]
    assert messages[2] == "red 7 was read 3 times, but the game has only 2."
    assert sample().to_json()["problems"][0]["message"] == messages[0]
    assert str(sample().problems[2]) == messages[2]  # the app shows str(problem)


def test_alternatives_are_pairs_with_names():
    read = sample().tiles[0]
    (alternative,) = read.alternatives
    tile_, probability = alternative
    assert alternative.tile == tile_ == parse_tile("orange-7") and alternative.probability == probability == 0.02


def test_unknown_language_falls_back_to_english():
    assert sample().messages("xx") == sample().messages()


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"melds": []},
        {"tiles": [{"tile": "purple-3", "box": [0, 0, 1, 1], "confidence": 1}]},
        {"tiles": [{"tile": "red-3", "box": [0, 0, 1], "confidence": 1}]},
        {"tiles": [{"tile": "red-3", "confidence": 1}]},
        {"tiles": [{"tile": "red-3", "box": [0, 0, 1, 1], "confidence": 1}], "meld_tiles": [[0, 1]]},
        {"tiles": [{"tile": "red-3", "box": [0, 0, 1, 1], "confidence": 1}], "meld_tiles": [[0]], "melds": [["red-4"]]},
        {"tiles": [], "problems": [{"kind": "nonsense", "tiles": []}]},
        {"tiles": [], "kind": "floor"},
        {"tiles": [], "doubtful_boxes": [[0, 0, 1]]},
        {"tiles": [], "doubtful_boxes": [["left", 0, 1, 1]]},
        {"tiles": [], "doubtful_boxes": 3},
        {"tiles": [], "blur": -0.1},
        {"tiles": [], "blur": "sharp"},
        {"tiles": [], "blur": float("nan")},
        {"tiles": [], "blur": float("inf")},
        {"tiles": [], "blur": [0.1]},
    ],
)
def test_bad_json_is_refused(data):
    with pytest.raises(ReadingFormatError):
        Reading.from_json(data)


def test_melds_must_not_share_tiles():
    with pytest.raises(ReadingFormatError):
        Reading((tile("red-1", 0), tile("red-2", 50)), ((0, 1), (1,)))


def one_hot(*names: str, p: float = 0.97) -> np.ndarray:
    out = np.full((len(names), 53), (1 - p) / 52)
    for i, name in enumerate(names):
        out[i, parse_tile(name).index] = p
    return out


def test_build_reading_orders_tiles_by_layout_and_reports_problems():
    boxes = np.array([[100, 0, 140, 60], [0, 0, 40, 60], [50, 0, 90, 60], [300, 0, 340, 60]], np.float32)
    dets = Detections(boxes, np.ones(4, np.float32))
    probs = one_hot("red-9", "red-7", "red-8", "blue-4")
    reading = build_reading(dets, probs, [[1, 2, 0], [3]], ReadingKind.TABLE, image_size=(400, 100))
    assert [t.tile.name for t in reading.tiles] == ["red-7", "red-8", "red-9", "blue-4"]
    assert reading.tiles[0].box == (0.0, 0.0, 40.0, 60.0)
    assert reading.melds == ((0, 1, 2), (3,))
    assert [p.kind for p in reading.problems] == [ProblemKind.INVALID_MELD]
    assert reading.problems[0].tiles == (3,)


def test_build_reading_for_a_rack_has_no_melds_but_keeps_tier_order():
    boxes = np.array([[100, 0, 140, 60], [0, 0, 40, 60], [0, 80, 40, 140]], np.float32)
    dets = Detections(boxes, np.ones(3, np.float32))
    probs = one_hot("red-9", "orange-2", "joker")
    probs[2] = one_hot("black-6", p=0.5)[0]
    reading = build_reading(dets, probs, [[1, 0], [2]], ReadingKind.RACK)
    assert reading.melds == ()
    assert [t.tile.name for t in reading.tiles] == ["orange-2", "red-9", "black-6"]
    assert [(p.kind, p.tiles) for p in reading.problems] == [(ProblemKind.UNCERTAIN_TILE, (2,))]
    assert reading.problems[0].read == (parse_tile("black-6"),)


def test_build_reading_requires_every_tile_placed_once():
    dets = Detections(np.zeros((2, 4), np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="exactly once"):
        build_reading(dets, one_hot("red-1", "red-2"), [[0]], ReadingKind.TABLE)


def test_read_counts_the_chance_that_a_box_is_no_tile(monkeypatch):
    """vision.read hands the reader's tile probability to decoding: a sure-looking joker on a box
    the reader half calls "not a tile" is flagged for the player, the tiles beside it are not."""
    import vision.pipeline as pipeline
    from vision.reader import CropReading

    boxes = np.array([[0, 0, 40, 60], [50, 0, 90, 60], [300, 0, 340, 60]], np.float32)
    probs = one_hot("red-7", "red-8", "joker")
    seen = pipeline.SeenTiles(
        Detections(boxes, np.ones(3, np.float32)), np.zeros((1, 3, 8, 8, 3), np.uint8),
        CropReading(probs, np.array([1.0, 1.0, 0.6]), np.zeros((3, 4), np.float32)),
    )
    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **_: seen)
    reading = pipeline.read(np.zeros((100, 400, 3), np.uint8), kind="rack")
    by_name = {t.tile.name: t for t in reading.tiles}
    assert by_name["joker"].uncertain and by_name["joker"].confidence <= 0.6 + 1e-9
    assert not by_name["red-7"].uncertain and not by_name["red-8"].uncertain


def _tile_boxes(n: int, width: float = 40.0, height: float = 56.0) -> np.ndarray:
    """``n`` tile-shaped boxes side by side."""
    return np.array([[i * 50.0, 0.0, i * 50.0 + width, height] for i in range(n)], np.float32).reshape(-1, 4)


def test_a_box_is_kept_as_a_tile_when_detector_and_reader_together_call_it_one():
    from vision.pipeline import MIN_TILE_PROB, kept_as_tiles

    confidences = np.array([0.9, 0.9, 0.6, 0.45, 1.0])
    tile_prob = np.array([0.95, 0.5, 0.8, 1.0, MIN_TILE_PROB])
    found = Detections(_tile_boxes(5), confidences)
    # 0.855 kept; 0.45 (the reader doubts) dropped; 0.48 (both half sure) dropped; 0.45 (the detector
    # doubts) dropped; exactly the threshold kept
    assert kept_as_tiles(found, tile_prob).tolist() == [True, False, False, False, True]
    assert kept_as_tiles(found, tile_prob, min_prob=0.0).tolist() == [True] * 5
    assert kept_as_tiles(Detections.empty(), np.zeros(0)).tolist() == []
    with pytest.raises(ValueError, match="confidences"):
        kept_as_tiles(found, tile_prob[:2])


def test_a_box_of_no_tiles_shape_is_never_kept_however_sure_the_models_are():
    """A sliver at the frame's edge, or a rack's ledge: more than three times as long as wide."""
    from vision.pipeline import MAX_TILE_ASPECT, kept_as_tiles, tile_shaped

    boxes = np.array([
        [0, 0, 40, 56],  # upright tile
        [0, 0, 56, 40],  # lying on its side
        [0, 0, 20, 20 * MAX_TILE_ASPECT],  # as long as a tile may be
        [0, 130, 115, 613],  # a sliver of the frame's edge, 4.2 times as tall as wide
        [10, 10, 310, 60],  # a ledge, 6 times as wide as tall
    ], np.float32)
    found = Detections(boxes, np.ones(5))
    assert tile_shaped(found).tolist() == [True, True, True, False, False]
    assert kept_as_tiles(found, np.ones(5)).tolist() == [True, True, True, False, False]
    assert tile_shaped(Detections.empty()).tolist() == []


def test_a_photo_whose_every_tile_the_detector_doubts_keeps_the_tiles_the_reader_is_sure_of():
    """A set the detector never saw: it finds every tile at 0.45-0.5, the reader is sure of each.
    The photo's confidences are raised together, so the tiles are kept; a box the reader doubts
    and one the detector doubted more than the photo's tiles stay out."""
    from vision.pipeline import MIN_REFERENCE_TILES, TYPICAL_TILE_CONFIDENCE, kept_as_tiles, photo_relative_confidence

    tiles = MIN_REFERENCE_TILES + 1
    confidences = np.array([0.45, 0.5] * (tiles // 2) + [0.6, 0.3])
    tile_prob = np.array([1.0] * tiles + [0.3, 0.9])
    relative = photo_relative_confidence(confidences, tile_prob)
    factor = TYPICAL_TILE_CONFIDENCE / np.median(confidences[:tiles])
    assert factor > 1.0
    np.testing.assert_allclose(relative, np.minimum(confidences * factor, 1.0))
    # the tiles alone: dropped at the detector's own confidence, kept relative to the photo
    assert not (confidences[:tiles] * tile_prob[:tiles] >= 0.5).all()
    assert kept_as_tiles(Detections(_tile_boxes(len(confidences)), confidences), tile_prob).tolist() == [True] * tiles + [False, False]


def test_a_familiar_photo_and_a_photo_of_few_sure_tiles_keep_the_detectors_confidence():
    from vision.pipeline import MIN_REFERENCE_TILES, REFERENCE_TILE_PROB, TYPICAL_TILE_CONFIDENCE, photo_relative_confidence

    familiar = np.array([0.95, 0.9, 0.85, TYPICAL_TILE_CONFIDENCE, 0.9, 0.4])
    sure = np.array([1.0] * 5 + [0.98])
    np.testing.assert_array_equal(photo_relative_confidence(familiar, sure), familiar)  # never lowered
    few = np.full(MIN_REFERENCE_TILES, 0.4)
    few_sure = np.array([1.0] * (MIN_REFERENCE_TILES - 1) + [REFERENCE_TILE_PROB - 0.01])
    np.testing.assert_array_equal(photo_relative_confidence(few, few_sure), few)
    # a photo of very unsure tiles is raised, but no box above 1
    low = np.array([0.1] * MIN_REFERENCE_TILES + [0.9])
    raised = photo_relative_confidence(low, np.ones(len(low)))
    assert raised.max() == 1.0 and raised[0] == pytest.approx(TYPICAL_TILE_CONFIDENCE)
    assert photo_relative_confidence(np.zeros(0), np.zeros(0)).tolist() == []
    with pytest.raises(ValueError, match="confidences"):
        photo_relative_confidence(familiar, sure[:2])


def test_see_tiles_drops_what_the_detector_and_the_reader_each_half_believe(monkeypatch):
    """A rack end the detector finds at 0.6 and the reader calls a tile at 0.7 is dropped; a
    tile both are sure of, and one the detector alone doubts a little, are kept."""
    import vision.detector as detector
    import vision.pipeline as pipeline
    import vision.reader as reader
    from vision.reader import CropReading

    boxes = np.array([[0, 0, 40, 60], [50, 0, 90, 60], [100, 0, 140, 60]], np.float32)
    found = Detections(boxes, np.array([0.95, 0.6, 0.7], np.float32))
    probs = one_hot("red-7", "joker", "red-9")
    views = np.arange(3, dtype=np.uint8).reshape(1, 3, 1, 1, 1) * np.ones((1, 3, 4, 4, 3), np.uint8)
    monkeypatch.setattr(detector, "detect_tiles", lambda photo, weights=None: found)
    monkeypatch.setattr(reader, "load_reader", lambda weights=None: type("R", (), {"imgsz": 4})())
    monkeypatch.setattr(reader, "crop_views", lambda photo, b, size: views)
    monkeypatch.setattr(
        reader, "read_views", lambda v, r: CropReading(probs, np.array([0.99, 0.7, 0.98]), np.eye(3, dtype=np.float32))
    )
    seen = pipeline.see_tiles(np.zeros((60, 200, 3), np.uint8))
    assert seen.detections.boxes.tolist() == boxes[[0, 2]].tolist()
    assert [int(v) for v in seen.views[0, :, 0, 0, 0]] == [0, 2]
    assert seen.reading.probs.argmax(axis=1).tolist() == [parse_tile("red-7").index, parse_tile("red-9").index]
    assert seen.reading.tile_prob.tolist() == pytest.approx([0.99, 0.98])
    # the dropped box, and what the reader said of it, stay apart
    assert seen.dropped.boxes.tolist() == boxes[[1]].tolist()
    assert seen.dropped_reading.tile_prob.tolist() == pytest.approx([0.7])
    assert seen.dropped_reading.embeddings.tolist() == [[0.0, 1.0, 0.0]]
    assert pipeline.SeenTiles(seen.detections, seen.views, seen.reading).dropped_reading.probs.shape == (0, NUM_KINDS)
    with pytest.raises(ValueError, match="3 tiles read 2 times"):
        pipeline.SeenTiles(found, views, seen.reading)  # a reading that is not of these boxes
    with pytest.raises(ValueError, match="1 dropped boxes read 0 times"):
        pipeline.SeenTiles(seen.detections, seen.views, seen.reading, seen.dropped)


def test_see_tiles_drops_a_box_whose_body_is_unlike_every_other_tiles(monkeypatch):
    """A patch of wood the detector and the reader are both sure of is left out (and kept among the
    dropped boxes, to offer) when the photo's sure tiles are ivory: the rule vision.read applies."""
    import vision.detector as detector
    import vision.pipeline as pipeline
    import vision.reader as reader
    from tests.test_tile_likeness import IVORY, _crop
    from vision.ink_colour import INK_MARGIN
    from vision.reader import CropReading
    from vision.tile_likeness import LIKENESS, MIN_REFERENCE_TILES

    assert not LIKENESS.is_off
    n = MIN_REFERENCE_TILES + 2
    boxes = np.array([[50 * i, 0, 50 * i + 40, 60] for i in range(n)], np.float32)
    crops = np.stack([_crop(IVORY, seed=i) for i in range(n - 1)] + [_crop((60, 110, 150))])
    views = np.repeat(crops[None], INK_MARGIN + 1, axis=0)
    probs = one_hot(*[f"red-{i + 1}" for i in range(n - 1)], "joker")
    monkeypatch.setattr(detector, "detect_tiles", lambda photo, weights=None: Detections(boxes, np.full(n, 0.95, np.float32)))
    monkeypatch.setattr(reader, "load_reader", lambda weights=None: type("R", (), {"imgsz": 64})())
    monkeypatch.setattr(reader, "crop_views", lambda photo, b, size: views)
    monkeypatch.setattr(reader, "read_views", lambda v, r: CropReading(probs, np.full(n, 0.99), np.eye(n, dtype=np.float32)))
    seen = pipeline.see_tiles(np.zeros((60, 50 * n, 3), np.uint8))
    assert seen.detections.boxes.tolist() == boxes[:-1].tolist()
    assert seen.dropped.boxes.tolist() == boxes[[-1]].tolist()
    assert seen.dropped_reading.probs.argmax(axis=1).tolist() == [parse_tile("joker").index]


def test_read_keeps_the_boxes_it_left_out_and_annotate_dashes_them(monkeypatch):
    """A box dropped as probably no tile is not a tile of the reading, but stays in it as a doubtful
    box (in photo pixels), drawn dashed on the annotated photo; a photo without any draws none."""
    import vision.pipeline as pipeline
    from vision.reader import CropReading

    boxes = np.array([[10, 10, 50, 70], [60, 10, 100, 70], [110, 10, 150, 70]], np.float32)
    seen = pipeline.SeenTiles(
        Detections(boxes, np.ones(3, np.float32)), np.zeros((1, 3, 8, 8, 3), np.uint8),
        CropReading(one_hot("red-7", "red-8", "red-9"), np.ones(3), np.zeros((3, 4), np.float32)),
        Detections(np.array([[200, 20, 240, 80]], np.float32), np.array([0.4], np.float32)),
        CropReading(one_hot("red-10"), np.array([0.1]), np.zeros((1, 4), np.float32)),  # too unlike a tile to offer
    )
    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **_: seen)
    photo = np.zeros((100, 300, 3), np.uint8)
    reading = pipeline.read(photo)
    assert len(reading.tiles) == 3 and reading.doubtful_boxes == ((200.0, 20.0, 240.0, 80.0),)
    assert reading.left_out == ()
    drawn = pipeline.annotate(photo, reading)
    edge = drawn[20, 200:241]  # the top edge: dashes, so some pixels drawn and some not
    grey = (edge == pipeline.DOUBTFUL_BGR).all(axis=1)
    assert grey.any() and not grey.all()
    assert (drawn[40:60, 215:225] == 0).all()  # inside stays the photo
    clean = pipeline.annotate(photo, replace(reading, doubtful_boxes=()))
    assert (clean[15:90, 195:250] == 0).all()
    half = pipeline.annotate(photo, reading, scale=0.5)
    assert (half[10, 100:121] == pipeline.DOUBTFUL_BGR).all(axis=1).any()


# --- notes on taking a better photo ------------------------------------------------------------


def test_a_blurred_photo_says_so_and_asks_for_another_in_the_readers_language():
    from vision.reading import BLURRED_PHOTO, blurred_photo_note

    note = blurred_photo_note(BLURRED_PHOTO, "en")
    assert note is not None and "blurred" in note and "take the photo again" in note
    assert blurred_photo_note(BLURRED_PHOTO - 0.001, "en") is None
    assert blurred_photo_note(0.0, "en") is None  # not measured
    assert blurred_photo_note(float("nan"), "en") is None
    for lang in ("uk", "ru", "ro"):
        assert blurred_photo_note(0.2, lang) not in (None, note)  # translated


def test_a_photo_of_small_tiles_gets_the_small_tiles_note_alone_and_a_blurred_one_the_blur_note():
    """Tiny tiles measure blurred whatever the camera did, and a closer photo cures both: one note."""
    from vision.reading import BLURRED_PHOTO, SMALL_TILE_NOTE_PX, PhotoLook, blurred_photo_note, small_tiles_note

    assert PhotoLook(20.0, 0.3).advice("en") == (small_tiles_note(20.0, "en"),)
    assert PhotoLook(SMALL_TILE_NOTE_PX, BLURRED_PHOTO).advice("en") == (blurred_photo_note(BLURRED_PHOTO, "en"),)
    assert PhotoLook(120.0, BLURRED_PHOTO / 2).advice("en") == ()
    assert PhotoLook().advice("en") == ()  # nothing read


def test_a_readings_messages_end_with_the_note_on_its_blur():
    from vision.reading import PhotoLook, blurred_photo_note

    blurred = replace(sample(), blur=0.12)  # tiles 60 pixels long: not small
    assert blurred.look == PhotoLook(60.0, 0.12)
    assert blurred.messages("uk")[-1] == blurred_photo_note(0.12, "uk")
    assert blurred.messages("uk")[:-1] == sample().messages("uk")
    assert len(sample().messages()) == len(sample().problems)  # 0.03: sharp enough, nothing added


def test_read_measures_the_blur_of_the_tiles_it_keeps(monkeypatch):
    """vision.read measures the tiles it read, on the photo it was given: the same photo smeared
    reads as blurred, and the boxes it left out as no tiles do not count."""
    import cv2

    import vision.pipeline as pipeline
    from vision.reader import CropReading
    from vision.reading import BLURRED_PHOTO, blurred_photo_note

    photo = np.full((300, 1000, 3), (60, 100, 140), np.uint8)
    boxes = np.array([[40 + 130 * i, 60, 140 + 130 * i, 200] for i in range(7)], np.float32)
    for x1, y1, x2, y2 in boxes.astype(int):
        photo[y1:y2, x1:x2] = 235
        cv2.putText(photo[y1:y2, x1:x2], "8", (20, 110), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (30, 30, 30), 8, cv2.LINE_AA)
    photo[:, 420:] = cv2.GaussianBlur(np.ascontiguousarray(photo[:, 420:]), (0, 0), 12)  # the last four tiles smeared
    seen = pipeline.SeenTiles(  # the three sharp tiles kept; the four smeared ones left out as no tiles
        Detections(boxes[:3], np.ones(3, np.float32)), np.zeros((1, 3, 8, 8, 3), np.uint8),
        CropReading(one_hot("red-8", "blue-8", "black-8"), np.ones(3), np.zeros((3, 4), np.float32)),
        Detections(boxes[3:], np.full(4, 0.3, np.float32)),
        CropReading(one_hot("red-8", "red-8", "red-8", "red-8"), np.full(4, 0.3), np.zeros((4, 4), np.float32)),
    )
    monkeypatch.setattr(pipeline, "see_tiles", lambda image, **_: seen)
    sharp = pipeline.read(photo)
    assert 0.0 <= sharp.blur < 0.02
    assert blurred_photo_note(BLURRED_PHOTO) not in sharp.messages()
    smeared = pipeline.read(cv2.GaussianBlur(photo, (0, 0), 6))  # σ 4 % of a 140-pixel tile
    assert smeared.blur >= BLURRED_PHOTO
    assert smeared.messages()[-1] == blurred_photo_note(smeared.blur)
    assert Reading.from_json(smeared.to_json()).blur == pytest.approx(smeared.blur, abs=1e-4)
