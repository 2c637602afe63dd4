"""The calibration experiment's own logic (training/evaluate_profiles.py), without the models."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth.editions import edition
from solver.tiles import parse_tile
from tests.fonts import needs_fonts
from training import evaluate_profiles as ep
from vision.calibration import CalibrationError, PairedPhoto
from vision.detections import Detections
from vision.profiles import TileProfile, TileSample


def test_a_reading_on_a_tile_whose_number_is_hidden_counts_neither_way():
    from dataclasses import replace

    r5, r6 = (parse_tile(t).index for t in ("r5", "r6"))
    photo = _photo([r5, r6], [r5, r6])
    # A third detection, on a tile whose number is hidden (unmatched), read as b7.
    b7 = parse_tile("b7").index
    extra = _photo([r5, r6, b7], [r5, r6, b7])
    ignored = replace(extra, truth=[r5, r6], matched=np.array([r5, r6, -1]), counted=np.array([True, True, False]))
    assert ep.score([ignored], ep.on_probs(lambda p, e: p))["f1"] == 1.0
    phantom = replace(ignored, counted=None)  # counted, it is a phantom
    assert ep.score([phantom], ep.on_probs(lambda p, e: p))["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert ep.score([photo], ep.on_probs(lambda p, e: p))["f1"] == 1.0


@needs_fonts(edition("us-teal"))
def test_a_test_photo_shows_the_edition_and_the_tile_asked_for():
    kind, tile = edition("us-teal"), parse_tile("o9")
    scene = ep.test_scene(kind, np.random.default_rng(3), holding=tile)
    assert scene.edition == "us-teal" and tile in {t.tile for t in scene.tiles}
    assert ep.reading_kind(scene) == ("rack" if scene.kind in ("rack", "closeup") else "table")


def test_a_refused_calibration_photo_is_taken_again_and_reported(monkeypatch):
    answers = iter([CalibrationError("row {row} has a problem", row=5), PairedPhoto(("sample",))])

    def collect(image, layout):
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(ep, "calibration_scene", lambda kind, rng: type("S", (), {"image": None})())
    monkeypatch.setattr(ep, "collect_samples", collect)
    samples, seconds, refused = ep.calibrate(edition("us-teal"), np.random.default_rng(0))
    assert samples == ("sample",) and refused == ["row 5 has a problem"] and seconds >= 0


def test_every_calibration_photo_refused_is_an_error(monkeypatch):
    def refuse(image, layout):
        raise CalibrationError("no tiles found in the photo")

    monkeypatch.setattr(ep, "calibration_scene", lambda kind, rng: type("S", (), {"image": None})())
    monkeypatch.setattr(ep, "collect_samples", refuse)
    with pytest.raises(RuntimeError, match="every calibration photo was refused"):
        ep.calibrate(edition("original-circle"), np.random.default_rng(0), attempts=2)


def _photo(truth: list[int], read: list[int]) -> ep.SeenPhoto:
    n = len(truth)
    probs = np.full((n, 53), 1e-4)
    probs[np.arange(n), read] = 1.0
    boxes = np.array([[i * 50, 0, i * 50 + 40, 56] for i in range(n)], np.float32)
    return ep.SeenPhoto(
        Detections(boxes, np.ones(n, np.float32)), [[i] for i in range(n)], probs / probs.sum(axis=1, keepdims=True),
        np.zeros((n, 4)), truth, np.array(truth), "rack",
    )


def test_the_class_read_wrong_most_often_and_its_misreads_are_counted():
    r5, r6, b7 = (parse_tile(t).index for t in ("r5", "r6", "b7"))
    photos = [_photo([r5, r6, b7], [r6, r6, b7]), _photo([r5, b7], [r6, r5])]
    assert ep.worst_class(photos, None) == (r5, 2)
    assert ep.misreads_of(r5, photos, None) == 2 and ep.misreads_of(b7, photos, None) == 1
    assert ep.worst_class([_photo([r5], [r5])], None) == (None, 0)
    scored = ep.score(photos, ep.on_probs(lambda probs, embeddings: probs))
    assert scored["detected"] == 1.0 and scored["decoded_accuracy"] == pytest.approx(2 / 5)


@needs_fonts(edition("us-teal"))
def test_test_photos_can_be_drawn_as_another_held_out_set_draws_them():
    """--test-set: the photos follow that set's recipe (here its sizes, made small to be quick)."""
    from dataclasses import replace

    assert set(ep.HELD_OUT_SETS) == {"held-out-editions", "held-out-phone", "held-out-games", "confirm-held-out-phone"}
    phone = replace(ep.HELD_OUT_SETS["held-out-phone"], photo_sizes=((800, 600),), closeup_sizes=((800, 450),))
    rng = np.random.default_rng(5)
    shapes = {ep.test_scene(edition("us-teal"), rng, recipe=phone).image.shape[:2] for _ in range(4)}
    assert shapes <= {(600, 800), (450, 800)} and shapes


