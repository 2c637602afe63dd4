"""The error breakdown puts every misread in exactly one kind."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from training.error_breakdown import ErrorKind, error_counts, format_breakdown, tile_errors

BLACK_1, BLACK_2, BLUE_1, BLUE_2, JOKER = 0, 1, 13, 14, 52


def _row(n: int) -> np.ndarray:
    """n tiles side by side, 10 x 14 px, 2 px apart."""
    return np.array([[12 * i, 0, 12 * i + 10, 14] for i in range(n)], np.float32)


def test_exact_reading_has_no_errors():
    boxes = _row(3)
    assert error_counts(tile_errors(boxes, (0, 1, 2), boxes, (0, 1, 2), np.zeros((0, 4)))) == Counter()
    assert format_breakdown(Counter()) == "errors: none"


def test_each_misread_tile_falls_in_its_kind():
    truth = _row(5)
    labels = (BLACK_1, BLACK_1, BLACK_1, BLACK_1, JOKER)
    read = (BLACK_2, BLUE_1, BLUE_2, JOKER, BLUE_1)
    errors = error_counts(tile_errors(truth, labels, truth, read, np.zeros((0, 4))))
    assert errors == Counter({ErrorKind.NUMBER: 1, ErrorKind.COLOUR: 1, ErrorKind.NUMBER_AND_COLOUR: 1,
                              ErrorKind.JOKER_PHANTOM: 1, ErrorKind.JOKER_MISSED: 1})


def test_missed_dropped_off_tile_and_non_tile_boxes():
    truth = _row(3)
    kept = np.array([truth[0], [5, 0, 17, 14], [100, 100, 110, 114], [200, 0, 210, 14]], np.float32)
    read = (BLACK_1, BLUE_1, JOKER, BLACK_2)
    dropped = truth[1:2] + 0.5  # the reader dropped tile 1; tile 2 had no box at all
    errors = error_counts(tile_errors(truth, (BLACK_1, BLACK_2, BLUE_1), kept, read, dropped))
    assert errors == Counter({ErrorKind.DROPPED_TILE: 1, ErrorKind.MISSED_BOX: 1, ErrorKind.BAD_BOX: 1,
                              ErrorKind.NON_TILE_JOKER: 1, ErrorKind.NON_TILE: 1})
    text = format_breakdown(errors)
    assert text.startswith("errors 5: ") and "tile dropped as not-tile 1 (20%)" in text


def test_labels_must_match_boxes():
    with pytest.raises(ValueError, match="one label"):
        tile_errors(_row(2), (0,), _row(2), (0, 1), np.zeros((0, 4)))


def test_errors_are_attributed_to_their_tiles_and_split_by_size():
    from training.error_breakdown import errors_by_size, size_band

    truth = np.array([[0, 0, 10, 14], [20, 0, 70, 50], [100, 0, 190, 120], [300, 0, 310, 14]], np.float32)
    kept = np.array([truth[0], truth[1], truth[2], [500, 500, 510, 514]], np.float32)
    read = (BLACK_2, BLUE_1, BLACK_1, BLACK_1)  # tile 0 number, tile 1 colour, tile 2 right, a box on no tile
    errors = tile_errors(truth, (BLACK_1, BLACK_1, BLACK_1, BLUE_2), kept, read, truth[3:4])
    assert sorted(errors, key=str) == sorted([(ErrorKind.NUMBER, 0), (ErrorKind.COLOUR, 1), (ErrorKind.DROPPED_TILE, 3),
                                              (ErrorKind.NON_TILE, None)], key=str)
    assert [size_band(b) for b in truth] == ["< 40 px", "40-80 px", ">= 80 px", "< 40 px"]
    bands = errors_by_size(truth, errors)
    assert bands == {"< 40 px": Counter({ErrorKind.NUMBER: 1, ErrorKind.DROPPED_TILE: 1}),
                     "40-80 px": Counter({ErrorKind.COLOUR: 1}), ">= 80 px": Counter()}
