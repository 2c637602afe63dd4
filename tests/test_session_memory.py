"""The tiles a player changed this session, read as they set them in the next photo (pure numpy;
embeddings made up here)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.session_memory as session_memory
from solver.tiles import NUM_KINDS, parse_tile
from vision.session_memory import MIN_PHOTO_TILES, SessionMemory

DIM = 16
TILES = [parse_tile(t) for t in ("r5", "r6", "b7", "k1", "o2", "j")]


def _photo(seed: int, light: float, noise: float = 0.05) -> np.ndarray:
    """One photo of the same six tiles: each tile's own look, plus what the photo's light adds to all."""
    looks = np.random.default_rng(0).normal(0, 1, (len(TILES), DIM))
    rng = np.random.default_rng(seed)
    return looks + light * rng.normal(0, 1, DIM) + rng.normal(0, noise, looks.shape) + 30.0


def _read_as(tiles, confidence: float = 0.95) -> np.ndarray:
    probs = np.full((len(tiles), NUM_KINDS), (1.0 - confidence) / (NUM_KINDS - 1))
    probs[np.arange(len(tiles)), [t.index for t in tiles]] = confidence
    return probs


def _labels(probs: np.ndarray) -> list[str]:
    from solver.tiles import Tile

    return [Tile.from_index(int(k)).short for k in probs.argmax(axis=1)]


def test_a_changed_tile_reads_as_the_player_set_it_in_the_next_photo_and_no_other_tile_moves():
    misread = [TILES[1], *TILES[1:]]  # the red 5 is read as a red 6, sure
    memory = SessionMemory().remembering(_photo(1, light=0.0), [(0, TILES[0])])
    assert len(memory) == 1 and memory.labels.tolist() == [TILES[0].index]
    again = _photo(2, light=4.0)  # the next turn: other light on every tile
    probs = _read_as(misread)
    adapted = memory.adapt(probs, again)
    assert _labels(adapted) == [t.short for t in TILES]
    assert _labels(probs) == ["r6", "r6", "b7", "k1", "o2", "j"]  # what the reader alone says
    assert np.allclose(adapted[1:], probs[1:])  # the tiles no one changed read as before


def test_the_memory_says_which_tiles_it_hears_and_as_what():
    memory = SessionMemory().remembering(_photo(1, light=0.0), [(0, TILES[0]), (3, TILES[2])])
    assert memory.heard(_photo(2, light=4.0)).tolist() == [TILES[0].index, -1, -1, TILES[2].index, -1, -1]
    others = np.random.default_rng(9).normal(0, 1, (6, DIM)) + 30.0
    assert memory.heard(others).tolist() == [-1] * 6
    assert memory.heard(_photo(2, light=4.0)[:MIN_PHOTO_TILES - 1]).tolist() == [-1] * (MIN_PHOTO_TILES - 1)
    assert SessionMemory().heard(_photo(2, light=4.0)).tolist() == [-1] * 6


def test_a_tile_unlike_every_changed_one_is_not_moved():
    memory = SessionMemory().remembering(_photo(1, light=0.0), [(0, TILES[0])])
    others = np.random.default_rng(9).normal(0, 1, (6, DIM)) + 30.0  # other tiles altogether
    probs = _read_as(TILES[1:] + TILES[:1])
    assert np.allclose(memory.adapt(probs, others), probs)


def test_an_empty_memory_and_a_photo_of_few_tiles_read_as_the_reader_alone():
    probs = _read_as([TILES[1], *TILES[1:]])
    assert np.allclose(SessionMemory().adapt(probs, _photo(2, light=4.0)), probs)
    memory = SessionMemory().remembering(_photo(1, light=0.0), [(0, TILES[0])])
    few = MIN_PHOTO_TILES - 1
    assert np.allclose(memory.adapt(probs[:few], _photo(2, light=4.0)[:few]), probs[:few])
    assert len(SessionMemory().remembering(_photo(1, light=0.0)[:few], [(0, TILES[0])])) == 0
    assert len(SessionMemory().remembering(_photo(1, light=0.0), [])) == 0


def test_a_tile_changed_again_is_remembered_as_it_was_set_last_and_the_old_memory_is_unchanged():
    photo = _photo(1, light=0.0)
    first = SessionMemory().remembering(photo, [(0, TILES[2])])
    second = first.remembering(photo, [(0, TILES[0]), (3, TILES[3])])
    assert first.labels.tolist() == [TILES[2].index]  # a value: remembering makes a new memory
    assert second.labels.tolist() == [TILES[0].index, TILES[3].index]
    assert _labels(second.adapt(_read_as([TILES[2], *TILES[1:]]), _photo(2, light=4.0)))[0] == "r5"


def test_the_oldest_change_is_forgotten_first(monkeypatch):
    monkeypatch.setattr(session_memory, "MAX_REMEMBERED", 2)
    photo = _photo(1, light=0.0)
    memory = SessionMemory()
    for index in (0, 1, 2):
        memory = memory.remembering(photo, [(index, TILES[index])])
    assert memory.labels.tolist() == [TILES[1].index, TILES[2].index]


def test_what_does_not_fit_is_refused_with_a_clear_error():
    memory = SessionMemory().remembering(_photo(1, light=0.0), [(0, TILES[0])])
    with pytest.raises(ValueError, match="tile 6 is not on a photo of 6 tiles"):
        SessionMemory().remembering(_photo(1, light=0.0), [(6, TILES[0])])
    with pytest.raises(ValueError, match="do not fit this memory"):
        memory.remembering(np.zeros((6, DIM + 1)), [(0, TILES[0])])
    with pytest.raises(ValueError, match="must be \\(tiles, dimension\\)"):
        memory.remembering(np.zeros(DIM), [(0, TILES[0])])
    with pytest.raises(ValueError, match="5 embeddings for 6 tiles"):
        memory.adapt(_read_as(TILES), _photo(2, light=1.0)[:5])
    with pytest.raises(ValueError, match="do not fit this profile"):
        memory.adapt(_read_as(TILES), np.zeros((6, DIM + 1)))
    with pytest.raises(ValueError, match="do not fit this profile"):
        memory.heard(np.zeros((6, DIM + 1)))


def test_the_app_remembers_each_change_on_the_photo_it_was_made_on():
    """``app.tile_profiles.remember``: a change names its tile by (photo kind, index); each photo is
    centred on its own tiles; a change with no such tile is skipped."""
    from app.tile_profiles import remember
    from vision.profiles import TileSample

    crops = np.zeros((1, 2, 2, 3), np.uint8)
    table, rack = _photo(1, light=0.0), _photo(3, light=2.0)[::-1]
    samples = {
        "table": [TileSample(t, crops, e) for t, e in zip(TILES, table)],
        "rack": [TileSample(t, crops, e) for t, e in zip(TILES[::-1], rack)],
    }
    changed = [(("table", 0), TILES[2]), (("rack", 1), TILES[3]), (("rack", 99), TILES[4]), (("hand", 0), TILES[4])]
    memory = remember(SessionMemory(), samples, changed)
    assert memory.labels.tolist() == [TILES[2].index, TILES[3].index]
    alone = SessionMemory().remembering(rack, [(1, TILES[3])])
    assert np.allclose(memory.exemplars[1], alone.exemplars[0])  # centred on the rack photo, not the table's


def test_the_memorys_weight_is_its_share_of_a_near_copys_reading_and_outlives_each_change():
    from dataclasses import replace

    from vision.profiles import WEIGHT

    photo, again = _photo(1, light=0.0), _photo(2, light=4.0)
    memory = SessionMemory().remembering(photo, [(0, TILES[0])])
    probs = _read_as([TILES[1], *TILES[1:]], confidence=1.0 - 1e-9)  # the classifier sure of a red 6
    assert memory.weight == WEIGHT
    assert memory.adapt(probs, again)[0, TILES[0].index] == pytest.approx(WEIGHT, abs=1e-6)
    heavier = replace(memory, weight=0.95).remembering(photo, [(3, TILES[3])])
    assert heavier.weight == 0.95
    assert heavier.adapt(probs, again)[0, TILES[0].index] == pytest.approx(0.95, abs=1e-6)


# --- boxes the player removed ---------------------------------------------------------------


def test_a_removed_box_is_flagged_in_the_next_photo_and_no_other_box_is():
    memory = SessionMemory().remembering(_photo(1, light=0.0), [], removed=[5])  # the "joker" was the rack's end
    assert (memory.changed_count, memory.removed_count, len(memory)) == (0, 1, 1)
    assert memory.looks_removed(_photo(2, light=4.0)).tolist() == [False] * 5 + [True]
    others = np.random.default_rng(9).normal(0, 1, (6, DIM)) + 30.0
    assert not memory.looks_removed(others).any()
    probs = _read_as(TILES)
    assert np.allclose(memory.adapt(probs, _photo(2, light=4.0)), probs)  # a removal changes no reading
    assert memory.heard(_photo(2, light=4.0)).tolist() == [-1] * 6
    few = MIN_PHOTO_TILES - 1
    assert not memory.looks_removed(_photo(2, light=4.0)[:few]).any()
    assert not SessionMemory().looks_removed(_photo(2, light=4.0)).any()


def test_the_players_last_word_on_a_box_counts():
    photo, again = _photo(1, light=0.0), _photo(2, light=4.0)
    removed_then_changed = SessionMemory().remembering(photo, [], removed=[0]).remembering(photo, [(0, TILES[2])])
    assert removed_then_changed.removed_count == 0 and removed_then_changed.labels.tolist() == [TILES[2].index]
    assert not removed_then_changed.looks_removed(again).any()
    changed_then_removed = SessionMemory().remembering(photo, [(0, TILES[2])]).remembering(photo, [], removed=[0])
    assert changed_then_removed.changed_count == 0
    assert changed_then_removed.looks_removed(again).tolist() == [True] + [False] * 5
    assert changed_then_removed.heard(again).tolist() == [-1] * 6


def test_a_box_nearer_a_changed_tile_than_a_removed_one_is_not_flagged():
    photo = _photo(1, light=0.0)
    twin = photo.copy()
    twin[1] = photo[0] + np.random.default_rng(4).normal(0, 0.3, DIM)  # tile 1 looks much like tile 0
    memory = SessionMemory().remembering(twin, [(0, TILES[0])], removed=[1])
    again = twin + np.random.default_rng(5).normal(0, 0.02, twin.shape)
    flags = memory.looks_removed(again)
    assert not flags[0] and flags[1]


def test_the_oldest_removal_is_forgotten_first(monkeypatch):
    monkeypatch.setattr(session_memory, "MAX_REMEMBERED", 2)
    photo = _photo(1, light=0.0)
    memory = SessionMemory()
    for index in (0, 1, 2):
        memory = memory.remembering(photo, [], removed=[index])
    assert memory.removed_count == 2
    assert memory.looks_removed(_photo(2, light=4.0)).tolist() == [False, True, True, False, False, False]


def test_a_second_box_on_a_tile_is_not_remembered_as_no_tile():
    from vision.session_memory import lying_apart

    boxes = np.array([[0, 0, 10, 14], [1, 0, 11, 14], [30, 0, 40, 14], [9, 0, 19, 14]], float)
    assert lying_apart(boxes, [1, 2]) == [2]  # box 1 lies on box 0; box 2 on none
    assert lying_apart(boxes, [3]) == [3]  # touching a tile is not lying on it
    assert lying_apart(boxes, [0, 1]) == [0, 1]  # both boxes of the tile removed: nothing stays
    assert lying_apart(boxes[:1], [0]) == [0]


def test_removals_that_do_not_fit_are_refused_with_a_clear_error():
    memory = SessionMemory().remembering(_photo(1, light=0.0), [], removed=[0])
    with pytest.raises(ValueError, match="tile 6 is not on a photo of 6 tiles"):
        SessionMemory().remembering(_photo(1, light=0.0), [], removed=[6])
    with pytest.raises(ValueError, match="do not fit this memory"):
        memory.remembering(np.zeros((6, DIM + 1)), [(0, TILES[0])])
    with pytest.raises(ValueError, match="do not fit boxes of dimension 16"):
        memory.looks_removed(np.zeros((6, DIM + 1)))


def test_the_app_remembers_a_removed_box_unless_it_lies_on_a_tile_that_stays():
    from app.tile_profiles import remember
    from vision.profiles import TileSample

    crops = np.zeros((1, 2, 2, 3), np.uint8)
    photo = _photo(1, light=0.0)
    boxes = [(0, 0, 10, 14), (20, 0, 30, 14), (40, 0, 50, 14), (60, 0, 70, 14), (61, 0, 71, 14), (90, 0, 100, 14)]
    samples = {"rack": [TileSample(t, crops, e, b) for t, e, b in zip(TILES, photo, boxes)]}
    memory = remember(SessionMemory(), samples, [], removed=[("rack", 4), ("rack", 5), ("rack", 99), ("table", 0)])
    assert memory.removed_count == 1  # box 4 was a second box on tile 3; 99 and the table's are no photo tiles
    assert memory.looks_removed(_photo(2, light=4.0)).tolist() == [False] * 5 + [True]


def test_how_near_a_box_must_come_to_a_removed_one_is_the_memorys_setting_and_outlives_each_removal():
    from dataclasses import replace

    from vision.session_memory import REMOVED_FROM

    photo = _photo(1, light=0.0)
    memory = SessionMemory().remembering(photo, [], removed=[5])
    assert memory.removed_from == REMOVED_FROM
    unit = lambda v: v / np.linalg.norm(v)  # noqa: E731
    centred = photo - photo.mean(axis=0)
    blurred = photo.copy()
    blurred[5] = photo[5] + 1.5 * np.linalg.norm(centred[5]) * unit(np.random.default_rng(3).normal(0, 1, DIM))
    cosine = unit(blurred[5] - blurred.mean(axis=0)) @ unit(centred[5])
    assert 0.7 < cosine < REMOVED_FROM  # the same box, seen much less clearly
    assert not memory.looks_removed(blurred)[5]
    looser = replace(memory, removed_from=0.7).remembering(photo, [], removed=[4])
    assert looser.removed_from == 0.7 and looser.looks_removed(blurred)[5]


def test_a_dropped_box_like_a_tile_the_player_set_is_kept_and_no_other_box_is():
    """The gate dropped the red 5 on the first photo; the player added it. On the next photo, in other
    light, the gate drops it again: the memory keeps it, and nothing that is not a near copy."""
    first = _photo(1, light=0.0)
    memory = SessionMemory().remembering(first, [(0, TILES[0])])
    again = _photo(2, light=4.0)
    kept, dropped = again[1:], again[:1]
    assert memory.keeps(kept, dropped).tolist() == [True]
    stranger = np.random.default_rng(9).normal(0, 1, (1, DIM)) + 30.0  # a die beside the tiles
    assert memory.keeps(kept, stranger).tolist() == [False]
    assert memory.keeps(kept, np.zeros((0, DIM))).tolist() == []
    assert SessionMemory().keeps(kept, dropped).tolist() == [False]  # nothing set: nothing kept
    assert memory.keeps(kept[:2], dropped).tolist() == [False]  # too few boxes to be the photo's centre


def test_the_app_remembers_a_tile_added_from_a_box_left_out_centred_on_its_photo():
    """``app.tile_profiles.additions`` finds the tiles added from offers, or set since; ``remember``
    centres each on its photo's tiles and itself, as the photo's own tiles are centred."""
    from app.editing import Chip, Offer, TableAndRack, add_offered, change_tile
    from app.tile_profiles import additions, remember
    from vision.profiles import TileSample

    crops = np.zeros((1, 2, 2, 3), np.uint8)
    photo = _photo(1, light=0.0)
    samples = {"table": [TileSample(t, crops, e) for t, e in zip(TILES[1:], photo[1:])]}  # the red 5 left out
    offer = Offer("table", 1, TILES[1], (), ("table", 0), True, TileSample(TILES[1], crops, photo[0]))
    before = TableAndRack((tuple(Chip(t, sample=("table", i)) for i, t in enumerate(TILES[1:])),))
    added = add_offered(before, offer)
    assert additions(before, added, [offer]) == ((offer, TILES[1]),)  # offered as a red 6
    fixed = change_tile(added, (0, 0), TILES[0])
    assert additions(added, fixed, [offer]) == ((offer, TILES[0]),)  # the player set it right
    assert additions(fixed, fixed, [offer]) == ()
    assert additions(before, added, [offer], set_only=True) == ()  # taken as the camera guessed: no profile learns it
    assert additions(added, fixed, [offer], set_only=True) == ((offer, TILES[0]),)
    memory = remember(SessionMemory(), samples, [], [], additions(added, fixed, [offer]))
    alone = SessionMemory().remembering(np.concatenate([photo[1:], photo[:1]]), [(5, TILES[0])])
    assert memory.labels.tolist() == [TILES[0].index] and np.allclose(memory.exemplars, alone.exemplars)
    no_sample = Offer("table", 2, TILES[4], ())
    assert len(remember(SessionMemory(), samples, [], [], [(no_sample, TILES[4])])) == 0
    # added, then removed again: no longer a tile to keep, but a box to flag
    from app.editing import remove_tile
    from app.tile_profiles import offers_removed

    removed = remove_tile(fixed, (0, 0))
    assert offers_removed(fixed, removed, [offer]) == (offer,) and offers_removed(added, fixed, [offer]) == ()
    back = remember(memory, samples, [], [], [], offers_removed(fixed, removed, [offer]))
    assert (back.changed_count, back.removed_count) == (0, 1)
    assert np.allclose(back.not_tiles, alone.exemplars)