def test_a_photo_is_seen_again_with_the_boxes_a_profile_vouches_for():
    from tests.synthetic_photos import seen_with_a_dropped_box

    seen, embeddings = seen_with_a_dropped_box()
    r5, r6 = (parse_tile(t).index for t in ("r5", "r6"))
    truth = np.concatenate([seen.detections.boxes, seen.dropped.boxes])
    photo = ep._photo_of(seen, truth, [r5, r6], "rack", None)
    assert photo.matched.tolist() == [r5] and ep.score([photo], ep.on_probs(lambda p, e: p))["recall"] == 0.5
    crops = np.zeros((2, 16, 16, 3), np.uint8)
    samples = [TileSample(parse_tile(t), crops, e) for t, e in zip(("r5", "r6"), embeddings)]
    samples.append(TileSample(parse_tile("b1"), crops, np.eye(8)[2] * 5.0))
    profile = TileProfile.from_samples("mine", samples)
    again = ep.vouched(photo, profile)
    assert again.matched.tolist() == [r5, r6] and ep.score([again], ep.as_read(profile))["f1"] == 1.0
    stranger = TileProfile.from_samples("other", [TileSample(parse_tile(t), crops, np.eye(8)[k] * 5.0)
                                                  for t, k in (("b1", 5), ("b2", 6))])
    assert ep.vouched(photo, stranger) is photo  # a profile that does not know the tile keeps the gate's answer
    assert ep.vouched(_photo([r5], [r5]), profile).matched.tolist() == [r5]  # nothing seen to vouch for


def test_the_gate_study_counts_each_part_and_what_the_profile_would_vouch_for():
    boxes = [ep.GateBox(True, True, 0.9, 1.0, False), ep.GateBox(False, True, 0.88, 0.99, True),
             ep.GateBox(False, False, 0.5, 0.2, False), ep.GateBox(False, False, 0.86, 0.98, True)]
    summary = ep.gate_summary(boxes)
    assert summary["kept tile"]["boxes"] == 1 and summary["kept not a tile"] == {"boxes": 0, "cosine_10_50_90": None, "vouched_for": 0}
    assert summary["dropped tile"]["vouched_for"] == 1 and summary["dropped not a tile"]["vouched_for"] == 1
    assert summary["dropped not a tile"]["boxes"] == 2


