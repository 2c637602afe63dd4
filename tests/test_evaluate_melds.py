"""Meld annotations of the real photos (datasets/real_melds.yaml) and the meld-grouping scores."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from training.annotate_melds import (
    DEFAULT_ANNOTATIONS,
    DEFAULT_REAL,
    AnnotationError,
    PhotoMelds,
    check_annotations,
    label_boxes,
    label_lines,
    load_annotations,
    main as annotate_main,
    photo_files,
    render,
)
from training.real_data import DatasetError
from vision.detections import Detections
from training.evaluate_detector import MeldCounts, exact_melds, score_photo
from vision.meld_grouping import group_into_melds

LABELS = "3 0.1 0.1 0.3 0.1 0.3 0.5 0.1 0.5\n\n26 0.6 0.5 0.2 0.4\n7 0.5 0.9 0.7 0.9 0.7 1.2 0.5 1.2\n"


@pytest.fixture
def fake_real(tmp_path: Path) -> Path:
    """A one-photo dataset laid out like rummikub-real: valid/images/p.jpg + valid/labels/p.txt."""
    (tmp_path / "valid" / "images").mkdir(parents=True)
    (tmp_path / "valid" / "labels").mkdir(parents=True)
    image = np.full((50, 100, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "valid" / "images" / "p_jpeg.rf.abc.jpg"), image)
    (tmp_path / "valid" / "labels" / "p_jpeg.rf.abc.txt").write_text(LABELS)
    return tmp_path


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "melds.yaml"
    path.write_text(text)
    return path


def test_label_boxes_are_polygon_extents_in_pixels_one_per_line(fake_real):
    _, labels = photo_files(fake_real, "valid", "p_jpeg.rf.abc")
    assert len(label_lines(labels)) == 3  # the blank line is skipped
    boxes, classes = label_boxes(labels, 100, 50)
    np.testing.assert_allclose(boxes, [[10, 5, 30, 25], [50, 15, 70, 35], [50, 45, 70, 50]], atol=1e-4)
    assert classes.tolist() == [3, 26, 7]  # the last polygon runs past the photo: clipped


def test_label_boxes_reject_a_malformed_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("3 0.1 0.2 0.3\n")
    with pytest.raises(DatasetError, match="malformed"):
        label_boxes(bad, 100, 100)


def test_load_annotations_reads_kinds_and_melds(tmp_path):
    path = _write(tmp_path, "valid:\n  a: {kind: table, melds: [[0, 2], [1]]}\n  b: {kind: other, melds: []}\n")
    assert load_annotations(path) == {
        "valid": {"a": PhotoMelds("table", ((0, 2), (1,))), "b": PhotoMelds("other", ())}
    }


@pytest.mark.parametrize(
    "text, message",
    [
        ("valid: [1, 2]\n", "must map photo names"),
        ("- a\n", "expected"),
        ("valid:\n  a: {kind: floor, melds: [[0]]}\n", "kind must be one of"),
        ("valid:\n  a: {melds: [[0]]}\n", "expected a mapping"),
        ("valid:\n  a: {kind: table, melds: [[0]], extra: 1}\n", "expected a mapping"),
        ("valid:\n  a: {kind: table, melds: [[0, 1], [1]]}\n", "more than one meld"),
        ("valid:\n  a: {kind: table, melds: [[-1]]}\n", "label-line indices"),
        ("valid:\n  a: {kind: table, melds: [[true]]}\n", "label-line indices"),
        ("valid:\n  a: {kind: table, melds: [[]]}\n", "label-line indices"),
        ("valid:\n  a: {kind: table, melds: [0, 1]}\n", "label-line indices"),
        ("valid: {a: [unclosed\n", "cannot read"),
    ],
)
def test_load_annotations_rejects_malformed_files(tmp_path, text, message):
    with pytest.raises(AnnotationError, match=message):
        load_annotations(_write(tmp_path, text))


def test_load_annotations_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(AnnotationError, match="cannot read"):
        load_annotations(tmp_path / "nope.yaml")


def test_check_annotations_finds_every_inconsistency(fake_real):
    good = {"valid": {"p_jpeg.rf.abc": PhotoMelds("table", ((0, 1), (2,)))}}
    assert check_annotations(good, fake_real) == []
    missing_tile = {"valid": {"p_jpeg.rf.abc": PhotoMelds("table", ((0, 1),))}}
    assert check_annotations(missing_tile, fake_real) == ["valid/p_jpeg.rf.abc: 3 tiles; not in a meld [2], past the label file []"]
    past_end = {"valid": {"p_jpeg.rf.abc": PhotoMelds("rack", ((0, 1, 2, 5),))}}
    assert "past the label file [5]" in check_annotations(past_end, fake_real)[0]
    no_photo = {"train": {"q": PhotoMelds("other", ())}}
    assert check_annotations(no_photo, fake_real) == ["train/q: photo or label file missing"]


def test_render_draws_each_tile_on_the_scaled_photo(fake_real):
    image, labels = photo_files(fake_real, "valid", "p_jpeg.rf.abc")
    plain = cv2.resize(cv2.imread(str(image)), None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)
    drawn = render(image, labels, scale=2.0, groups=[[0, 1], [2]])
    assert drawn.shape == (100, 200, 3)
    changed = np.abs(drawn.astype(int) - plain.astype(int)).sum(axis=2) > 60
    for x1, y1, x2, y2 in (np.array([[10, 5, 30, 25], [50, 15, 70, 35]]) * 2):
        assert changed[y1 : y2 + 1, x1 : x2 + 1].any()  # an outline and a number inside each tile's box
    with pytest.raises(AnnotationError, match="not an image"):
        render(labels, labels)


def test_annotate_cli_writes_a_png_and_lists_the_tiles(fake_real, tmp_path, capsys):
    out = tmp_path / "out"
    assert annotate_main(["valid", "p", "--real", str(fake_real), "--out", str(out), "--layout", "table"]) == 0
    assert (out / "valid-p.png").is_file()
    printed = capsys.readouterr().out
    assert "0:3  1:26  2:7" in printed and "layout:" in printed
    with pytest.raises(SystemExit):
        annotate_main(["valid", "nothing", "--real", str(fake_real), "--out", str(out)])


def test_exact_melds_with_truth_boxes_and_with_matched_detections():
    truth = [[0, 1, 2], [3], [4, 5]]
    assert exact_melds([[0, 1, 2], [3, 4, 5]], truth) == [True, False, False]
    # detections 10.. matched to truth tiles; 99 is an extra box with no true tile
    pairs = {10: 0, 11: 1, 12: 2, 13: 3, 14: 4}
    assert exact_melds([[12, 10, 11], [13, 99], [14]], truth, pairs) == [True, False, False]  # 5 was missed
    assert exact_melds([[12, 10, 11], [13], [99]], truth, pairs) == [True, True, False]


def test_score_photo_counts_melds_loose_tiles_and_every_rack_tier():
    counts = MeldCounts()
    score_photo(counts, PhotoMelds("table", ((0, 1, 2), (3,), (4,))), [[0, 1, 2], [3, 4]])
    assert (counts.melds, counts.exact, counts.loose, counts.alone, counts.photos) == (1, 1, 2, 0, 1)
    assert counts.line("table") == "tables (1 photos): melds 1/1 = 1.000, loose tiles kept alone 0/2 = 0.000"
    racks = MeldCounts()
    score_photo(racks, PhotoMelds("rack", ((1,), (0, 2))), [[1], [0], [2]])
    assert (racks.melds, racks.exact, racks.loose) == (2, 1, 0)
    assert racks.line("rack") == "racks (1 photos): tiers 1/2 = 0.500"
    assert MeldCounts().accuracy == 1.0


needs_real = pytest.mark.skipif(not DEFAULT_REAL.is_dir(), reason="real dataset not present (see datasets/README.md)")


@needs_real
def test_annotation_file_matches_the_real_label_files():
    annotations = load_annotations(DEFAULT_ANNOTATIONS)
    assert check_annotations(annotations, DEFAULT_REAL) == []
    valid = {p.stem for p in (DEFAULT_REAL / "valid" / "images").glob("*.jpg")}
    assert set(annotations["valid"]) == valid and len(valid) == 34
    distinct = {stem.split("_jpeg")[0] for stem in annotations["train"]}
    assert len(distinct) == len(annotations["train"]) == 25  # one augmented copy per photo


@needs_real
@pytest.mark.parametrize("split", ["train", "valid"])
def test_layout_groups_the_annotated_real_melds(split):
    """On the label boxes, layout groups >= 95 % of the real table melds and rack tiers exactly."""
    exact = total = 0
    for stem, photo in load_annotations(DEFAULT_ANNOTATIONS)[split].items():
        if photo.kind not in ("table", "rack"):
            continue
        image, labels = photo_files(DEFAULT_REAL, split, stem)
        height, width = cv2.imread(str(image)).shape[:2]
        boxes, _ = label_boxes(labels, width, height)
        groups = group_into_melds(Detections(boxes, np.ones(len(boxes), np.float32)), photo.kind)
        scored = [ok for meld, ok in zip(photo.melds, exact_melds(groups, list(photo.melds))) if len(meld) > 1 or photo.kind == "rack"]
        exact += sum(scored)
        total += len(scored)
    assert total > 50 and exact / total >= 0.95


def test_evaluate_cli_reports_meld_figures_for_label_and_detector_boxes(fake_real, tmp_path, capsys):
    from training.evaluate_detector import main as evaluate_main

    # The fake photo's three labelled tiles lie apart: three loose tiles.
    annotations = _write(tmp_path, "valid:\n  p_jpeg.rf.abc: {kind: table, melds: [[0], [1], [2]]}\n")
    args = ["--real", str(fake_real), "--annotations", str(annotations), "--melds-only", "--melds-split", "valid"]
    assert evaluate_main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "real valid melds (validation), label boxes (layout alone):",
        "  tables (1 photos): melds 0/0 = 1.000, loose tiles kept alone 3/3 = 1.000",
        "real valid melds (validation), detector boxes (end to end):",
        "  tables (1 photos): melds 0/0 = 1.000, loose tiles kept alone 0/3 = 0.000",  # a grey photo: no tiles found
    ]
    assert evaluate_main(["--real", str(tmp_path / "none"), "--melds-only"]) == 0
    assert "real dataset not found" in capsys.readouterr().out
