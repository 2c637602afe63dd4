"""Calibration photos paired with their layout (pure: boxes in, order out) and the layout notation."""

from __future__ import annotations

import numpy as np
import pytest

from solver.i18n import error_text
from solver.tiles import JOKER, NUM_KINDS, parse_tile
from vision.calibration import (
    DEFAULT_LAYOUT, CalibrationError, CalibrationLayout, collect_samples, leaving_out, pair_with_layout, parse_layout,
    restoring, samples_from,
)
from vision.detections import Detections
from vision.pipeline import SeenTiles
from vision.reader import CropReading


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


# --- boxes the gate dropped, put back where the layout says a tile is ---------------------------------


def _split(dets: Detections, dropped: list[int]) -> tuple[Detections, Detections]:
    keep = np.ones(len(dets), bool)
    keep[dropped] = False
    return dets[keep], dets[~keep]


def _box(x: float, y: float, w: float = 40, h: float = 56) -> Detections:
    return Detections(np.array([[x, y, x + w, y + h]], np.float32), np.ones(1, np.float32))


def test_a_tile_the_gate_dropped_is_put_back_and_nothing_else():
    rows = _grid([4, 4, 2], shuffle_seed=None)
    kept, tile = _split(rows, [5])  # row 2's second tile
    decoys = [
        _box(700, 300),  # a tile-sized patch far off every row: a row of its own
        _box(rows.boxes[0, 0] + 3, rows.boxes[0, 1] + 2),  # a second box on row 1's first tile
        _box(100 + 4 * 46, 180, 90, 120),  # at row 2's end, but no tile's size
    ]
    dropped = Detections.concat([tile, *decoys])
    back = restoring(kept, dropped, np.array([0.1, 0.9, 0.9, 0.9]), parse_layout("r1 r2 r3 r4 | b1 b2 b3 b4 | o1 o2"))
    assert back is not None and back.tolist() == [True, False, False, False]


def test_of_two_boxes_that_fit_the_likelier_tile_is_put_back():
    rows = _grid([3, 3], shuffle_seed=None)
    kept, _ = _split(rows, [2])  # row 1's last tile missed
    after_end = _box(100 + 3 * 46, 100)  # row 1 one place further on: fits the count as well
    at_place = Detections(rows.boxes[2:3], np.ones(1, np.float32))
    layout = parse_layout("r1 r2 r3 | b1 b2 b3")
    for scores, chosen in (([0.2, 0.6], 1), ([0.6, 0.2], 0)):
        back = restoring(kept, Detections.concat([after_end, at_place]), np.array(scores), layout)
        assert back is not None and back.tolist() == [k == chosen for k in range(2)]


def test_nothing_is_put_back_unless_the_rows_are_a_few_tiles_short_and_a_choice_fits():
    layout = parse_layout("r1 r2 r3 r4 | b1 b2 b3 b4")
    rows = _grid([4, 4], shuffle_seed=None)
    spare = _box(100 + 4 * 46, 100)
    assert restoring(rows, spare, np.ones(1), layout) is None  # no tile missing
    kept, tiles = _split(rows, [1, 2, 5, 6])
    assert restoring(kept, tiles, np.ones(4), layout) is None  # four missing: more than the limit
    assert restoring(kept, tiles, np.ones(4), layout, limit=4) is not None
    kept, _ = _split(rows, [1])
    assert restoring(kept, _box(700, 400), np.ones(1), layout) is None  # the only box fits no row
    assert restoring(kept, Detections.empty(), np.zeros(0), layout) is None
    with pytest.raises(ValueError, match="scores"):
        restoring(kept, spare, np.ones(2), layout)


def _seen(kept: Detections, dropped: Detections, labels: list[int]) -> SeenTiles:
    """What :func:`vision.pipeline.see_tiles` would give: crops and embeddings that tell the boxes apart."""
    def reading(dets: Detections, tile_prob: float, first: int) -> CropReading:
        probs = np.full((len(dets), NUM_KINDS), 1.0 / NUM_KINDS)
        embeddings = np.eye(len(labels) + 4)[first : first + len(dets)]
        return CropReading(probs, np.full(len(dets), tile_prob), embeddings)

    views = lambda n: np.zeros((2, n, 8, 8, 3), np.uint8)  # noqa: E731
    return SeenTiles(kept, views(len(kept)), reading(kept, 0.99, 0), dropped, reading(dropped, 0.2, len(kept)), views(len(dropped)))