def test_a_table_photographed_again_moves_its_tiles_boxes_with_it():
    from datasets.synth.scenes import PlacedTile, Scene

    image = np.full((300, 400, 3), 60, np.uint8)
    image[100:180, 150:210] = 240  # a tile
    corners = np.float32([[150, 100], [210, 100], [210, 180], [150, 180]])
    cut = np.float32([[380, 20], [440, 20], [440, 100], [380, 100]])  # two thirds beyond the frame
    scene = Scene(image, (PlacedTile(parse_tile("r5"), corners, (150, 100, 210, 180), 1.0),
                          PlacedTile(parse_tile("b2"), cut, (380, 20, 400, 100), 0.33)), ((0,), (1,)), "table")
    for seed in range(3):
        again = ep.photographed_again(scene, np.random.default_rng(seed))
        assert again.image.shape == image.shape and not np.array_equal(again.image, image)
        ys, xs = np.nonzero(again.image.mean(axis=2) > 150)
        found = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float32)
        moved = np.array(again.tiles[0].box, np.float32)
        assert np.abs(found - moved).max() < 4  # the box follows the tile
        assert again.tiles[0].number_visible == 1.0 and again.tiles[1].number_visible == 0.0
        assert again.tiles[0].tile == parse_tile("r5")


def test_misreads_and_tallies_of_a_photo():
    r5, r6, b7 = (parse_tile(t).index for t in ("r5", "r6", "b7"))
    photo = _photo([r5, r6, b7], [r6, r6, b7])
    labels = np.array([r6, r6, b7])
    assert ep._misread(photo, labels) == [(0, r5)]
    assert ep._tallies(photo, labels) == (2, 3, 3)
    assert ep.score([photo], ep.on_probs(lambda p, e: p))["f1"] == pytest.approx(2 / 3, abs=1e-4)


def test_the_studys_session_memory_remembers_a_photos_misreads_as_the_player_set_them():
    from dataclasses import replace

    r5, r6, b7, k1, o2 = (parse_tile(t).index for t in ("r5", "r6", "b7", "k1", "o2"))
    rng = np.random.default_rng(4)
    looks = rng.normal(0, 1, (5, 4)) + 20.0  # five tiles of one photo, much alike
    first = replace(_photo([r5, r6, b7, k1, o2], [r6, r6, b7, k1, o2]), embeddings=looks)  # the r5 is read as r6
    memory = ep.session_memory(first, ep._misread(first, ep._decoded(first, first.probs)))
    assert memory.labels.tolist() == [r5]
    again = replace(first, embeddings=looks + 3.0 + rng.normal(0, 0.05, looks.shape))  # other light, the same tiles
    assert ep._decoded(again, memory.adapt(again.probs, again.embeddings)).tolist() == [r5, r6, b7, k1, o2]
    assert ep._decoded(again, again.probs).tolist() == [r6, r6, b7, k1, o2]  # what the reader alone says
    assert len(ep.session_memory(first, [])) == 0


def test_the_studys_decoding_flags_a_tile_as_the_app_does_counting_the_doubt_that_it_is_a_tile():
    """A sure reading of a box the reader doubts shows a tile at all is flagged, as
    :func:`vision.read` flags it; so "wrong shown as sure" counts what a player would see."""
    from dataclasses import replace

    from vision.pipeline import SeenTiles
    from vision.reader import CropReading

    r5, r6, b7, k1, o2 = (parse_tile(t).index for t in ("r5", "r6", "b7", "k1", "o2"))
    photo = _photo([r5, r6, b7, k1, o2], [r6, r6, b7, k1, o2])
    assert ep._decoding(photo, photo.probs).uncertain == (False,) * 5  # no record of the boxes: all tiles
    doubted = np.array([0.3, 1.0, 1.0, 1.0, 1.0])
    seen = SeenTiles(photo.detections, np.zeros((1, 5, 4, 4, 3), np.uint8), CropReading(photo.probs, doubted, photo.embeddings))
    decoding = ep._decoding(replace(photo, seen=seen), photo.probs)
    assert decoding.uncertain == (True, False, False, False, False)
    assert ep._decoded(replace(photo, seen=seen), photo.probs).tolist() == [r6, r6, b7, k1, o2]  # labels unchanged


