"""How a tile profile adapts the reader's probabilities (pure numpy; embeddings made up here)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from solver.tiles import NUM_KINDS, Tile
from vision.profiles import (
    MIN_PHOTO_TILES, RECOGNISED, REMEMBERED_FROM, WEIGHT, NoTileSample, TileProfile, TileSample, unlike_the_rest,
)

DIM = 32


def _style(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A set's look: what all its tiles share (a big offset) and one direction per class."""
    rng = np.random.default_rng(seed)
    return rng.normal(0, 1, DIM) * 10, rng.normal(0, 1, (NUM_KINDS, DIM))


def _embedding(style, label: int, noise: float, rng) -> np.ndarray:
    shared, classes = style
    return shared + classes[label] + rng.normal(0, noise, DIM)


def _calibration(style, rng, noise: float = 0.05) -> list[TileSample]:
    return [TileSample(Tile.from_index(c), np.zeros((1, 2, 2, 3), np.uint8), _embedding(style, c, noise, rng)) for c in range(NUM_KINDS)]


def _sure(label: int, n: int = 1) -> np.ndarray:
    probs = np.full((n, NUM_KINDS), 1e-6)
    probs[:, label] = 1.0
    return probs / probs.sum(axis=1, keepdims=True)


def test_a_profile_overrules_a_confident_misreading_of_a_tile_it_recognises():
    style, rng = _style(), np.random.default_rng(1)
    profile = TileProfile.from_samples("set", _calibration(style, rng))
    joker = Tile.from_index(52).index
    tile = _embedding(style, joker, 0.05, rng)[None]
    adapted = profile.adapt(_sure(29), tile)  # the reader is sure the joker is orange 4
    assert adapted.argmax() == joker
    assert adapted[0, joker] == pytest.approx(WEIGHT, abs=0.02)
    assert adapted.sum() == pytest.approx(1.0)


def test_a_tile_far_from_every_class_mean_keeps_the_readers_answer():
    style, rng = _style(), np.random.default_rng(2)
    profile = TileProfile.from_samples("set", _calibration(style, rng))
    stranger = (style[0] + rng.normal(0, 1, DIM) * 3)[None]  # this set's look, but like no class
    probs = _sure(7)
    assert np.allclose(profile.adapt(probs, stranger), probs)


def test_how_far_the_profile_is_heard_grows_with_the_cosine_between_the_gate_bounds():
    style, rng = _style(), np.random.default_rng(3)
    profile = TileProfile.from_samples("set", _calibration(style, rng, noise=0.0))
    target = 5
    mean = profile.means[target]
    other = np.linalg.qr(np.stack([mean, rng.normal(0, 1, DIM)]).T)[0][:, 1]  # unit, orthogonal to the mean
    shares = []
    for cosine in (RECOGNISED[0] - 0.05, (RECOGNISED[0] + RECOGNISED[1]) / 2, RECOGNISED[1] + 0.02):
        direction = cosine * mean + np.sqrt(1 - cosine**2) * other
        probs = _sure(40)
        adapted = profile.adapt(probs, (profile.centre + 3 * direction)[None])
        shares.append(probs[0, 40] - adapted[0, 40])  # what moved away from the reader's answer
    assert shares[0] == pytest.approx(0.0, abs=1e-6)
    assert 0.1 < shares[1] < WEIGHT - 0.1
    assert shares[2] == pytest.approx(WEIGHT, abs=1e-3)


def test_classes_the_profile_has_not_seen_get_no_probability_from_it():
    style, rng = _style(), np.random.default_rng(4)
    reds = [s for s in _calibration(style, rng) if s.tile.colour is not None and s.tile.colour.value == "red"]
    profile = TileProfile.from_samples("reds", reds)
    assert profile.seen.sum() == 13 and profile.size == 13
    probs = np.full((1, NUM_KINDS), 1 / NUM_KINDS)
    adapted = profile.adapt(probs, _embedding(style, reds[3].tile.index, 0.05, rng)[None])
    unseen = ~profile.seen
    assert np.allclose(adapted[0, unseen], probs[0, unseen] * (1 - WEIGHT), atol=1e-3)
    assert adapted.argmax() == reds[3].tile.index


def test_the_centre_counts_each_class_once_so_many_corrections_of_one_class_do_not_move_it():
    style, rng = _style(), np.random.default_rng(5)
    calibration = _calibration(style, rng)
    base = TileProfile.from_samples("set", calibration)
    corrections = [TileSample(Tile.from_index(9), calibration[0].crops, _embedding(style, 9, 0.05, rng)) for _ in range(40)]
    taught = TileProfile.from_samples("set", calibration + corrections)
    assert np.allclose(taught.centre, base.centre, atol=0.05)
    assert taught.counts[9] == 41