def test_a_calibration_photo_a_tile_short_is_taken_with_the_dropped_tile_labelled_by_its_place(monkeypatch):
    layout = parse_layout("r1 r2 r3 | b1 b2 b3")
    rows = _grid([3, 3], shuffle_seed=None)
    kept, tile = _split(rows, [4])  # b2 dropped by the gate
    seen = _seen(kept, Detections.concat([tile, _box(700, 400)]), [t.index for t in layout.tiles])
    monkeypatch.setattr("vision.pipeline.see_tiles", lambda image, **_: seen)
    photo = np.zeros((10, 10, 3), np.uint8)
    with pytest.raises(CalibrationError, match="row 2 has 2 tiles where the layout has 3"):
        collect_samples(photo, layout, fit=0)
    paired = collect_samples(photo, layout)
    samples = paired.samples
    assert [s.tile for s in samples] == list(layout.tiles) and paired.put_back == (4,) and paired.left_out == ()
    assert samples[4].box == tuple(float(v) for v in rows.boxes[4])
    assert np.array_equal(samples[4].embedding, seen.dropped_reading.embeddings[0])


def _turned_a_quarter(layout: CalibrationLayout, clockwise: bool) -> tuple[Detections, list[int]]:
    """Near-square boxes (a close-up in perspective: their shape cannot tell the turn) of ``layout``'s rows
    photographed turned a quarter, listed shuffled; and each box's tile index."""
    boxes, labels = [], []
    for r, row in enumerate(layout.rows):
        for c, tile in enumerate(row):
            x = (len(layout.rows) - 1 - r) * 70 if clockwise else r * 70
            y = c * 52 if clockwise else (len(row) - 1 - c) * 52
            boxes.append((100 + x, 100 + y, 150 + x, 148 + y))
            labels.append(tile.index)
    order = np.random.default_rng(3).permutation(len(boxes))
    return Detections(np.array(boxes, np.float32)[order], np.ones(len(boxes), np.float32)), [labels[i] for i in order]


@pytest.mark.parametrize("clockwise", [True, False])
def test_a_photo_turned_a_quarter_pairs_each_tile_with_its_own_box(clockwise):
    layout = parse_layout("r1 r2 r3 r4 r5 | b6 b7 b8 b9 b10 | o1 o2 o3")
    dets, labels = _turned_a_quarter(layout, clockwise)
    order = pair_with_layout(dets, layout, _confident(dets, labels))
    assert [labels[i] for i in order] == [t.index for t in layout.tiles]


# --- boxes kept that are no tile of the layout (the end of a rack read as a joker), left out ------------


def _with_phantom(rows: Detections, x: float, y: float) -> tuple[Detections, int]:
    """``rows`` and one more box (a phantom) at (x, y), listed last."""
    return Detections.concat([rows, _box(x, y)]), len(rows)


def test_the_end_of_a_rack_read_as_a_tile_is_left_out():
    layout = parse_layout("r1 r2 r3 r4 | b1 b2 b3 b4")
    rows = _grid([4, 4], shuffle_seed=None)
    dets, phantom = _with_phantom(rows, 100 + 4 * 46, 100)  # row 1 one place further on
    labels = [t.index for t in layout.tiles] + [JOKER.index]
    probs = _confident(dets, labels)
    probs[phantom] = 1.0 / NUM_KINDS  # a rack end: the reader knows nothing of it
    scores = np.full(len(dets), 0.9)
    scores[[2, phantom]] = 0.3, 0.5  # a real tile of row 1 the reader doubted more than the phantom
    out = leaving_out(dets, scores, layout, probs)
    assert out is not None and np.flatnonzero(out).tolist() == [phantom]  # leaving out r3 would shift r4 onto the phantom
    assert leaving_out(dets, scores, layout) is not None  # without the reader: the least likely tile
    assert np.flatnonzero(leaving_out(dets, scores, layout)).tolist() == [2]