def test_the_removal_study_keeps_the_non_tiles_the_gate_dropped_as_the_phantoms_of_real_photos():
    """A dropped box on no tile is kept and counted a non-tile; a dropped box on a labelled tile (the
    red 6, or one whose number is hidden) is not; a kept box on no tile is a non-tile too, a kept box
    lying loosely on a tile is not."""
    from tests.synthetic_photos import seen_with_a_dropped_box

    seen, _ = seen_with_a_dropped_box()
    r5, r6 = (parse_tile(t).index for t in ("r5", "r6"))
    kept, dropped = seen.detections.boxes, seen.dropped.boxes
    on_nothing = ep._photo_of(seen, kept, [r5], "rack", np.zeros((0, 4), np.float32))
    photo, non_tiles = ep.with_dropped_non_tiles(on_nothing)
    assert len(photo.matched) == 2 and photo.matched.tolist() == [r5, -1] and non_tiles.tolist() == [False, True]
    on_a_tile = ep._photo_of(seen, np.concatenate([kept, dropped]), [r5, r6], "rack", np.zeros((0, 4), np.float32))
    photo, non_tiles = ep.with_dropped_non_tiles(on_a_tile)
    assert len(photo.matched) == 1 and not non_tiles.any()
    on_hidden = ep._photo_of(seen, kept, [r5], "rack", dropped)
    photo, non_tiles = ep.with_dropped_non_tiles(on_hidden)
    assert len(photo.matched) == 1 and not non_tiles.any()
    phantom = ep._photo_of(seen, np.zeros((0, 4), np.float32), [], "rack", np.zeros((0, 4), np.float32))
    assert ep.with_dropped_non_tiles(phantom)[1].tolist() == [True, True]
    loose = kept + np.array([[20, 0, 20, 0]], np.float32)  # the kept box lies half on its tile: matched to none
    photo, non_tiles = ep.with_dropped_non_tiles(ep._photo_of(seen, loose, [r5], "rack", np.zeros((0, 4), np.float32)))
    assert photo.matched.tolist()[0] == -1 and not non_tiles[0]  # a loose box on a tile is no phantom


def test_the_removal_study_draws_racks_and_tables_with_rack_ends_and_distractors():
    recipe = ep.with_phantoms(ep.HELD_OUT_SETS["held-out-phone"])
    assert recipe.rack_ends == 1.0 and recipe.distractors == (3, 8)
    assert {k for k, _ in recipe.kinds} == {"closeup", "rack", "table"}
    assert recipe.photo_sizes == ep.HELD_OUT_SETS["held-out-phone"].photo_sizes  # the test set's sizes kept


def test_the_removal_study_reads_a_photo_as_the_app_does_with_the_sessions_memory():
    """A box like a removed one keeps its reading and is flagged; a photo with no record of its
    boxes has only the boxes it kept to count."""
    from dataclasses import replace

    from vision.session_memory import SessionMemory

    r5, r6, b7, k1, o2 = (parse_tile(t).index for t in ("r5", "r6", "b7", "k1", "o2"))
    looks = np.random.default_rng(6).normal(0, 1, (5, 4)) + 20.0
    photo = replace(_photo([r5, r6, b7, k1, o2], [r5, r6, b7, k1, o2]), embeddings=looks)
    memory = SessionMemory().remembering(looks, [], removed=[4])
    labels, flagged = ep._read_with_memory(photo, memory)
    assert labels.tolist() == [r5, r6, b7, k1, o2] and flagged.tolist() == [False] * 4 + [True]
    assert ep._read_with_memory(photo, SessionMemory())[1].tolist() == [False] * 5
    kept, non_tiles = ep.with_dropped_non_tiles(replace(photo, truth_boxes=photo.detections.boxes[:4], hidden=np.zeros((0, 4))))
    assert kept is not None and non_tiles.tolist() == [False] * 4 + [True]


