"""Calibration photos paired with their layout (pure: boxes in, order out) and the layout notation."""

from __future__ import annotations

import numpy as np
import pytest

from solver.i18n import error_text
from solver.tiles import JOKER, NUM_KINDS, parse_tile
from vision.calibration import DEFAULT_LAYOUT, CalibrationError, CalibrationLayout, pair_with_layout, parse_layout
from vision.detections import Detections


def _grid(counts: list[int], shuffle_seed: int | None = 0, tilt: float = 0.0, jitter: float = 0.0) -> Detections:
    """Upright tile boxes (40 x 56) in rows of ``counts`` tiles, 6 px apart, rows 80 px apart; listed shuffled."""
    rng = np.random.default_rng(7)
    boxes = []
    for r, count in enumerate(counts):
        for k in range(count):
            x, y = 100 + k * 46, 100 + r * 80
            x, y = x, y + tilt * x + rng.normal(0, jitter)
            boxes.append((x, y, x + 40, y + 56))
    boxes = np.array(boxes, np.float32)
    if shuffle_seed is not None:
        boxes = boxes[np.random.default_rng(shuffle_seed).permutation(len(boxes))]
    return Detections(boxes, np.ones(len(boxes), np.float32))


def _reading_order(dets: Detections) -> list[int]:
    """Indices sorted by row (y in bands) then x: what the layout's reading order must give."""
    centres = dets.centers
    return sorted(range(len(dets)), key=lambda i: (round(centres[i, 1] / 80), centres[i, 0]))


def _confident(dets: Detections, labels: list[int]) -> np.ndarray:
    probs = np.full((len(dets), NUM_KINDS), 1e-4)
    probs[np.arange(len(dets)), labels] = 1.0
    return probs / probs.sum(axis=1, keepdims=True)


def test_default_layout_is_four_colours_1_to_13_then_two_jokers():
    rows = DEFAULT_LAYOUT.rows
    assert [len(r) for r in rows] == [13, 13, 13, 13, 2]
    assert [r[0].short for r in rows[:4]] == ["k1", "b1", "o1", "r1"] and rows[0][12].short == "k13"
    assert rows[4] == (JOKER, JOKER)
    assert parse_layout(None) == DEFAULT_LAYOUT and parse_layout("  ") == DEFAULT_LAYOUT


def test_a_typed_layout_is_rows_top_first_each_left_to_right():
    layout = parse_layout("r1 r2 r3 | o1, o2 | j")
    assert layout.rows == ((parse_tile("r1"), parse_tile("r2"), parse_tile("r3")), (parse_tile("o1"), parse_tile("o2")), (JOKER,))
    assert layout.notation == "r1 r2 r3 | o1 o2 | j"
    assert layout.turned().rows == ((JOKER,), (parse_tile("o2"), parse_tile("o1")), (parse_tile("r3"), parse_tile("r2"), parse_tile("r1")))


def test_a_layout_that_is_not_notation_is_refused_naming_the_token():
    with pytest.raises(CalibrationError) as caught:
        parse_layout("r1 r2 | x9 o1")
    assert "x9" in str(caught.value) and "not valid tile notation" in str(caught.value)
    assert "x9" in error_text(caught.value, "uk")


def test_detections_pair_with_the_layout_in_reading_order():
    dets = _grid([3, 3, 2], tilt=0.05)  # a slightly turned photo, boxes listed in any order
    layout = parse_layout("r1 r2 r3 | b1 b2 b3 | j j")
    order = pair_with_layout(dets, layout)
    assert list(order) == _reading_order(dets)


def test_a_photo_from_the_other_side_pairs_the_turned_layout_when_the_reader_agrees():
    layout = parse_layout("r1 r2 r3 | b1 b2 b3 b4")
    dets = _grid([4, 3])  # seen from the other side: the 4-tile row is on top
    seen = _reading_order(dets)
    # truth: the top row, read left to right, is b4 b3 b2 b1; the bottom one r3 r2 r1.
    labels = [0] * len(dets)
    for i, name in zip(seen, ["b4", "b3", "b2", "b1", "r3", "r2", "r1"]):
        labels[i] = parse_tile(name).index
    order = pair_with_layout(dets, layout, _confident(dets, labels))
    assert [labels[i] for i in order] == [t.index for t in layout.tiles]