def test_no_tiles_and_a_profile_of_another_reader():
    style, rng = _style(), np.random.default_rng(6)
    profile = TileProfile.from_samples("set", _calibration(style, rng))
    assert profile.adapt(np.zeros((0, NUM_KINDS)), np.zeros((0, DIM))).shape == (0, NUM_KINDS)
    with pytest.raises(ValueError, match="another reader"):
        profile.adapt(_sure(1), np.zeros((1, DIM + 1)))
    with pytest.raises(ValueError):
        TileProfile.from_samples("empty", [])


def test_nearest_cosine_tells_the_sets_tiles_from_other_things():
    style, rng = _style(), np.random.default_rng(8)
    profile = TileProfile.from_samples("set", _calibration(style, rng))
    tiles = np.stack([_embedding(style, c, 0.05, rng) for c in (0, 17, 52)])
    other = np.stack([_embedding(_style(3), c, 0.05, rng) for c in (0, 17, 52)])  # another set's look
    assert (profile.nearest_cosine(tiles) > 0.95).all()
    assert (profile.nearest_cosine(other) < profile.nearest_cosine(tiles).min()).all()
    assert profile.nearest_cosine(np.zeros((0, DIM))).shape == (0,)
    with pytest.raises(ValueError, match="another reader"):
        profile.nearest_cosine(np.zeros((1, DIM + 1)))
    with pytest.raises(ValueError, match="2 embeddings for 1 tiles"):
        profile.adapt(_sure(1), np.zeros((2, DIM)))


def test_a_profile_vouches_only_for_a_box_the_reader_is_sure_is_a_tile_and_it_recognises():
    from vision.profiles import VOUCH_RECOGNISED, VOUCH_TILE_PROB

    style, rng = _style(), np.random.default_rng(6)
    profile = TileProfile.from_samples("set", _calibration(style, rng))
    own = np.stack([_embedding(style, 12, 0.05, rng) for _ in range(2)])
    stranger = (style[0] + rng.normal(0, 1, DIM) * 3)[None]  # this set's look, but like no class
    assert profile.nearest_cosine(own).min() >= VOUCH_RECOGNISED > profile.nearest_cosine(stranger)[0]
    tile_prob = np.array([VOUCH_TILE_PROB, VOUCH_TILE_PROB - 0.02, 1.0])
    assert profile.vouches_for(tile_prob, np.concatenate([own, stranger])).tolist() == [True, False, False]
    assert profile.vouches_for(np.zeros(0), np.zeros((0, DIM))).shape == (0,)
    with pytest.raises(ValueError, match="2 embeddings for 3 boxes"):
        profile.vouches_for(np.ones(3), own)


def _between(a: np.ndarray, b: np.ndarray, cosine: float) -> np.ndarray:
    """A unit vector at ``cosine`` to the unit vector ``a``, on the side of ``b``."""
    other = b - (b @ a) * a
    other /= np.linalg.norm(other)
    return cosine * a + np.sqrt(1 - cosine**2) * other


def test_a_correction_is_remembered_as_itself_so_the_same_tile_reads_right_next_time():
    """The class mean of a calibration tile and a corrected tile lies between them; the same tile in
    the next photo, close to the correction, must read as the player set it."""
    style, rng = _style(), np.random.default_rng(9)
    calibration = _calibration(style, rng, noise=0.0)
    base = TileProfile.from_samples("set", calibration)
    target, misread = 12, 40  # the reader keeps reading this set's black 13 (index 12) as red 2 (40)
    mean, lure = base.means[target], base.means[misread]
    looks = _between(mean, lure, 0.55)  # how the corrected tile looked: far from its class mean
    corrected = TileSample(Tile.from_index(target), calibration[0].crops, base.centre + 3 * looks)
    remembered = TileProfile.from_samples("set", calibration, [corrected])
    means_only = TileProfile.from_samples("set", calibration + [corrected])
    assert remembered.exemplar_labels.tolist() == [target] and means_only.exemplar_labels.size == 0
    assert np.allclose(remembered.means, means_only.means) and np.allclose(remembered.centre, means_only.centre)
    again = (base.centre + 3 * _between(looks, lure, 0.97))[None]  # the same tile, next photo
    probs = _sure(misread)
    assert remembered.adapt(probs, again).argmax() == target
    assert means_only.adapt(probs, again).argmax() == misread  # what the class means alone did
    assert remembered.nearest_cosine(again)[0] > 0.9 > means_only.nearest_cosine(again)[0]
    # A tile less alike than a near copy (REMEMBERED_FROM) is not heard by the correction.
    unlike = (base.centre + 3 * _between(looks, lure, REMEMBERED_FROM - 0.05))[None]
    assert np.allclose(remembered.adapt(probs, unlike), means_only.adapt(probs, unlike))
    heard_by_all = replace(remembered, remembered_from=0.0)
    assert heard_by_all.cosines(unlike)[0, target] == pytest.approx(REMEMBERED_FROM - 0.05, abs=0.02)
    assert remembered.cosines(unlike)[0, target] == pytest.approx(means_only.cosines(unlike)[0, target])