def test_the_removal_study_flags_a_tile_the_photos_own_inks_alone_settled_as_the_app_does():
    """Without a profile the photo's own inks weigh each colour (vision.read's path), and the tile
    they alone settled (a navy 5 the reader takes for black at 60 %) is read blue and flagged."""
    from dataclasses import replace

    from solver.tiles import Colour
    from tests.test_ink_colour import EVERY_COLOUR, _photo_crops, _seen
    from vision.session_memory import SessionMemory

    probs, crops = _photo_crops(EVERY_COLOUR, torn=Colour.BLUE)
    seen = _seen(crops, probs)
    truth = [parse_tile(name).index for _, name in EVERY_COLOUR] + [parse_tile("b5").index]
    photo = ep._photo_of(seen, seen.detections.boxes, truth, "rack", None)
    labels, flagged = ep._read_with_memory(photo, SessionMemory())
    assert labels.tolist() == truth and flagged.tolist() == [False] * len(EVERY_COLOUR) + [True]
    without_crops = replace(photo, seen=None)  # no crops kept: no inks, the reader's black 5 as it was
    labels, flagged = ep._read_with_memory(without_crops, SessionMemory())
    assert labels[-1] == parse_tile("k5").index and flagged.tolist() == [False] * len(EVERY_COLOUR) + [True]


def test_a_table_photographed_again_keeps_its_distractors_in_order_and_moves_them_with_it():
    from dataclasses import replace

    from datasets.synth.scenes import Scene

    image = np.full((300, 400, 3), 60, np.uint8)
    image[40:80, 30:90] = 250  # a coin, say
    scene = replace(Scene(image, (), (), "table"), distractors=((30.0, 40.0, 90.0, 80.0), (300.0, 200.0, 340.0, 260.0)))
    again = ep.photographed_again(scene, np.random.default_rng(1))
    assert len(again.distractors) == 2
    ys, xs = np.nonzero(again.image.mean(axis=2) > 180)
    found = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float32)
    assert np.abs(found - np.array(again.distractors[0], np.float32)).max() < 4


def test_the_removal_study_finds_the_object_a_removed_box_lay_on():
    boxes = np.array([[10, 10, 30, 30], [100, 100, 120, 140]], np.float32)
    objects = [(0.0, 0.0, 40.0, 40.0), (200.0, 200.0, 260.0, 260.0), (105.0, 90.0, 160.0, 150.0)]
    assert ep._objects_under(boxes, objects) == [0, 2]  # box 2 lies three quarters on object 2
    assert ep._lying_on(boxes, objects[1]).tolist() == [False, False]
    assert ep._objects_under(np.zeros((0, 4), np.float32), objects) == []


def test_a_method_then_the_gated_mix_mixes_the_profile_into_its_output():
    crops = np.zeros((1, 4, 4, 3), np.uint8)
    profile = TileProfile.from_samples("mine", [TileSample(parse_tile(t), crops, np.eye(8)[k] * 5.0)
                                                for t, k in (("r5", 0), ("r6", 1), ("b1", 2))])
    r5, r6 = parse_tile("r5").index, parse_tile("r6").index
    sure_r6 = np.full((1, 53), 1e-4)
    sure_r6[0, r6] = 1.0
    first = lambda probs, embeddings: sure_r6 / sure_r6.sum()  # noqa: E731 - a method that always says red 6
    combined = ep._then_gated(first, profile)
    near_r5 = (np.eye(8)[0] * 5.0)[None]  # a tile the profile recognises as its red 5
    mixed = combined(np.full((1, 53), 1 / 53), near_r5)
    np.testing.assert_allclose(mixed, profile.adapt(first(None, None), near_r5))
    assert mixed[0, r5] > 0.5 and mixed[0, r6] < 0.5  # the profile's word, on top of the method's