def test_a_box_off_every_row_is_left_out_and_nothing_is_left_out_unless_too_many_fit():
    layout = parse_layout("r1 r2 r3 | b1 b2 b3")
    rows = _grid([3, 3], shuffle_seed=None)
    dets, phantom = _with_phantom(rows, 600, 500)  # a key of a keyboard beside the tiles: a row of its own
    scores = np.r_[np.full(len(rows), 0.9), 0.5]
    out = leaving_out(dets, scores, layout)
    assert out is not None and np.flatnonzero(out).tolist() == [phantom]
    assert leaving_out(rows, np.full(len(rows), 0.9), layout) is None  # none too many
    many = Detections.concat([rows, *(_box(600 + 100 * k, 500) for k in range(4))])
    assert leaving_out(many, np.full(len(many), 0.5), layout) is None  # four too many: more than the limit
    with pytest.raises(ValueError, match="scores"):
        leaving_out(dets, np.ones(2), layout)


def test_a_calibration_photo_with_a_phantom_is_taken_without_it(monkeypatch):
    layout = parse_layout("r1 r2 r3 | b1 b2 b3")
    dets, phantom = _with_phantom(_grid([3, 3], shuffle_seed=None), 100 + 3 * 46, 180)
    seen = _seen(dets, Detections.empty(), [t.index for t in layout.tiles])
    seen = SeenTiles(seen.detections, seen.views, CropReading(
        seen.reading.probs, np.r_[np.full(6, 0.99), 0.4], seen.reading.embeddings), Detections.empty(),
        CropReading.empty(), np.zeros((2, 0, 8, 8, 3), np.uint8))
    with pytest.raises(CalibrationError, match="row 2 has 4 tiles where the layout has 3"):
        samples_from(seen, layout, fit=0)
    paired = samples_from(seen, layout)
    samples = paired.samples
    assert [s.tile for s in samples] == list(layout.tiles) and paired.put_back == ()
    assert [box.box for box in paired.left_out] == [tuple(float(v) for v in dets.boxes[phantom])]
    assert np.array_equal(paired.left_out[0].embedding, seen.reading.embeddings[phantom])
    assert [s.box for s in samples] == [tuple(float(v) for v in b) for b in dets.boxes[:phantom]]


def test_a_tile_found_twice_is_refused_even_when_leaving_one_box_out_would_fit(monkeypatch):
    """Each face of a two-faced joker boxed: leaving one out would teach the profile that a joker is no tile."""
    layout = parse_layout("r1 r2 r3 | j j")
    rows = _grid([3, 2], shuffle_seed=None)
    dets = Detections(np.vstack([rows.boxes, rows.boxes[4:5] + [2, -12, 2, -12]]), np.ones(6, np.float32))
    seen = _seen(dets, Detections.empty(), [t.index for t in layout.tiles])
    seen = SeenTiles(seen.detections, seen.views, seen.reading, Detections.empty(), CropReading.empty(),
                     np.zeros((2, 0, 8, 8, 3), np.uint8))
    assert leaving_out(dets, np.full(6, 0.9), layout) is not None  # it would fit
    with pytest.raises(CalibrationError, match="were found at the same place"):
        samples_from(seen, layout)


def test_a_tile_laid_out_once_too_often_is_refused_as_the_wrong_count_not_left_out():
    """A seventh tile, a second red 3 at the end of the first row: it looks like its twin, so it is
    no phantom; the photo has the wrong count and nothing is learnt."""
    layout = parse_layout("r1 r2 r3 | b1 b2 b3")
    dets, extra = _with_phantom(_grid([3, 3], shuffle_seed=None), 100 + 3 * 46, 100)
    seen = _seen(dets, Detections.empty(), [t.index for t in layout.tiles])
    embeddings = seen.reading.embeddings.copy()
    embeddings[extra] = embeddings[2] + 0.01  # the red 3's twin
    seen = SeenTiles(seen.detections, seen.views, CropReading(
        seen.reading.probs, np.r_[np.full(6, 0.99), 0.4], embeddings), Detections.empty(), CropReading.empty(),
        np.zeros((2, 0, 8, 8, 3), np.uint8))
    with pytest.raises(CalibrationError, match="row 1 has 4 tiles where the layout has 3"):
        samples_from(seen, layout)
    out = leaving_out(dets, np.r_[np.full(6, 0.99), 0.4], layout)  # by the count alone it would fit, without it
    assert out is not None and np.flatnonzero(out).tolist() == [extra]
