"""A tile's ink against its body, a player's four inks, and how they weigh the reader's colours."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from solver.rules import STANDARD
from solver.tiles import JOKER_INDEX, NUM_KINDS, Colour, Tile, parse_tile
from vision.detections import Detections
from vision.ink_colour import FLOOR, MIN_PER_COLOUR, InkModel, ink_directions, photo_inks, weigh_colours
from vision.pipeline import decode_photo, decode_together, decode_with_inks, read
from vision.profiles import TileProfile, TileSample
from vision.reader import CropReading
from vision.reading import ReadingKind

#: Inks (BGR) of a made-up set whose blue is a dark navy, near its black: the reader's usual confusion.
INKS = {Colour.BLACK: (45, 42, 40), Colour.BLUE: (125, 55, 20), Colour.ORANGE: (10, 150, 235), Colour.RED: (45, 25, 190)}
BODY = (222, 230, 232)
COLOURS = list(Colour)


def _crop(colour: Colour, digit: str = "8", light: float = 1.0, size: int = 64, drawn_at: int = 64, seed: int = 0) -> np.ndarray:
    """A tile's crop as the reader is given it: the body, a digit in ``colour``'s ink, in ``light``,
    drawn at ``drawn_at`` px and scaled to ``size`` (a small tile blown up), a little noise."""
    rng = np.random.default_rng(seed)
    crop = np.full((drawn_at, drawn_at, 3), BODY, np.uint8)
    scale = drawn_at / 64
    cv2.putText(crop, digit, (int(22 * scale), int(44 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.9 * scale, INKS[colour],
                max(1, int(round(3 * scale))), cv2.LINE_AA)
    crop = cv2.resize(crop, (size, size), interpolation=cv2.INTER_LINEAR).astype(np.float64) * light
    return np.clip(crop + rng.normal(0, 2, crop.shape), 0, 255).astype(np.uint8)


#: Embeddings are drawn at random in this many dimensions, so that no tile here is near another:
#: the profile's class means are never heard, and only its inks act.
DIM = 64


def _calibration(per_colour: int = 13, colours=COLOURS) -> list[TileSample]:
    """A calibration photo's tiles of the set: each colour 1 to ``per_colour``, in slightly varying light."""
    rng = np.random.default_rng(7)
    samples = []
    for colour in colours:
        for number in range(1, per_colour + 1):
            crop = _crop(colour, str(number % 10), light=0.9 + 0.01 * number, seed=number)
            samples.append(TileSample(Tile(colour, number), crop[None], rng.normal(size=DIM)))
    return samples


def _two_way(first: str, second: str, p_first: float, n: int = 1) -> np.ndarray:
    probs = np.full((n, NUM_KINDS), 1e-5)
    probs[:, parse_tile(first).index] = p_first
    probs[:, parse_tile(second).index] = 1.0 - p_first
    return probs / probs.sum(axis=1, keepdims=True)


def _model() -> InkModel:
    inks = InkModel.of_samples(_calibration())
    assert inks is not None
    return inks


# --- the ink of one crop ---------------------------------------------------------------------------


def test_an_inks_direction_points_from_the_body_towards_the_ink():
    black, blue, orange, red = (ink_directions(_crop(c)[None])[0] for c in COLOURS)  # (L, a, b)
    assert black[0] < -0.9  # darker, hardly any hue
    assert blue[2] < -0.3 and blue[0] < 0  # towards blue (b < 0)
    assert orange[2] > 0.4 and orange[1] > 0.1  # yellow and red
    assert red[1] > 0.4 and red[1] > orange[1]  # towards red (a > 0), more than orange
    for d in (black, blue, orange, red):
        assert np.linalg.norm(d) == pytest.approx(1.0)


def test_the_direction_stays_in_dim_light_and_on_a_small_tile_blown_up():
    for colour in COLOURS:
        bright = ink_directions(_crop(colour)[None])[0]
        dim = ink_directions(_crop(colour, light=0.6)[None])[0]
        small = ink_directions(_crop(colour, drawn_at=22)[None])[0]
        assert bright @ dim > 0.97, colour
        assert bright @ small > 0.9, colour


def test_the_ink_is_read_from_the_crop_cut_at_the_box_with_no_margin():
    from vision.ink_colour import INK_MARGIN
    from vision.reader import READ_PADS

    assert READ_PADS[INK_MARGIN] == 0.0