def test_without_corrections_the_profile_is_its_class_means():
    style, rng = _style(), np.random.default_rng(10)
    calibration = _calibration(style, rng)
    profile = TileProfile.from_samples("set", calibration)
    assert profile.exemplars.shape[0] == 0 and profile.exemplar_labels.size == 0
    tiles = np.stack([_embedding(style, c, 0.3, rng) for c in range(NUM_KINDS)])
    centred = tiles - profile.centre
    expected = (centred / np.linalg.norm(centred, axis=1, keepdims=True)) @ profile.means.T
    assert np.allclose(profile.cosines(tiles), expected)


def test_corrections_alone_make_a_profile_and_count_in_its_means():
    style, rng = _style(), np.random.default_rng(11)
    corrections = _calibration(style, rng)[:3]
    profile = TileProfile.from_samples("taught", [], corrections)
    assert profile.size == 3 and profile.seen.sum() == 3
    assert sorted(profile.exemplar_labels.tolist()) == [0, 1, 2]
    assert profile.adapt(_sure(30), np.stack([s.embedding for s in corrections[1:2]])).argmax() == 1


def test_a_near_copy_of_a_box_the_set_showed_as_no_tile_is_flagged_in_other_light_and_nothing_else():
    """Photo-centred: another evening's light shifts every box of a photo alike and cancels."""
    style, rng = _style(), np.random.default_rng(11)
    calibration = _calibration(style, rng)
    rack_end = style[0] + 3 * rng.normal(0, 1, DIM)  # the end of the player's rack, read as a tile
    first = np.vstack([[_embedding(style, c, 0.05, rng) for c in (0, 7, 20, 33, 52)], rack_end])
    box = NoTileSample(np.zeros((1, 2, 2, 3), np.uint8), first[5], first.mean(axis=0))
    profile = TileProfile.from_samples("set", calibration, not_tiles=[box])
    light = rng.normal(0, 3, DIM)
    later = np.vstack([[_embedding(style, c, 0.05, rng) for c in (1, 7, 25, 40, 52, 12)],
                       rack_end + rng.normal(0, 0.05, DIM)]) + light
    assert profile.looks_like_no_tile(later).tolist() == [False] * 6 + [True]
    assert not TileProfile.from_samples("set", calibration).looks_like_no_tile(later).any()  # none held
    assert not profile.looks_like_no_tile(later[-(MIN_PHOTO_TILES - 1):]).any()  # too few boxes to be their centre
    assert not replace(profile, no_tile_from=1.01).looks_like_no_tile(later).any()
    assert profile.looks_like_no_tile(np.zeros((0, DIM))).shape == (0,)
    with pytest.raises(ValueError, match="another reader"):
        profile.looks_like_no_tile(np.zeros((6, DIM + 1)))
    with pytest.raises(ValueError, match="no tiles of dimension"):
        TileProfile.from_samples("set", calibration, not_tiles=[NoTileSample(box.crops, np.zeros(DIM + 1), np.zeros(DIM + 1))])


def test_a_box_taken_for_no_tile_that_looks_like_a_tile_kept_beside_it_is_not_kept_as_no_tile():
    style, rng = _style(), np.random.default_rng(13)
    photo = np.stack([_embedding(style, c, 0.05, rng) for c in (0, 7, 20, 33, 40, 52)])
    rack_end = style[0] + 3 * rng.normal(0, 1, DIM)
    tile_like = photo[2] + rng.normal(0, 0.05, DIM)  # a box on the table's pattern that looks like the black 8 beside it
    boxes = np.vstack([photo, rack_end, tile_like])
    assert unlike_the_rest(boxes, [6, 7]) == [6]
    assert unlike_the_rest(boxes, [6, 7], threshold=1.01) == [6, 7]
    assert unlike_the_rest(boxes[:MIN_PHOTO_TILES - 1], [0]) == []  # too few boxes to centre on
    assert unlike_the_rest(boxes, []) == []