def test_score_counts_wrong_tiles_shown_as_sure_and_right_tiles_flagged_with_the_inks_doubt():
    r5, r6, b7 = (parse_tile(t).index for t in ("r5", "r6", "b7"))
    photo = _photo([r5, r6, b7], [r6, r6, b7])  # the first read wrong, all three surely
    plain = ep.score([photo], ep.on_probs(lambda p, e: p))
    assert (plain["wrong_shown_sure"], plain["right_flagged"]) == (1, 0)

    def settled_by_the_inks(rows: list[int]):
        """A method whose inks alone made ``rows`` sure: before them the reader was torn."""

        def read(p):
            before = p.probs.copy()
            before[rows] = 1.0 / before.shape[1]
            return before, p.probs

        return read

    assert ep.score([photo], settled_by_the_inks([0, 2])) == plain | {"wrong_shown_sure": 0, "right_flagged": 1}


def test_the_profile_as_read_holds_in_doubt_what_its_inks_alone_change():
    """as_read: the probabilities vision.read decodes with a profile, and its doubts (the inks'
    weighing is measured in tests/test_ink_colour.py; here the evaluation only passes it on)."""
    from tests.test_ink_colour import _calibration, _crop, _seen, _two_way
    from solver.tiles import Colour

    probs = np.concatenate([_two_way("k5", "b5", 0.6), _two_way("r3", "r13", 0.999), _two_way("o9", "r13", 0.999)])
    crops = np.stack([_crop(c) for c in (Colour.BLUE, Colour.RED, Colour.ORANGE)])
    seen = _seen(crops, probs)
    b5, r3, o9 = (parse_tile(t).index for t in ("b5", "r3", "o9"))
    photo = ep._photo_of(seen, seen.detections.boxes, [b5, r3, o9], "rack", None)
    profile = TileProfile.from_samples("mine", _calibration())
    plain, inked = ep.as_read(profile)(photo)
    np.testing.assert_allclose(plain, profile.adapt(photo.probs, photo.embeddings))
    assert inked.argmax(axis=1).tolist() == [b5, r3, o9]
    assert ep._decided(photo, plain, inked).ink_doubt.tolist() == [True, False, False]
    scored = ep.score([photo], ep.as_read(profile))
    assert scored["f1"] == 1.0 and (scored["wrong_shown_sure"], scored["right_flagged"]) == (0, 1)
    without = ep.score([photo], ep.on_probs(profile.adapt))
    assert without["f1"] == pytest.approx(2 / 3, abs=1e-4)
    assert ep.score([photo], ep.inks_heard(profile, 0.0, 3.0))["f1"] == without["f1"]  # not heard: as without


@pytest.mark.parametrize("text", ["1", "a,b", "1,2,3", "-1,2", "0.5,-3"])
def test_ink_settings_are_two_numbers_not_negative(text, capsys):
    with pytest.raises(SystemExit):
        ep.main(["--ink-settings", text])
    assert "--ink-settings" in capsys.readouterr().err


class _FirstTestPhoto(Exception):
    """Raised by the stand-in test_scene: the study has drawn its first test photo."""


@pytest.mark.parametrize("study", ["synthetic_experiment", "retake_study", "gate_study"])
def test_a_studys_test_photos_do_not_depend_on_how_many_calibration_photos_were_refused(monkeypatch, study):
    """A calibration photo the reader refuses is taken again; the test photos after it must be the
    same whatever the reader refused, or two readers are compared on other photos."""
    drawn = []

    def first_test_photo(kind, rng, recipe=None):
        drawn.append(int(rng.integers(1 << 62)))
        raise _FirstTestPhoto

    monkeypatch.setattr(ep, "test_scene", first_test_photo)
    monkeypatch.setattr(ep.TileProfile, "from_samples", staticmethod(lambda name, samples: None))
    for retakes in (0, 3):
        def calibrate(kind, rng, retakes=retakes):
            rng.random(retakes)  # each refused photo draws its scene anew
            return (), 0.1, ["refused"] * retakes
        monkeypatch.setattr(ep, "calibrate", calibrate)
        with pytest.raises(_FirstTestPhoto):
            getattr(ep, study)(edition("us-teal"), 3, 1, ep.HELD_OUT_RECIPE)
    assert len(drawn) == 2 and drawn[0] == drawn[1]