def test_ink_directions_of_no_crops_and_of_what_is_not_crops():
    assert ink_directions(np.zeros((0, 64, 64, 3), np.uint8)).shape == (0, 3)
    with pytest.raises(ValueError, match="square BGR crops"):
        ink_directions(np.zeros((2, 64, 32, 3), np.uint8))
    with pytest.raises(ValueError, match="square BGR crops"):
        ink_directions(np.zeros((64, 64, 3), np.uint8))
    assert ink_directions(np.zeros((1, 2, 2, 3), np.uint8)).shape == (1, 3)  # a tiny crop is its own middle


# --- the set's four inks ---------------------------------------------------------------------------


def test_the_inks_of_a_calibration_tell_the_colours_of_new_tiles_apart_even_the_navy_from_the_black():
    inks = _model()
    for colour in COLOURS:
        new = np.stack([_crop(colour, digit, light, seed=s) for s, (digit, light) in enumerate(
            [("3", 1.0), ("5", 0.7), ("7", 1.1), ("2", 0.8)])])
        assert (inks.log_likelihoods(ink_directions(new)).argmax(axis=1) == COLOURS.index(colour)).all(), colour


def test_fitting_needs_enough_tiles_of_every_colour_and_colours_that_exist():
    directions = np.random.default_rng(0).normal(size=(12, 3))
    with pytest.raises(ValueError, match="each colour needs"):
        InkModel.fit(directions, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 0])
    with pytest.raises(ValueError, match="a colour is a position"):
        InkModel.fit(directions, [0, 1, 2, 3, 4, 0, 1, 2, 3, 0, 1, 2])
    with pytest.raises(ValueError, match="colours for ink directions"):
        InkModel.fit(directions, [0, 1, 2])


def test_a_profile_has_inks_only_when_its_tiles_show_every_colour_enough():
    rack = _calibration(9, colours=[Colour.RED, Colour.ORANGE, Colour.BLUE])  # r1-r9 | o1-o9 | b1-b9
    assert InkModel.of_samples(rack) is None
    few = _calibration(MIN_PER_COLOUR - 1)
    assert InkModel.of_samples(few) is None
    joker = TileSample(Tile.from_index(JOKER_INDEX), _crop(Colour.RED)[None], np.ones(DIM))
    assert InkModel.of_samples([*_calibration(MIN_PER_COLOUR), joker]) is not None  # the joker is left out
    assert TileProfile.from_samples("rack", rack).inks is None
    assert TileProfile.from_samples("set", _calibration()).inks is not None


# --- weighing the reader's colours -----------------------------------------------------------------


def test_a_colour_the_reader_hesitates_on_is_read_as_the_ink_says():
    inks = _model()
    torn = _two_way("k5", "b5", 0.6)
    as_blue = inks.adapt(torn, ink_directions(_crop(Colour.BLUE, "5")[None]))
    as_black = inks.adapt(torn, ink_directions(_crop(Colour.BLACK, "5")[None]))
    assert as_blue.argmax() == parse_tile("b5").index
    assert as_black.argmax() == parse_tile("k5").index and as_black[0, parse_tile("k5").index] > 0.6


def test_the_inks_never_overrule_a_reader_that_is_sure():
    inks = _model()
    sure = _two_way("k5", "b5", 0.995)
    weighed = inks.adapt(sure, ink_directions(_crop(Colour.BLUE, "5")[None]))
    assert weighed.argmax() == parse_tile("k5").index
    # at most the floor's worth against the likeliest colour: odds of 199:1 become no worse than 199:e^3... per side
    odds = weighed[0, parse_tile("k5").index] / weighed[0, parse_tile("b5").index]
    assert odds >= 199 * np.exp(-FLOOR) * 0.999


def test_weighing_keeps_each_rows_sum_and_weighs_nothing_at_weight_zero():
    inks = _model()
    rng = np.random.default_rng(3)
    probs = rng.dirichlet(np.ones(NUM_KINDS), size=4) * 0.9  # rows summing to 0.9
    directions = ink_directions(np.stack([_crop(c) for c in COLOURS]))
    weighed = inks.adapt(probs, directions)
    np.testing.assert_allclose(weighed.sum(axis=1), 0.9)
    assert not np.allclose(weighed, probs)
    np.testing.assert_allclose(inks.adapt(probs, directions, weight=0.0), probs)
    assert inks.adapt(np.zeros((0, NUM_KINDS)), np.zeros((0, 3))).shape == (0, NUM_KINDS)
    with pytest.raises(ValueError, match="ink directions for probabilities"):
        inks.adapt(probs, directions[:2])