def test_of_two_fitting_pairings_the_reader_picks_the_one_it_agrees_with():
    layout = parse_layout("r1 r2 r3 | o1 o2 o3")  # same shape either way round
    dets = _grid([3, 3])
    seen = _reading_order(dets)
    labels = [0] * len(dets)
    for i, name in zip(seen, ["o3", "o2", "o1", "r3", "r2", "r1"]):  # the photo is upside down
        labels[i] = parse_tile(name).index
    order = pair_with_layout(dets, layout, _confident(dets, labels))
    assert [labels[i] for i in order] == [t.index for t in layout.tiles]
    assert list(pair_with_layout(dets, layout)) == seen  # without the reader: as seen


def test_a_row_with_a_tile_too_few_is_named_with_both_counts():
    layout = parse_layout("r1 r2 r3 r4 | b1 b2 b3 b4 | o1 o2")
    with pytest.raises(CalibrationError) as caught:
        pair_with_layout(_grid([4, 3, 2]), layout)
    assert str(caught.value) == "the rows do not match the layout: row 2 has 3 tiles where the layout has 4"


def test_every_row_that_does_not_fit_is_named():
    layout = parse_layout("r1 r2 r3 r4 | b1 b2 b3 b4 | o1 o2")
    with pytest.raises(CalibrationError) as caught:
        pair_with_layout(_grid([5, 4, 1]), layout)
    message = str(caught.value)
    assert "row 1 has 5 tiles where the layout has 4" in message and "row 3 has 1 tiles where the layout has 2" in message
    assert "row 2" not in message


def test_another_number_of_rows_is_named():
    with pytest.raises(CalibrationError) as caught:
        pair_with_layout(_grid([13, 13, 13, 13]), DEFAULT_LAYOUT)
    assert str(caught.value) == (
        "found 4 rows of tiles (13, 13, 13, 13 tiles), but the layout has 5 rows (13, 13, 13, 13, 2 tiles)"
    )


def test_two_detections_at_one_place_are_refused():
    dets = _grid([3, 3], shuffle_seed=None)
    boxes = np.vstack([dets.boxes[:4], dets.boxes[3:4] + 3, dets.boxes[5:]])  # row 2: its first tile twice, its second missed
    doubled = Detections(boxes, np.ones(len(boxes), np.float32))
    with pytest.raises(CalibrationError) as caught:
        pair_with_layout(doubled, parse_layout("r1 r2 r3 | b1 b2 b3"))
    assert "row 2: tiles 1 and 2 were found at the same place" in str(caught.value)


def test_a_tile_found_twice_is_named_as_such_not_as_a_row_with_a_tile_too_many():
    """A detector that boxes one tile twice (each half of a two-faced joker) makes the row one too long."""
    dets = _grid([3, 2], shuffle_seed=None)
    boxes = np.vstack([dets.boxes, dets.boxes[4:5] + [2, -12, 2, -12]])
    with pytest.raises(CalibrationError) as caught:
        pair_with_layout(Detections(boxes, np.ones(len(boxes), np.float32)), parse_layout("r1 r2 r3 | j j"))
    assert str(caught.value) == (
        "row 2: tiles 2 and 3 were found at the same place; lay the tiles apart and take the photo again"
    )


def test_no_tiles_or_an_empty_layout_are_errors():
    with pytest.raises(CalibrationError, match="no tiles found"):
        pair_with_layout(Detections.empty(), DEFAULT_LAYOUT)
    with pytest.raises(CalibrationError, match="empty"):
        pair_with_layout(_grid([3]), CalibrationLayout(()))