def test_a_test_photo_draws_a_note_when_its_kept_tiles_are_small_or_blurred():
    """The study's "photos that draw no note" leave out what a player is asked to take again."""
    import cv2
    from dataclasses import replace

    image = np.full((200, 400, 3), (60, 100, 140), np.uint8)
    for i in range(3):
        tile = image[40:180, 20 + 120 * i : 120 + 120 * i]
        tile[:] = 235
        cv2.putText(tile, "8", (20, 110), cv2.FONT_HERSHEY_SIMPLEX, 3.0, (30, 30, 30), 8, cv2.LINE_AA)
    photo = _photo([1, 2, 3], [1, 2, 3])
    large = replace(photo, detections=Detections(
        np.array([[20 + 120 * i, 40, 120 + 120 * i, 180] for i in range(3)], np.float32), np.ones(3, np.float32)))
    assert not ep.draws_a_note(image, large)
    assert ep.draws_a_note(cv2.GaussianBlur(image, (0, 0), 7), large)  # blurred
    small = replace(photo, detections=Detections(np.array([[0, 0, 20, 28]] * 3, np.float32), np.ones(3, np.float32)))
    assert ep.draws_a_note(image, small)  # tiles 28 px long


def test_the_left_out_study_adds_the_offered_tiles_and_counts_what_the_memory_keeps_on_the_retaken_photo(monkeypatch):
    """The first photo drops a readable red 7 (offered, added as a red 7); the retaken photo drops it
    again: without the memory it is lost, with it kept and read as the red 7 it is."""
    import vision.pipeline as pipeline
    from vision.reader import CropReading

    names = ("r2", "r3", "r4", "r5", "r6", "r7")
    labels = [parse_tile(n).index for n in names]
    boxes = np.array([[100 + 50 * i, 100, 145 + 50 * i, 160] for i in range(6)], np.float32)
    looks = np.random.default_rng(7).normal(0, 1, (6, 16)) + 30.0
    probs = np.full((6, 53), 0.01 / 52)
    probs[np.arange(6), labels] = 0.99
    probs[5] = np.full(53, 0.4 / 52)
    probs[5, parse_tile("r1").index] = 0.6  # the left-out red 7 taken for a red 1

    def seen_photo(light: float):
        shift = light * np.random.default_rng(int(light)).normal(0, 1, 16)
        seen = pipeline.SeenTiles(
            Detections(boxes[:5], np.ones(5, np.float32)), np.zeros((1, 5, 8, 8, 3), np.uint8),
            CropReading(probs[:5], np.ones(5), looks[:5] + shift),
            Detections(boxes[5:], np.array([0.4], np.float32)), CropReading(probs[5:], np.array([0.4]), looks[5:] + shift),
            np.zeros((1, 1, 8, 8, 3), np.uint8),
        )
        return ep._photo_of(seen, boxes, labels, "rack", np.zeros((0, 4), np.float32))

    photos = iter([seen_photo(0.0), seen_photo(3.0)])
    monkeypatch.setattr(ep, "test_scene", lambda kind, rng, recipe=None: "scene")
    monkeypatch.setattr(ep, "photographed_again", lambda scene, rng: "scene again")
    monkeypatch.setattr(ep, "_scene_photo", lambda scene: next(photos))
    result = ep.left_out_study(edition("selection-heavy"), 0, 1, ep.HELD_OUT_SETS["held-out-phone"])
    without, remembered = result["without the memory"], result["with the tiles added remembered"]
    assert (without["tp"], without["true"]) == (5, 6)
    assert (remembered["added"], remembered["kept_by_memory"], remembered["kept_on_tiles"]) == (1, 1, 1)
    assert (remembered["tp"], remembered["read"]) == (6, 6) and remembered["f1"] == 1.0