def test_the_jokers_share_moves_only_as_the_numbered_tiles_are_weighed_around_it():
    inks = _model()
    probs = np.full((1, NUM_KINDS), 0.5 / (NUM_KINDS - 1))
    probs[0, JOKER_INDEX] = 0.5
    weighed = inks.adapt(probs, ink_directions(_crop(Colour.ORANGE)[None]))
    numbered = weighed[0, :JOKER_INDEX].reshape(len(COLOURS), -1).sum(axis=1)  # per colour
    assert numbered.argmax() == COLOURS.index(Colour.ORANGE)
    assert weighed[0, JOKER_INDEX] == pytest.approx(0.5, abs=0.3)
    assert weighed.sum() == pytest.approx(1.0)


def _photo_crops(colours_read: list[tuple[Colour, str]], torn: Colour | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One photo's tiles, (probabilities, crops): each (ink, tile the reader surely reads), and last,
    if ``torn`` is given, a tile in that ink the reader takes for a black 5 at 60 % against a blue 5."""
    probs = [_two_way(name, "r13", 0.95) for _, name in colours_read]
    crops = [_crop(colour, seed=i) for i, (colour, _) in enumerate(colours_read)]
    if torn is not None:
        probs.append(_two_way("k5", "b5", 0.6))
        crops.append(_crop(torn, "5", seed=99))
    return np.concatenate(probs), np.stack(crops)


def _photo(colours_read: list[tuple[Colour, str]], torn: Colour | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_photo_crops`' probabilities and its crops' ink directions."""
    probs, crops = _photo_crops(colours_read, torn)
    return probs, ink_directions(crops)


EVERY_COLOUR = [(c, f"{c.value[0] if c is not Colour.BLACK else 'k'}{n}") for c in COLOURS for n in (1, 4, 9)]


def test_without_a_profile_the_photos_own_sure_tiles_give_its_inks():
    probs, directions = _photo(EVERY_COLOUR, torn=Colour.BLUE)
    inks = photo_inks(probs, directions)
    assert inks is not None
    weighed = weigh_colours(probs, directions)  # no profile: the photo's own inks
    assert weighed[-1].argmax() == parse_tile("b5").index
    assert (weighed[:-1].argmax(axis=1) == probs[:-1].argmax(axis=1)).all()
    np.testing.assert_allclose(weighed, inks.adapt(probs, directions))


def test_a_photo_whose_reader_takes_a_whole_colour_for_another_gets_no_inks_of_its_own():
    """Every blue read as black: too few tiles are read surely as blue, so nothing is fitted or weighed."""
    read_as_black = [(c, name if c is not Colour.BLUE else "k" + name[1:]) for c, name in EVERY_COLOUR]
    probs, directions = _photo(read_as_black, torn=Colour.BLUE)
    assert photo_inks(probs, directions) is None
    np.testing.assert_array_equal(weigh_colours(probs, directions), probs)
    unsure = np.concatenate([_two_way(name, "r13", 0.7) for _, name in EVERY_COLOUR])  # below PHOTO_SURE
    assert photo_inks(unsure, directions[:-1]) is None
    assert photo_inks(np.zeros((0, NUM_KINDS)), np.zeros((0, 3))) is None


def test_the_photos_own_inks_are_heard_first_then_the_profiles_each_where_known():
    probs, directions = _photo(EVERY_COLOUR, torn=Colour.BLUE)
    own = photo_inks(probs, directions)
    # a set whose black ink is this navy and whose blue is this black, as its own calibration says
    swapped = {Colour.BLACK: Colour.BLUE, Colour.BLUE: Colour.BLACK, Colour.ORANGE: Colour.ORANGE, Colour.RED: Colour.RED}
    mine = InkModel.of_samples([replace(s, tile=Tile(swapped[s.tile.colour], s.tile.number)) for s in _calibration()])
    np.testing.assert_allclose(weigh_colours(probs, directions, mine), mine.adapt(own.adapt(probs, directions), directions))
    np.testing.assert_allclose(weigh_colours(probs, directions), own.adapt(probs, directions))
    rack = TileProfile.from_samples("rack", _calibration(9, colours=[Colour.RED, Colour.ORANGE, Colour.BLUE]))
    np.testing.assert_allclose(weigh_colours(probs, directions, rack.inks), own.adapt(probs, directions))
    # a photo with too few sure tiles of each colour: the profile's inks alone, and they decide
    few, few_directions = probs[-4:], directions[-4:]
    assert photo_inks(few, few_directions) is None
    np.testing.assert_allclose(weigh_colours(few, few_directions, mine), mine.adapt(few, few_directions))
    assert weigh_colours(few, few_directions, mine)[-1].argmax() == parse_tile("k5").index  # the profile's word


# --- held in doubt: the inks never make a tile sure on their own ------------------------------------


def test_a_tile_the_inks_read_otherwise_or_the_reader_doubts_is_held_in_doubt():
    plain = np.concatenate([_two_way("k5", "b5", 0.6), _two_way("r3", "o3", 0.999), _two_way("o9", "r9", 0.55)])
    inked = plain.copy()
    inked[0] = _two_way("k5", "b5", 0.1)[0]  # the inks read it otherwise
    inked[2] = _two_way("o9", "r9", 0.999)[0]  # the inks make a doubted tile sure
    rack = [[0, 1, 2]]
    decided = decode_with_inks(plain, inked, rack, ReadingKind.RACK)
    assert decided.decoding.labels == decode_photo(inked, rack, ReadingKind.RACK).labels  # what is shown
    assert decided.plain.labels == decode_photo(plain, rack, ReadingKind.RACK).labels
    assert decided.plain.labels[0] == parse_tile("k5").index and decided.decoding.labels[0] == parse_tile("b5").index
    assert decided.ink_doubt.tolist() == [True, False, True]
    assert decided.flagged.tolist() == [bool(u) or d for u, d in zip(decided.decoding.uncertain, decided.ink_doubt)]
    assert decided.flagged[[0, 2]].all()  # the player checks them, whatever decoding with the inks says
    same = decode_with_inks(plain, plain.copy(), rack, ReadingKind.RACK)  # the inks changed nothing
    assert same.without is None and same.plain is same.decoding and not same.ink_doubt.any()
    assert same.flagged.tolist() == [bool(u) for u in same.decoding.uncertain]


def _seen(crops: np.ndarray, probs: np.ndarray):
    import vision.pipeline as pipeline

    n = len(probs)
    boxes = np.array([[100 + 50 * i, 100, 140 + 50 * i, 156] for i in range(n)], np.float32)
    reading = CropReading(probs, np.full(n, 0.99), np.random.default_rng(0).normal(size=(n, DIM)))
    return pipeline.SeenTiles(Detections(boxes, np.full(n, 0.9, np.float32)), crops[None], reading)


def test_reading_with_a_profile_weighs_the_colours_by_the_players_inks_and_holds_what_they_changed_in_doubt(monkeypatch):
    import vision.pipeline as pipeline

    names = ["k5", "r3", "o9", "b2", "k7", "r12"]
    probs = np.concatenate([_two_way(n, "r13", 0.999) for n in names])
    probs[0] = _two_way("k5", "b5", 0.6)[0]  # a navy 5 the reader takes for black
    colours = [Colour.BLUE, Colour.RED, Colour.ORANGE, Colour.BLUE, Colour.BLACK, Colour.RED]
    crops = np.stack([_crop(c, seed=i) for i, c in enumerate(colours)])
    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **kw: _seen(crops, probs))
    photo = np.full((300, 500, 3), 128, np.uint8)

    alone = read(photo, "rack")  # too few tiles of each colour for the photo's own inks
    assert alone.tiles[0].tile.short == "k5" and not alone.tiles[0].ink_doubt
    mine = read(photo, "rack", profile=TileProfile.from_samples("mine", _calibration()))
    assert [t.tile.short for t in mine.tiles] == ["b5", *names[1:]]
    assert mine.tiles[0].uncertain and mine.tiles[0].ink_doubt
    assert not any(t.uncertain for t in mine.tiles[1:])
    assert mine.samples[0].probs.argmax() == parse_tile("b5").index  # what a later decoding starts from

    table = read(photo, "table")  # any other photo of the turn: the doubt outlives decoding again
    _, together = decode_together((table, mine), STANDARD)
    assert together.tiles[0].tile.short == "b5" and together.tiles[0].uncertain and together.tiles[0].ink_doubt
    assert replace(together.tiles[0], ink_doubt=False).to_json() == together.tiles[0].to_json()  # not in JSON


def test_reading_without_a_profile_weighs_the_colours_by_the_photos_own_inks(monkeypatch):
    import vision.pipeline as pipeline

    probs, _ = _photo(EVERY_COLOUR, torn=Colour.BLUE)
    crops = np.stack([_crop(c, seed=i) for i, (c, _) in enumerate(EVERY_COLOUR)] + [_crop(Colour.BLUE, "5", seed=99)])
    monkeypatch.setattr(pipeline, "see_tiles", lambda photo, **kw: _seen(crops, probs))
    tiles = read(np.full((300, 900, 3), 128, np.uint8), "rack").tiles
    torn = [t for t in tiles if t.ink_doubt]
    assert len(torn) == 1 and torn[0].tile.short == "b5" and torn[0].uncertain
    assert sorted(t.tile.short for t in tiles if not t.ink_doubt) == sorted(name for _, name in EVERY_COLOUR)
