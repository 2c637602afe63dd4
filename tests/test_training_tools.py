"""Training tools: config inheritance, label parsing, metrics, calibration, the test sets, the widened reader."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from training.calibrate import (
    TileOutcomes, choose_joker_threshold, choose_threshold, cost_scaled_threshold, flag_rates, joined,
)
from training.configs import ConfigError, load_config, merge
from training.metrics import Reliability, iou_spread, match, multiset_scores, prf
from solver.tiles import Colour, parse_tile
from training.real_data import DatasetError, label_polygon, polygon_line_to_box
from vision.detections import Detections

REPO = Path(__file__).resolve().parents[1]


def test_merge_overrides_nested_keys_only():
    base = {"train": {"lr0": 0.002, "epochs": 30}, "model": "a.yaml"}
    assert merge(base, {"train": {"lr0": 0.001}}) == {"train": {"lr0": 0.001, "epochs": 30}, "model": "a.yaml"}
    assert base["train"]["lr0"] == 0.002  # the base is not modified


def test_config_inherits_from_its_base(tmp_path):
    (tmp_path / "base.yaml").write_text("model: m.yaml\ntrain:\n  lr0: 0.002\n  epochs: 3\n")
    (tmp_path / "child.yaml").write_text("base: base.yaml\ntrain:\n  lr0: 0.001\n")
    assert load_config(tmp_path / "child.yaml") == {"model": "m.yaml", "train": {"lr0": 0.001, "epochs": 3}}


def test_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "loop.yaml").write_text("base: loop.yaml\n")
    with pytest.raises(ConfigError, match="itself"):
        load_config(tmp_path / "loop.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(tmp_path / "list.yaml")
    (tmp_path / "bad.yaml").write_text("a: [1\n")
    with pytest.raises(ConfigError, match="YAML"):
        load_config(tmp_path / "bad.yaml")


def test_shipped_finetune_config_differs_from_its_base_only_in_the_rate():
    base = load_config(REPO / "datasets" / "configs" / "detector.yaml")
    finetune = load_config(REPO / "datasets" / "configs" / "detector_finetune.yaml")
    assert finetune["train"]["lr0"] == base["train"]["lr0"] / 2
    assert {**finetune["train"], "lr0": base["train"]["lr0"]} == base["train"]
    editions = load_config(REPO / "datasets" / "configs" / "reader_editions.yaml")
    assert editions["dataset"] == load_config(REPO / "datasets" / "configs" / "reader.yaml")["dataset"]


def test_detector_stage4_config_is_stage3_with_new_scenes_more_real_copies_and_a_lower_rate():
    from training.testsets import TEST_SETS

    configs = REPO / "datasets" / "configs"
    stage3, stage4 = load_config(configs / "detector_generalised.yaml"), load_config(configs / "detector_more_scenes.yaml")
    assert stage4["synthetic"]["recipe"] == stage3["synthetic"]["recipe"] == "generalised"
    assert stage4["synthetic"]["seed"] != stage3["synthetic"]["seed"]
    assert stage4["synthetic"]["seed"] not in {t.seed for t in TEST_SETS}
    assert stage4["synthetic"]["count"] > 4 * stage3["synthetic"]["count"]
    assert stage4["real_copies_per_photo"] == 2 > stage3["real_copies_per_photo"]
    assert stage4["train"]["lr0"] < stage3["train"]["lr0"]
    assert {**stage4["train"], "lr0": stage3["train"]["lr0"]} == stage3["train"]
    assert stage4["train"]["degrees"] == 0.0
    assert {k: v for k, v in stage4.items() if k not in {"synthetic", "real_copies_per_photo", "train"}} == {
        k: v for k, v in stage3.items() if k not in {"synthetic", "real_copies_per_photo", "train"}
    }


def test_label_lines_as_polygons_and_boxes():
    square = label_polygon("3 0.1 0.2 0.3 0.2 0.3 0.4 0.1 0.4")
    assert square.shape == (4, 2)
    assert polygon_line_to_box("3 0.1 0.2 0.3 0.2 0.3 0.4 0.1 0.4") == pytest.approx((0.2, 0.3, 0.2, 0.2))
    assert polygon_line_to_box("0 0.5 0.5 0.2 0.4") == (0.5, 0.5, 0.2, 0.4)
    assert polygon_line_to_box("   ") is None
    assert polygon_line_to_box("1 -0.1 0.5 0.2 0.5 0.2 0.7") == pytest.approx((0.1, 0.6, 0.2, 0.2))  # clipped
    with pytest.raises(DatasetError, match="malformed"):
        label_polygon("1 0.1 0.2 0.3")


def test_prf_and_multisets():
    assert multiset_scores([1, 1, 2], [1, 2, 2, 3]) == (2, 3, 4)
    scores = prf(2, 3, 4)
    assert scores.precision == pytest.approx(2 / 3) and scores.recall == 0.5
    assert scores.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert prf(0, 0, 0).f1 == 1.0 and prf(0, 2, 2).f1 == 0.0


def test_match_is_one_to_one_best_confidence_first():
    truth = np.array([[0, 0, 10, 10]], np.float32)
    found = Detections(np.array([[0, 0, 10, 10], [1, 0, 11, 10]], np.float32), np.array([0.5, 0.9], np.float32))
    assert match(found, truth) == {1: 0}


def test_iou_spread_and_reliability():
    assert iou_spread([]) == {"n": 0, "median": None, "p5": None}
    spread = iou_spread([0.5, 0.9, 0.95, 1.0])
    assert spread["median"] == pytest.approx(0.925) and spread["p5"] < 0.6
    table = Reliability()
    table.add(True, False, 0.99)
    table.add(False, True, 0.4)
    table.add(False, False, 0.8)
    d = table.as_dict()
    assert d["wrong"] == 2 and d["wrong_flagged_share"] == 0.5 and d["right_flagged_share"] == 0.0
    assert d["wrong_flagged"] == 1
    assert [b["tiles"] for b in d["table"]] == [1, 0, 1, 0, 1]


def test_threshold_choice_flags_enough_wrong_tiles():
    right = np.array([True, True, True, False, False])
    confidence = np.array([0.99, 0.95, 0.7, 0.6, 0.8])
    assert flag_rates(right, confidence, 0.75) == (0.5, pytest.approx(1 / 3))
    assert choose_threshold(right, confidence, 0.9, (0.5, 0.7, 0.81, 0.9)) == 0.81
    assert choose_threshold(right, confidence, 0.9, (0.5, 0.6)) == 0.6  # none reaches it: the highest


def test_a_jokers_threshold_scales_the_risk_by_what_a_wrong_joker_costs():
    # a tile may be wrong 27 % of the time unflagged; a joker (30 points against 7) 6.3 %
    assert cost_scaled_threshold(0.73) == 0.94 and cost_scaled_threshold(0.5) == 0.89
    assert cost_scaled_threshold(0.73, penalty=7.0) == 0.73  # as costly as a tile: the same threshold
    for bad in ((0.0,), (1.0,), (0.7, 0.0)):
        with pytest.raises(ValueError):
            cost_scaled_threshold(*bad)


def test_a_jokers_threshold_flags_every_wrong_joker_read_when_the_cost_alone_does_not():
    outcomes = TileOutcomes(
        right=np.array([True, False, True, False, True]), confidence=np.array([0.99, 0.96, 0.97, 0.5, 0.6]),
        not_tile=np.zeros(5), labels=np.array([52, 52, 52, 7, 7]),
    )
    assert outcomes.jokers.tolist() == [True, True, True, False, False]
    assert choose_joker_threshold(outcomes, 0.73) == pytest.approx(0.97)  # 0.96 must be flagged
    calm = TileOutcomes(outcomes.right, np.array([0.99, 0.80, 0.97, 0.5, 0.6]), outcomes.not_tile, outcomes.labels)
    assert choose_joker_threshold(calm, 0.73) == 0.94  # the cost-scaled floor
    no_wrong_joker = TileOutcomes(outcomes.right, outcomes.confidence, outcomes.not_tile, np.array([52, 7, 52, 7, 7]))
    assert choose_joker_threshold(no_wrong_joker, 0.73) == 0.94


def test_the_threshold_is_chosen_on_both_calibration_sets_pooled_and_on_the_unseen_edition(monkeypatch, capsys, tmp_path):
    """By default every set tuned on (small photos and 12 MP ones) is read and its tiles pooled, and
    the unseen edition's set apart: the threshold must flag enough wrong tiles in each. A test set
    named on purpose is read too, with a warning."""
    from training import calibrate

    assert calibrate.CALIBRATION_SETS == ("calibration", "calibration-phone")
    assert calibrate.UNSEEN_SETS == ("selection-unseen",)
    loaded, seen = [], []

    gates = []

    def fake_outcomes(photos, detector, reader, cache, min_tile_prob):
        seen.append(list(photos))
        gates.append(min_tile_prob)
        if photos == ["selection-unseen"]:  # the unseen edition: a wrong tile read at 0.83
            return TileOutcomes(np.array([True, False, True]), np.array([0.99, 0.83, 0.9]), np.zeros(3), np.array([1, 2, 3]))
        return TileOutcomes(np.array([True, False, False]), np.array([0.95, 0.6, 0.72]), np.zeros(3), np.array([52, 3, 52]))

    monkeypatch.setattr(calibrate, "load_testset", lambda folder: loaded.append(folder.name) or [folder.name])
    monkeypatch.setattr(calibrate, "tile_outcomes", fake_outcomes)
    monkeypatch.setattr(calibrate, "load_any_reader", lambda path: None)
    assert calibrate.main(["--testsets", str(tmp_path), "--unseen"]) == 0  # the calibration sets alone
    assert loaded == ["calibration", "calibration-phone"] and seen == [loaded]
    out = capsys.readouterr().out
    assert "chosen uncertain_below 0.73" in out  # the lowest flagging both wrong tiles
    assert "2 tiles read as jokers, 1 wrong" in out and "chosen joker_uncertain_below 0.94" in out
    loaded.clear(), seen.clear()
    assert calibrate.main(["--testsets", str(tmp_path)]) == 0
    assert seen == [["calibration", "calibration-phone"], ["selection-unseen"]]
    out = capsys.readouterr().out
    assert "selection-unseen: 3 tiles, 1 wrong; alone 0.84" in out and "chosen uncertain_below 0.84" in out
    assert set(gates) == {calibrate.MIN_TILE_PROB}  # behind the shipped gate unless told
    calibrate.main(["--testsets", str(tmp_path), "--min-tile-prob", "0.4"])
    assert gates[-2:] == [0.4, 0.4]
    calibrate.main(["--testsets", str(tmp_path), "--set", "held-out-phone"])
    assert "'held-out-phone', a test set" in capsys.readouterr().err
    calibrate.main(["--testsets", str(tmp_path), "--set", "selection"])
    assert "'selection', a selection set" in capsys.readouterr().err
    calibrate.main(["--testsets", str(tmp_path), "--set", "selection-distractors"])
    assert "'selection-distractors', a set the rule against non-tiles is chosen on" in capsys.readouterr().err
    calibrate.main(["--testsets", str(tmp_path), "--unseen", "held-out-editions"])
    assert "'held-out-editions' is not a selection set" in capsys.readouterr().err


def test_the_threshold_serves_each_group_of_photos():
    from training.calibrate import choose_threshold_each, joined

    familiar = TileOutcomes(np.array([True, False]), np.array([0.99, 0.6]), np.zeros(2), np.array([1, 2]))
    unseen = TileOutcomes(np.array([True, False, True]), np.array([0.95, 0.8, 0.9]), np.zeros(3), np.array([1, 2, 3]))
    clean = TileOutcomes(np.array([True]), np.array([0.4]), np.zeros(1), np.array([1]))
    grid = (0.5, 0.65, 0.85, 0.95)
    assert choose_threshold_each([familiar], 0.9, grid) == 0.65
    assert choose_threshold_each([familiar, unseen], 0.9, grid) == 0.85  # the unseen set asks more
    assert choose_threshold_each([familiar, clean], 0.9, grid) == 0.65  # no wrong tile: asks nothing
    with pytest.raises(ValueError, match="no tiles"):
        choose_threshold_each([], 0.9, grid)
    both = joined([familiar, unseen])
    assert both.right.tolist() == [True, False, True, False, True] and both.labels.tolist() == [1, 2, 1, 2, 3]


def test_test_sets_are_seeded_and_refuse_unknown_names(tmp_path):
    from datasets.synth.editions import HELD_OUT, SELECTION_ONLY, SIBLING_GAMES
    from training.testsets import TEST_SETS, write_test_sets

    assert {t.name for t in TEST_SETS if t.is_test} == {
        "held-out-editions", "held-out-phone", "held-out-games", "okey-tiles", "closeup-racks", "distractors", "rack-ends",
        "confirm-distractors", "confirm-held-out-phone",
    }
    # the others keep their scenes; the sets a rule against non-tiles is chosen on show rack ends too
    assert {t.name for t in TEST_SETS if t.recipe.rack_ends > 0} == {"rack-ends", "selection-distractors", "selection-distractors-phone"}
    assert {t.name for t in TEST_SETS if t.recipe.one_set} == {"held-out-games"}  # likewise
    held_out = {t.name: t.recipe for t in TEST_SETS if set(t.recipe.editions) & (HELD_OUT | SIBLING_GAMES)}
    assert set(held_out) == {"held-out-editions", "held-out-phone", "held-out-games", "okey-tiles", "confirm-held-out-phone"}  # and no other set shows them
    assert len({t.seed for t in TEST_SETS}) == len(TEST_SETS)  # every set its own photos
    selection = {t.name: t for t in TEST_SETS if t.selects_models}
    assert set(selection) == {"selection", "selection-phone", "selection-unseen"}
    assert not any(t.is_test for t in selection.values())
    # The sets a rule against non-tiles is chosen on: neither tests, nor selection, nor calibration sets.
    guards = {t.name: t for t in TEST_SETS if t.guards_non_tiles}
    assert set(guards) == {"selection-distractors", "selection-distractors-phone"}
    assert not any(t.is_test or t.selects_models for t in guards.values())
    from training.calibrate import CALIBRATION_SETS
    assert set(CALIBRATION_SETS) == {"calibration", "calibration-phone"}
    assert {t.seed for t in guards.values()}.isdisjoint({t.seed for t in TEST_SETS if t.name not in guards})
    # The selection-only edition: in the unseen selection set and in no other set.
    unseen = {t.name for t in TEST_SETS if set(t.recipe.editions) & SELECTION_ONLY}
    assert unseen == {"selection-unseen"} and set(selection["selection-unseen"].recipe.editions) == SELECTION_ONLY
    by_name = {t.name: t for t in TEST_SETS}  # the calibration sets' recipes, twice the photos
    assert selection["selection"].recipe == by_name["calibration"].recipe
    assert selection["selection-phone"].recipe == by_name["calibration-phone"].recipe
    assert selection["selection"].count == 2 * by_name["calibration"].count
    seeds = [t.seed for t in TEST_SETS]
    assert len(set(seeds)) == len(seeds)
    with pytest.raises(ValueError, match="unknown test sets"):
        write_test_sets(tmp_path, only=("nope",))


needs_reader = pytest.mark.skipif(not (REPO / "models" / "reader.pt").is_file(), reason="no shipped reader")


@needs_reader
def test_widened_reader_reads_tiles_as_before(tmp_path):
    from training.generalised_reader import NOT_TILE, class_names, widen_with_not_tile
    from training.tile_reading import classify_crops, load_any_reader

    widened = widen_with_not_tile(REPO / "models" / "reader.pt", tmp_path / "w.pt", class_names())
    old, new = load_any_reader(REPO / "models" / "reader.pt"), load_any_reader(widened)
    assert old.not_tile_column is None and new.not_tile_column == class_names().index(NOT_TILE)
    crops = np.random.default_rng(0).integers(0, 255, (3, 64, 64, 3), dtype=np.uint8)
    p_old = classify_crops(crops, old)[:, list(old.tile_columns)]
    p_new = classify_crops(crops, new)
    tiles_new = p_new[:, list(new.tile_columns)]
    assert np.allclose(tiles_new / tiles_new.sum(axis=1, keepdims=True), p_old, atol=1e-5)
    assert (p_new[:, new.not_tile_column] < 0.05).all()
    with pytest.raises(ValueError, match="old ones"):
        widen_with_not_tile(REPO / "models" / "reader.pt", tmp_path / "x.pt", ["a", NOT_TILE])


def test_score_photo_counts_misreads_phantoms_and_flags():
    from training.error_breakdown import ErrorKind
    from training.evaluate_suite import PhotoReading, TestPhoto, new_totals, score_photo

    truth = np.array([[0, 0, 10, 14], [20, 0, 30, 14]], np.float32)
    photo = TestPhoto("p", Path("p.jpg"), truth, (3, 7), "rack", np.array([[50, 50, 60, 60]], np.float32))
    boxes = np.array([[0, 0, 10, 14], [20, 0, 30, 14], [50, 50, 60, 61]], np.float32)
    reading = PhotoReading(boxes, (3, 8, 26), (False, True, False), (0.99, 0.6, 0.9), np.zeros(3),
                           np.array([[80, 0, 90, 14]], np.float32))
    totals = new_totals()
    misreads = score_photo(photo, reading, (100, 200), totals)
    assert (totals["hits"], totals["read"], totals["truth"], totals["exact"]) == (1, 3, 2, 0)
    assert totals["non_tiles_read"] == 1 and totals["distractors_read"] == 1 and totals["dropped"] == 1
    assert totals["non_tiles_sure"] == 1  # the phantom at 0.9, not flagged
    from solver.tiles import Tile

    name = lambda i: Tile.from_index(i).name  # noqa: E731
    assert misreads["missing"] == [name(7)] and sorted(misreads["extra"]) == sorted([name(8), name(26)])
    assert misreads["phantoms"] == [name(26)]
    rel = totals["reliability"].as_dict()
    assert rel["right"] == 1 and rel["wrong"] == 2 and rel["wrong_flagged_share"] == 0.5
    assert totals["ious"] == {"1/20-1/8": [1.0, 1.0]}  # 14 px of a 200-px photo
    assert totals["errors"] == {ErrorKind.NUMBER: 1, ErrorKind.NON_TILE: 1}


def test_tiles_with_their_number_hidden_are_neither_to_read_nor_phantoms(tmp_path):
    """A test tile whose number area is mostly hidden is a box in ``hidden``: a reading on it
    counts neither way, while a reading on nothing is still a phantom."""
    import json

    from training.evaluate_suite import MIN_NUMBER_VISIBLE, PhotoReading, load_testset, new_totals, score_photo

    (tmp_path / "meta").mkdir()
    tiles = [
        {"index": 3, "box": [0, 0, 10, 14], "number_visible": 1.0},
        {"index": 7, "box": [20, 0, 30, 14], "number_visible": MIN_NUMBER_VISIBLE - 0.01},
        {"index": 9, "box": [40, 0, 50, 14]},  # written before number_visible: readable
    ]
    meta = {"image": "images/p.jpg", "kind": "table", "tiles": tiles, "distractors": [], "hidden": [[80, 0, 90, 14]]}
    (tmp_path / "meta" / "p.json").write_text(json.dumps(meta))
    (photo,) = load_testset(tmp_path)
    assert photo.labels == (3, 9) and photo.hidden.tolist() == [[20, 0, 30, 14], [80, 0, 90, 14]]
    boxes = np.array([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14], [60, 0, 70, 14]], np.float32)
    reading = PhotoReading(boxes, (3, 8, 9, 26), (False,) * 4, (0.9,) * 4, np.zeros(4), np.zeros((0, 4), np.float32))
    totals = new_totals()
    misreads = score_photo(photo, reading, (100, 200), totals)
    assert (totals["hits"], totals["read"], totals["truth"]) == (2, 3, 2)  # the tile on the hidden one left out
    assert (totals["hidden"], totals["hidden_read"], totals["non_tiles_read"]) == (2, 1, 1)
    from solver.tiles import Tile

    assert misreads["phantoms"] == [Tile.from_index(26).name]


def test_the_overview_has_one_row_per_set_with_its_figures():
    from training.evaluate_suite import overview

    rel = {"wrong_flagged_share": 0.9, "right_flagged_share": 0.05}
    base = {"photos": 2, "tiles": 10, "tiles_read": 5, "tiles_right": 4, "precision": 0.8, "recall": 0.4,
            "f1": 8 / 15, "photos_exact": 0.5, "reliability": rel, "non_tiles_read_as_tiles": 1, "hidden_tiles": 3,
            "hidden_tiles_read": 2}
    none_wrong = {**base, "tiles": 30, "tiles_read": 30, "tiles_right": 30, "precision": 1.0, "recall": 1.0, "f1": 1.0,
                  "reliability": {"wrong_flagged_share": None, "right_flagged_share": 0.0}}
    base_jokers = {**base, "jokers_read": {"wrong": 3, "wrong_flagged": 2, "wrong_flagged_share": 2 / 3, "right": 1,
                                           "right_flagged_share": 0.0}}
    table = overview({"a": base_jokers, "b": none_wrong}).splitlines()
    assert len(table) == 5 and table[0].startswith("| set |")
    assert table[2] == "| a | 2 | 10 | 0.800 / 0.400 / 0.533 | 50.0 % | 0.900 / 0.050 | 3 (2) | 1 | 3 (2) |"
    sure = overview({"a": {**base, "non_tiles_shown_as_sure": 1}}).splitlines()[2]
    assert sure == "| a | 2 | 10 | 0.800 / 0.400 / 0.533 | 50.0 % | 0.900 / 0.050 | – | 1 (1) | 3 (2) |"
    assert "| – / 0.000 | – | 1 |" in table[3]  # a report from before jokers were counted apart
    assert "| – / 0.000 |" in table[3]
    # pooled over tiles, not the mean of the sets: 34 right of 35 read, of 40 labelled
    assert table[4].startswith("| pooled | 4 | 40 | 0.971 / 0.850 / 0.907 |")
    assert len(overview({"a": base}).splitlines()) == 3  # one set: nothing to pool


def test_the_evaluation_drops_boxes_as_the_pipeline_does():
    """decide_photo keeps a box when detector confidence x (1 - not-tile) >= 0.5, like vision.see_tiles."""
    from training.evaluate_suite import SeenPhoto, decide_photo
    from vision.detections import Detections

    boxes = np.array([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14]], np.float32)
    probs = np.eye(53)[[3, 4, 5]]
    seen = SeenPhoto(Detections(boxes, np.array([0.9, 0.55, 0.9], np.float32)), probs, np.array([0.0, 0.2, 0.4]), (20, 60))
    reading = decide_photo(seen, "rack")  # 0.9, 0.44, 0.54
    assert reading.boxes.tolist() == boxes[[0, 2]].tolist() and reading.dropped == 1
    assert sorted(reading.labels) == [3, 5]
    assert decide_photo(seen, "rack", min_tile_prob=0.0).dropped == 0
    assert reading.offered_boxes.tolist() == boxes[[1]].tolist() and reading.offered_labels == (4,)  # offered as the app offers


def test_the_evaluation_counts_the_offered_boxes_by_what_lies_under_them():
    from training.evaluate_suite import PhotoReading, TestPhoto, new_totals, score_photo

    truth = np.array([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14]], np.float32)
    photo = TestPhoto("p", Path("p.jpg"), truth, (3, 7, 9), "table", np.zeros((0, 4), np.float32),
                      hidden=np.array([[60, 0, 70, 14]], np.float32))
    offered = np.array([[20, 0, 30, 14], [40, 0, 50, 14], [60, 0, 70, 14], [0, 0, 10, 14], [90, 0, 99, 14]], np.float32)
    reading = PhotoReading(truth[:1], (3,), (False,), (0.99,), np.zeros(1), offered, offered_boxes=offered,
                           offered_labels=(7, 8, 5, 3, 1))
    totals = new_totals()
    score_photo(photo, reading, (100, 200), totals)
    # two readable tiles not found (one offered right), one hidden tile, one read tile again, one nothing
    assert (totals["offered"], totals["offered_on_tiles"], totals["offered_right"], totals["offered_on_hidden"]) == (5, 2, 1, 1)


def _counting_models(tmp_path, monkeypatch):
    """Fake detector and reader that count their calls: the reader's output depends on its weights'
    bytes and on the boxes, so a wrongly reused cache shows as other numbers."""
    from training import evaluate_suite

    calls = []
    weights = {name: tmp_path / f"{name}.pt" for name in ("det", "a", "b")}
    for path in weights.values():
        path.write_bytes(b"w")

    def fake_detect(image, detector):
        calls.append("detect")
        boxes = np.array([[0, 0, 10, 14], [12, 0, 22, 14]], np.float32) + len(Path(detector).read_bytes())
        return Detections(boxes, np.array([0.9, 0.8], np.float32))

    def fake_read(image, found, reader):
        calls.append(Path(reader.source).stem)
        salt = len(Path(reader.source).read_bytes()) + float(found.boxes.sum())
        probs = np.random.default_rng(int(salt)).dirichlet(np.ones(53), len(found))
        return probs, np.full(len(found), salt / 1000)

    monkeypatch.setattr(evaluate_suite, "detect_image", fake_detect)
    monkeypatch.setattr(evaluate_suite, "read_found", fake_read)
    monkeypatch.setattr("vision.images.load_image", lambda path: np.zeros((20, 30, 3), np.uint8))
    photo = tmp_path / "set" / "images" / "p.jpg"

    def read(name, cache=tmp_path / "c"):
        return evaluate_suite.see_photo(photo, weights["det"], SimpleNamespace(source=str(weights[name])), cache)

    return calls, weights, read


def _same(one, other) -> bool:
    return (np.array_equal(one.found.boxes, other.found.boxes) and np.array_equal(one.found.confidences, other.found.confidences)
            and np.array_equal(one.probs, other.probs) and np.array_equal(one.not_tile, other.not_tile) and one.shape == other.shape
            and np.array_equal(one.inks, other.inks) and np.array_equal(one.bodies, other.bodies)
            and np.array_equal(one.blurs, other.blurs, equal_nan=True))


@pytest.mark.parametrize("method, field", [("INK_METHOD", "inks"), ("BODY_METHOD", "bodies"), ("BLUR_METHOD", "blurs")])
def test_see_photo_keeps_each_boxs_ink_and_body_and_reads_one_again_only_when_it_is_read_another_way(
    tmp_path, monkeypatch, method, field
):
    calls, _, read = _counting_models(tmp_path, monkeypatch)
    loads = []
    photo = np.zeros((20, 40, 3), np.uint8)
    photo[:, 12:] = (60, 110, 150)  # the second box lies on wood
    monkeypatch.setattr("vision.images.load_image", lambda path: loads.append(path) or photo)
    first = read("a")
    assert first.inks.shape == first.bodies.shape == (2, 3) and first.blurs.shape == (2,) and len(loads) == 1
    assert first.bodies[1, 2] > first.bodies[0, 2] + 20  # wood is yellower than black
    assert _same(read("a"), first) and len(loads) == 1  # all from the cache: the photo is not even opened
    monkeypatch.setattr(f"training.evaluate_suite.{method}", "read another way")
    again = read("a")
    assert len(loads) == 2 and calls == ["detect", "a"]  # that one alone was read again
    assert _same(again, first)


def test_the_evaluation_drops_a_box_unlike_the_photos_tiles_as_the_pipeline_does():
    from tests.test_tile_likeness import RULE, _crop
    from training.evaluate_suite import SeenPhoto, decide_photo
    from vision.ink_colour import body_colours
    from vision.tile_likeness import MIN_REFERENCE_TILES, NO_LIKENESS

    n = MIN_REFERENCE_TILES + 2
    bodies = body_colours(np.stack([_crop((222, 230, 232), seed=i) for i in range(n - 1)] + [_crop((60, 110, 150))]))
    probs = np.eye(53)[[parse_tile(f"k{i + 1}").index for i in range(n)]]
    boxes = np.array([[50 * i, 0, 50 * i + 40, 56] for i in range(n)], np.float32)
    seen = SeenPhoto(Detections(boxes, np.full(n, 0.95, np.float32)), probs, np.zeros(n), (60, 50 * n), None, bodies)
    assert decide_photo(seen, "rack", likeness=RULE).dropped_boxes.tolist() == boxes[[-1]].tolist()
    assert decide_photo(seen, "rack", likeness=NO_LIKENESS).dropped == 0
    assert decide_photo(replace(seen, bodies=None), "rack", likeness=RULE).dropped == 0  # bodies not known: nothing held


def test_errors_are_weighed_as_the_rule_against_non_tiles_says():
    from training.evaluate_suite import weighed_errors, weighed_overview
    from training.testsets import NON_TILE_RULE

    report = {"tiles": 100, "tiles_right": 90, "non_tiles_read_as_tiles": 3, "non_tiles_shown_as_sure": 1,
              "reliability": {"right": 90, "right_flagged_share": 0.2}}
    assert NON_TILE_RULE.non_tile_read > NON_TILE_RULE.tile_not_read_right  # a phantom costs more than a miss
    assert weighed_errors(report) == pytest.approx(10 + 4 * 3 + 4 * 1 + 0.1 * 18)
    assert weighed_errors(report, replace(NON_TILE_RULE, non_tile_sure=0.0)) == pytest.approx(10 + 12 + 1.8)
    none_right = {**report, "reliability": {"right": 0, "right_flagged_share": None}}
    assert weighed_errors(none_right) == pytest.approx(26)
    assert weighed_overview({"a": report, "b": none_right}).endswith("a 27.8, b 26.0; all 53.8")


def test_the_evaluation_refuses_a_likeness_rule_that_makes_no_sense(capsys):
    from training.evaluate_suite import main

    with pytest.raises(SystemExit):
        main(["--sets", "selection", "--max-body-step", "0"])
    assert "body step" in capsys.readouterr().err


def test_the_evaluation_weighs_colours_by_the_photos_inks_as_the_pipeline_does():
    """decide_photo with the boxes' ink directions: vision.read's weighing by the photo's own inks,
    and the tile the inks alone changed flagged."""
    from tests.test_ink_colour import EVERY_COLOUR, _photo
    from training.evaluate_suite import SeenPhoto, decide_photo
    from vision.detections import Detections

    probs, directions = _photo(EVERY_COLOUR, torn=Colour.BLUE)
    n = len(probs)
    boxes = np.array([[50 * i, 0, 50 * i + 40, 56] for i in range(n)], np.float32)
    seen = SeenPhoto(Detections(boxes, np.full(n, 0.9, np.float32)), probs, np.zeros(n), (60, 50 * n), directions)
    inked, plain = decide_photo(seen, "rack"), decide_photo(replace(seen, inks=None), "rack")
    torn = parse_tile("b5").index
    assert torn in inked.labels and torn not in plain.labels
    assert inked.uncertain[inked.labels.index(torn)] and sum(inked.uncertain) == 1
    # what a threshold sweep sees: the inks' change flagged at every threshold, each tile's lower confidence
    assert inked.changed_by_inks.tolist() == [label == torn for label in inked.labels]
    assert all(f <= c for f, c in zip(inked.flag_confidence, inked.confidence))
    assert not plain.changed_by_inks.any() and plain.flag_confidence == plain.confidence


def test_a_tile_held_in_doubt_is_flagged_at_every_threshold():
    right = np.array([True, True, False, False])
    confidence = np.array([0.99, 0.6, 0.95, 0.7])
    held = np.array([True, False, True, False])
    assert flag_rates(right, confidence, 0.75) == (0.5, 0.5)
    assert flag_rates(right, confidence, 0.75, held) == (1.0, 1.0)
    assert flag_rates(right, confidence, 0.5, held) == (0.5, 0.5)
    assert choose_threshold(right, confidence, 1.0, (0.5, 0.75, 0.96)) == 0.96
    assert choose_threshold(right, confidence, 1.0, (0.5, 0.75, 0.96), held) == 0.75
    outcomes = TileOutcomes(right, confidence, np.zeros(4), np.array([1, 2, 3, 4]), held)
    assert joined([outcomes, TileOutcomes(right, confidence, np.zeros(4), np.array([1, 2, 3, 4]))]).held.tolist() == [
        True, False, True, False, False, False, False, False]


def test_the_evaluation_flags_a_smeared_tile_as_the_pipeline_does_and_a_sweep_sees_it_held():
    from training.evaluate_suite import SeenPhoto, decide_photo, without_hidden
    from vision.decoding import DEFAULT_SETTINGS

    probs = np.eye(53)[[parse_tile(t).index for t in ("k5", "b5", "o5")]]
    boxes = np.array([[50 * i, 0, 50 * i + 40, 56] for i in range(3)], np.float32)
    seen = SeenPhoto(Detections(boxes, np.full(3, 0.95, np.float32)), probs, np.zeros(3), (60, 150), None, None,
                     np.array([0.01, 0.2, np.nan]))
    shipped = decide_photo(seen, "rack")
    assert not any(shipped.uncertain) and shipped.blurs.tolist()[:2] == [0.01, 0.2]
    limited = decide_photo(seen, "rack", replace(DEFAULT_SETTINGS, blurred_tile=0.1))
    assert limited.uncertain == (False, True, False)  # the tile not measured is not flagged for it
    assert decide_photo(replace(seen, blurs=None), "rack", replace(DEFAULT_SETTINGS, blurred_tile=0.1)).blurs is None
    photo = SimpleNamespace(hidden=np.array([[0, 0, 40, 56]], np.float32), boxes=boxes[1:], labels=(1, 2))
    kept, hidden = without_hidden(photo, limited)
    assert hidden == 1 and kept.blurs.tolist() == [0.2] + [pytest.approx(np.nan, nan_ok=True)]


def test_a_blur_limit_is_chosen_where_it_lets_the_threshold_flag_fewest_right_tiles():
    from training.calibrate import choose_blur_limit

    # two smeared wrong tiles the reader is sure of; a smeared right one; the rest sharp
    right = np.array([False, False, True, True, True, True, False])
    confidence = np.array([0.99, 0.98, 0.97, 0.95, 0.9, 0.99, 0.5])
    blurs = np.array([0.2, 0.3, 0.13, 0.01, 0.02, np.nan, 0.01])
    group = TileOutcomes(right, confidence, np.zeros(7), np.arange(7), None, blurs)
    assert group.blurred_held(0.15).held.tolist() == [True, True, False, False, False, False, False]
    assert group.blurred_held(float("inf")).held.tolist() == [False] * 7
    thresholds = (0.6, 0.92, 0.96, 0.995)
    # without the blur flag only 0.995 flags every wrong tile, and with it every right one
    assert choose_blur_limit([group], [float("inf"), 0.15, 0.1], 1.0, thresholds) == (0.15, 0.6)
    assert choose_blur_limit([group], [0.1, 0.12], 1.0, thresholds) == (0.12, 0.6)  # a tie goes to the higher limit
    assert choose_blur_limit([replace(group, blurs=None)], [0.15, float("inf")], 1.0, thresholds) == (float("inf"), 0.995)
    with pytest.raises(ValueError):
        choose_blur_limit([group], [], 1.0, thresholds)
    assert np.isnan(joined([group, TileOutcomes(right, confidence, np.zeros(7), np.arange(7))]).blurs[7:]).all()


def test_calibration_chooses_the_blur_limit_and_sets_the_thresholds_with_its_smeared_tiles_flagged(monkeypatch, capsys, tmp_path):
    """Given limits to choose from, calibration prints each one's threshold and flag rates, chooses the
    one flagging fewest right tiles, and sets the thresholds with the tiles smeared past it held."""
    from training import calibrate

    def fake_outcomes(photos, detector, reader, cache, min_tile_prob):
        # a wrong tile read surely but smeared (0.3), a right one smeared less (0.12), the rest sharp
        return TileOutcomes(np.array([False, True, True, False]), np.array([0.98, 0.97, 0.95, 0.6]), np.zeros(4),
                            np.array([1, 2, 3, 4]), None, np.array([0.3, 0.12, 0.01, 0.02]))

    monkeypatch.setattr(calibrate, "load_testset", lambda folder: [folder.name])
    monkeypatch.setattr(calibrate, "tile_outcomes", fake_outcomes)
    monkeypatch.setattr(calibrate, "load_any_reader", lambda path: None)
    assert calibrate.main(["--testsets", str(tmp_path), "--unseen", "--target-wrong", "1.0", "--blurred-tile", "inf", "0.2", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "  0.2       0.61       1.000          0.000" in out and "  inf       0.99       1.000          1.000" in out
    assert "chosen blurred_tile 0.2" in out and "held in doubt whatever the threshold" in out
    assert "chosen uncertain_below 0.61" in out
    assert calibrate.main(["--testsets", str(tmp_path), "--unseen", "--target-wrong", "1.0"]) == 0
    assert "chosen blurred_tile inf" in capsys.readouterr().out  # the shipped limit unless told


@pytest.mark.parametrize("tool, argv", [("training.evaluate_suite", ["--sets", "selection", "--blurred-tile", "0"]),
                                        ("training.calibrate", ["--blurred-tile", "0.1", "-1"])])
def test_a_blur_limit_that_makes_no_sense_is_refused(capsys, tool, argv):
    import importlib

    with pytest.raises(SystemExit):
        importlib.import_module(tool).main(argv)
    assert "--blurred-tile" in capsys.readouterr().err


def test_see_photo_cache_hit_gives_what_a_fresh_run_gives(tmp_path, monkeypatch):
    calls, _, read = _counting_models(tmp_path, monkeypatch)
    first, again = read("a"), read("a")
    assert calls == ["detect", "a"]  # the second read came from the cache
    assert _same(again, first) and again.shape == (20, 30)
    fresh = read("a", cache=None)
    assert calls[2:] == ["detect", "a"] and _same(fresh, again)


def test_see_photo_new_reader_reuses_the_detections_only(tmp_path, monkeypatch):
    calls, weights, read = _counting_models(tmp_path, monkeypatch)
    read("a")
    other = read("b")
    assert calls == ["detect", "a", "b"]  # another reader: the crops are read again, the detector is not run
    assert _same(other, read("b", cache=None))
    weights["a"].write_bytes(b"retrained")
    retrained = read("a")
    assert calls[-1] == "a" and calls.count("detect") == 2  # same file name, other weights: read anew
    assert _same(retrained, read("a", cache=None))
    read("b")
    assert calls.count("b") == 2  # b's output stayed cached beside a's (the fresh run above was the second)


def test_see_photo_changed_detector_runs_both_models_again(tmp_path, monkeypatch):
    calls, weights, read = _counting_models(tmp_path, monkeypatch)
    before = read("a")
    weights["det"].write_bytes(b"retrained detector")
    changed = read("a")
    assert calls == ["detect", "a", "detect", "a"]
    assert _same(changed, read("a", cache=None))
    assert not np.array_equal(changed.found.boxes, before.found.boxes) and not np.array_equal(changed.probs, before.probs)


def test_see_photo_crops_cut_another_way_are_read_again(tmp_path, monkeypatch):
    """Readings cached before the crops changed (vision.crops.CROP_METHOD) are not reused; the
    detections are."""
    calls, _, read = _counting_models(tmp_path, monkeypatch)
    read("a")
    monkeypatch.setattr("vision.crops.CROP_METHOD", "cut another way")
    read("a")
    assert calls == ["detect", "a", "a"]


def test_see_photo_photo_written_again_runs_both_models_again(tmp_path, monkeypatch):
    calls, _, read = _counting_models(tmp_path, monkeypatch)
    photo = tmp_path / "set" / "images" / "p.jpg"
    photo.parent.mkdir(parents=True)
    photo.write_bytes(b"first photo")
    read("a")
    read("a")
    assert calls == ["detect", "a"]
    photo.write_bytes(b"the set written again")
    read("a")
    assert calls == ["detect", "a", "detect", "a"]  # same name, another photo: nothing reused


def test_the_evaluations_read_the_shipped_onnx_reader_as_photos_are_read():
    """The default reader of the evaluations is the shipped ONNX file, read by the runtime's own
    code (vision.reader.read_boxes): the figures are the product's, not a second implementation's."""
    from training.tile_reading import DEFAULT_WEIGHTS, load_any_reader, read_boxes, reader_source
    from vision.reader import TileReader
    from vision.reader import read_boxes as runtime_read_boxes

    if not DEFAULT_WEIGHTS.is_file():
        pytest.skip("no shipped reader.onnx")
    reader = load_any_reader()
    assert isinstance(reader, TileReader) and reader_source(reader) == str(reader.model.path)
    image = np.random.default_rng(3).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    boxes = np.array([[10, 10, 40, 52], [60, 20, 92, 66]], np.float32)
    probs, not_tile = read_boxes(image, boxes, reader)
    runtime = runtime_read_boxes(image, boxes, reader)
    assert np.allclose(probs, runtime.probs) and np.allclose(not_tile, 1.0 - runtime.tile_prob)
    assert probs.shape == (2, 53) and np.allclose(probs.sum(axis=1), 1.0)


def test_real_copies_keep_the_first_copies_of_each_photo():
    from training.train_detector import TrainingConfigError, select_copies

    names = ["b.rf.2.jpg", "a.rf.9.jpg", "a.rf.1.jpg", "b.rf.1.jpg", "a.rf.5.jpg", "single.jpg"]
    assert select_copies(names, 1) == ["a.rf.1.jpg", "b.rf.1.jpg", "single.jpg"]
    assert select_copies(names, 2) == ["a.rf.1.jpg", "a.rf.5.jpg", "b.rf.1.jpg", "b.rf.2.jpg", "single.jpg"]
    assert select_copies(names, None) == sorted(names)
    with pytest.raises(TrainingConfigError, match="at least 1"):
        select_copies(names, 0)


def test_prepare_real_links_exactly_the_selection_and_keeps_every_validation_photo(tmp_path):
    from training.train_detector import prepare_real

    real = tmp_path / "real"
    for split, names in (("train", ["p.rf.1.jpg", "p.rf.2.jpg", "q.rf.1.jpg"]), ("valid", ["v.rf.1.jpg", "v.rf.2.jpg"])):
        (real / split / "images").mkdir(parents=True)
        (real / split / "labels").mkdir(parents=True)
        for name in names:
            (real / split / "images" / name).write_bytes(b"jpeg")
            (real / split / "labels" / name.replace(".jpg", ".txt")).write_text("0 0.5 0.5 0.2 0.1\n")
    out = tmp_path / "out"
    assert prepare_real(real, out) == {"train": 3, "valid": 2}
    assert prepare_real(real, out, copies_per_photo=1) == {"train": 2, "valid": 2}
    assert sorted(p.name for p in (out / "train" / "images").iterdir()) == ["p.rf.1.jpg", "q.rf.1.jpg"]
    assert sorted(p.name for p in (out / "train" / "labels").iterdir()) == ["p.rf.1.txt", "q.rf.1.txt"]
    assert (out / "train" / "labels" / "q.rf.1.txt").read_text() == "0 0.500000 0.500000 0.200000 0.100000\n"
    assert len(list((out / "valid" / "images").iterdir())) == 2
