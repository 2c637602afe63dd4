"""The calibration study's own logic (training/calibration_study.py): its photos, and how it counts."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.synth.editions import edition
from datasets.synth.scenes import PlacedTile, Scene
from solver.tiles import parse_tile
from training import calibration_study as cs
from vision.calibration import DEFAULT_LAYOUT, CalibrationError, PairedPhoto


def _scene(tiles: list[tuple[str, tuple[float, float, float, float]]]) -> Scene:
    placed = tuple(PlacedTile(parse_tile(t), np.zeros((4, 2), np.float32), box, 1.0) for t, box in tiles)
    return Scene(np.zeros((10, 10, 3), np.uint8), placed, (tuple(range(len(placed))),), "table")


def test_a_tile_paired_with_another_kinds_box_or_with_no_tile_is_counted_as_such():
    scene = _scene([("r1", (0, 0, 40, 56)), ("r2", (50, 0, 90, 56)), ("r3", (100, 0, 140, 56))])
    boxes = np.array([[0, 0, 40, 56], [52, 2, 92, 58], [100, 0, 140, 56], [300, 300, 340, 356]], float)
    labels = [parse_tile(t).index for t in ("r1", "r2", "b3", "r4")]
    assert cs.mispaired(scene, boxes, labels) == (1, 1)  # b3 on r3's box; r4 on no tile
    assert cs.mispaired(scene, boxes[:2], labels[:2]) == (0, 0)
    assert cs.mispaired(scene, np.zeros((0, 4)), []) == (0, 0)


def test_a_refusal_is_named_by_its_reason():
    assert cs.refusal_reason(CalibrationError("the rows do not match the layout: {rows}", rows=[])) == "row count"
    assert cs.refusal_reason(
        CalibrationError("found {found} rows of tiles ({counts} tiles), but the layout has {expected} rows ({layout} tiles)",
                         found=1, counts="3", expected=2, layout="2, 1")
    ) == "rows"
    assert cs.refusal_reason(CalibrationError(
        "row {row}: tiles {first} and {second} were found at the same place; lay the tiles apart and take the photo again",
        row=1, first=1, second=2,
    )) == "same place"
    assert cs.refusal_reason(CalibrationError("no tiles found in the photo")) == "other"


def test_a_rack_calibration_photo_is_laid_out_as_its_tiers_with_every_tile_in_view():
    scene, layout = cs.calibration_photo("rack-ends", edition("selection-heavy"), np.random.default_rng(5))
    assert scene.kind == "closeup" and not scene.hidden and min(t.visible for t in scene.tiles) >= cs.WHOLE
    assert [len(row) for row in layout.rows] == [len(tier) for tier in scene.melds]
    assert list(layout.tiles) == [scene.tiles[j].tile for tier in scene.melds for j in tier]
    table, default = cs.calibration_photo("table", edition("selection-heavy"), np.random.default_rng(5))
    assert default == DEFAULT_LAYOUT and table.image.shape[:2] == (1200, 1600)
    with pytest.raises(ValueError, match="no calibration photo"):
        cs.calibration_photo("grid", edition("selection-heavy"), np.random.default_rng(5))


def test_the_study_sees_each_photo_once_and_pairs_it_once_per_fit_with_and_without_a_phantom(monkeypatch):
    calls: list[tuple[int, int]] = []
    phantom = object()

    def seen_once(image):
        calls.append(("seen", 0))
        return "seen"

    def refuse_as_found(seen, layout, fit):
        calls.append((seen == "seen", fit))
        if fit == 0:
            raise CalibrationError("the rows do not match the layout: {rows}", rows=[])
        return PairedPhoto(())

    monkeypatch.setattr(cs, "see_tiles", seen_once)
    monkeypatch.setattr(cs, "with_a_phantom", lambda scene, seen: phantom)
    monkeypatch.setattr(cs, "samples_from", refuse_as_found)
    report = cs.study([edition("selection-heavy")], ["table"], 2, 0, [0, 3], phantoms=True)
    assert calls == [("seen", 0), (True, 0), (True, 3), (False, 0), (False, 3)] * 2
    tallies = report["selection-heavy"]["table"]
    assert tallies["0"]["refused"] == 2 and tallies["0"]["refused_by_reason"] == {"row count": 2}
    assert tallies["3"] == {"photos": 2, "refused": 0, "refused_by_reason": {}, "tiles_taken": 0,
                            "paired_with_another_kind": 0, "paired_with_no_tile": 0}
    assert report["selection-heavy"]["table with a phantom"]["0"]["refused"] == 2


def test_a_phantom_stand_in_is_the_dropped_box_on_no_tile_the_gate_came_closest_to_keeping():
    from vision.detections import Detections
    from vision.pipeline import SeenTiles
    from vision.reader import CropReading

    scene = _scene([("r1", (0, 0, 40, 56)), ("r2", (50, 0, 90, 56))])
    dropped = Detections(np.array([[1, 1, 41, 57], [200, 0, 240, 56], [300, 0, 340, 56]], np.float32),
                         np.array([0.9, 0.3, 0.5], np.float32))
    reading = CropReading(np.full((3, 53), 1 / 53), np.array([0.9, 0.4, 0.1]), np.eye(3))
    seen = SeenTiles(Detections.empty(), np.zeros((1, 0, 4, 4, 3), np.uint8), CropReading.empty(), dropped, reading,
                     np.zeros((1, 3, 4, 4, 3), np.uint8))
    haunted = cs.with_a_phantom(scene, seen)
    assert haunted is not None and haunted.detections.boxes.tolist() == [[200, 0, 240, 56]]  # 0.3 x 0.4 > 0.5 x 0.1
    on_tiles = SeenTiles(Detections.empty(), seen.views, CropReading.empty(), dropped[[0]], CropReading(
        reading.probs[:1], reading.tile_prob[:1], reading.embeddings[:1]), seen.dropped_views[:, :1])
    assert cs.with_a_phantom(scene, on_tiles) is None
