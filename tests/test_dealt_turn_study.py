"""The dealt-turn study's photos and counting (training/dealt_turn_study.py)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from datasets.synth.scenes import PlacedTile, Scene
from solver.tiles import parse_tile
from training import dealt_turn_study as study
from vision.reading import Reading, ReadingKind, ReadTile


def _scene(names: list[str], number_visible: float = 1.0) -> Scene:
    tiles = tuple(
        PlacedTile(parse_tile(n), np.zeros((4, 2), np.float32), (60.0 * i, 0.0, 60.0 * i + 40, 56.0), 1.0, number_visible)
        for i, n in enumerate(names)
    )
    return Scene(np.zeros((60, 60 * len(names), 3), np.uint8), tiles, (tuple(range(len(names))),), "rack")


def _reading(names: list[str], unsure: tuple[int, ...] = (), shift: float = 0.0) -> Reading:
    return Reading(tuple(
        ReadTile(parse_tile(n), (60.0 * i + shift, 0.0, 60.0 * i + 40 + shift, 56.0), 0.9, uncertain=i in unsure)
        for i, n in enumerate(names)
    ), kind=ReadingKind.RACK)


def test_tiles_are_counted_right_where_a_read_box_shows_them():
    scene = _scene(["r7", "k3", "b12", "j"])
    assert study.tiles_right(_reading(["r7", "k8", "b12", "o1"], unsure=(3,)), scene) == (2, 1, 4)  # k8 shown as sure
    assert study.tiles_right(_reading(["r7", "k3"], shift=35.0), scene) == (0, 0, 4)  # boxes beside the tiles
    assert study.tiles_right(_reading(["r7"]), _scene(["r7"], number_visible=0.2)) == (0, 0, 0)  # nothing to read


def test_a_third_copy_over_both_photos_is_over_the_limit():
    assert study.over_limit([_reading(["r7", "r7"]), _reading(["r7"])])
    assert not study.over_limit([_reading(["r7", "r7"]), _reading(["o7", "j", "j"])])


def test_a_turn_is_dealt_from_one_set_and_photographed_as_dealt():
    table, rack = study.dealt_scenes("selection-heavy", np.random.default_rng(5), (960, 720))
    assert table.kind == "table" and rack.kind in ("rack", "closeup") and table.tiles and rack.tiles
    shown = Counter(t.tile for scene in (table, rack) for t in scene.tiles)
    assert max(shown.values()) <= 2  # dealt from one 106-tile set
    assert table.edition == rack.edition == "selection-heavy"


def test_the_study_reads_a_turn_apart_and_together(tmp_path):
    import json

    out = tmp_path / "report.json"
    assert study.main(["--pairs", "1", "--size", "800", "600", "--json", str(out)]) == 0
    report = json.loads(out.read_text())["selection-heavy"]
    assert report["apart"]["labelled"] == report["together"]["labelled"] > 0
    for method in ("apart", "together"):
        assert 0 < report[method]["right"] <= report[method]["labelled"]
    # the photos apart are one way to read them together: decoding together never holds more copies
    assert report["together"]["pairs_over_limit"] <= report["apart"]["pairs_over_limit"]


def test_the_next_turn_shows_the_last_turns_table_and_the_tiles_played_since():
    before, table, rack = study.next_turn_scenes("selection-heavy", np.random.default_rng(3), (960, 720))
    assert len(before) >= 15
    shown, last = Counter(t.tile for t in table.tiles), Counter(before)
    assert sum((shown & last).values()) >= 0.5 * len(before)  # the camera may cut a few off
    assert sum((shown - last).values()) <= 12  # what was played since
    everything = last + Counter(t.tile for t in rack.tiles)
    assert max(everything.values()) <= 2  # the last table and the rack come from one set


def test_the_study_reads_the_next_turn_with_the_last_table_too(tmp_path):
    import json

    out = tmp_path / "report.json"
    assert study.main(["--pairs", "1", "--size", "800", "600", "--next-turn", "--json", str(out)]) == 0
    report = json.loads(out.read_text())["selection-heavy"]
    assert set(report) == {"apart", "together", "with the last table"}
    assert report["with the last table"]["labelled"] == report["apart"]["labelled"] > 0
