"""A colour change followed by the tiles of its photo that look as much like the new colour (vision/colour_follow.py)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.rules import STANDARD
from solver.tiles import NUM_KINDS, parse_tile
from vision.colour_follow import colour_followers, is_colour_change


def _photo(readings):
    """Probabilities and labels of a photo: per tile, {tile: probability} (the rest share what is left)."""
    probs = np.full((len(readings), NUM_KINDS), 1e-6)
    for row, reading in enumerate(readings):
        for name, p in reading.items():
            probs[row, parse_tile(name).index] = p
    probs /= probs.sum(axis=1, keepdims=True)
    return probs, [int(np.argmax(row)) for row in probs]


def test_tiles_read_in_the_old_colour_that_look_as_blue_as_the_corrected_one_follow_it():
    probs, labels = _photo([
        {"k7": 0.7, "b7": 0.3},  # the tile the player sets to blue 7: odds 3:7
        {"k3": 0.6, "b3": 0.4},  # bluer than it: follows
        {"k9": 0.8, "b9": 0.2},  # less blue: stays black
        {"k11": 0.9, "r11": 0.1},  # no blue evidence at all
        {"r3": 0.6, "b3": 0.4},  # another colour: never follows
    ])
    assert colour_followers(probs, labels, 0, parse_tile("b7")) == ((1, parse_tile("b3")),)


def test_the_likeliest_follow_first_within_the_copy_limits():
    probs, labels = _photo([{"k7": 0.7, "b7": 0.3}] + [{"k3": 0.9 - d, "b3": 0.1 + d} for d in (0.2, 0.35, 0.3)]
                           + [{"b3": 0.99}])
    followers = colour_followers(probs, labels, 0, parse_tile("b7"))
    assert followers == ((2, parse_tile("b3")),)  # a blue 3 is read already: one more copy only, the bluest


def test_a_tile_the_player_set_never_follows_and_a_joker_neither():
    probs, labels = _photo([{"k7": 0.7, "b7": 0.3}, {"k3": 0.5, "b3": 0.5}, {"j": 0.5, "b3": 0.2}])
    assert colour_followers(probs, labels, 0, parse_tile("b7"), fixed={1}) == ()


@pytest.mark.parametrize("read, new", [("k7", "k8"), ("k7", "b8"), ("k7", "j"), ("j", "b7"), ("k7", "k7")])
def test_only_a_change_of_colour_alone_is_followed(read, new):
    probs, labels = _photo([{read: 0.7, new: 0.3}, {"k3": 0.2, "b3": 0.8}, {"k8": 0.2, "b8": 0.8}])
    assert not is_colour_change(parse_tile(read), parse_tile(new))
    assert colour_followers(probs, labels, 0, parse_tile(new)) == ()


def test_nothing_follows_on_a_photo_of_small_tiles():
    probs, labels = _photo([{"k7": 0.7, "b7": 0.3}, {"k3": 0.5, "b3": 0.5}])
    assert colour_followers(probs, labels, 0, parse_tile("b7"), tile_px=39.0) == ()
    assert colour_followers(probs, labels, 0, parse_tile("b7"), tile_px=40.0) == ((1, parse_tile("b3")),)


def test_a_player_sure_against_a_sure_reader_moves_only_tiles_the_reader_doubted_as_much():
    probs, labels = _photo([{"k7": 0.999, "b7": 0.001}, {"k3": 0.9999, "b3": 0.0001}, {"k4": 0.99, "b4": 0.01}])
    assert colour_followers(probs, labels, 0, parse_tile("b7"), rules=STANDARD) == ((2, parse_tile("b4")),)


@pytest.mark.parametrize("probs, labels, changed, message", [
    (np.ones((2, 5)), [0, 1], 0, "probabilities"),
    (np.ones((2, NUM_KINDS)), [0], 0, "labels"),
    (np.ones((2, NUM_KINDS)), [0, 1], 2, "not on a photo"),
])
def test_what_does_not_fit_is_an_error(probs, labels, changed, message):
    with pytest.raises(ValueError, match=message):
        colour_followers(probs, labels, changed, parse_tile("b7"))
