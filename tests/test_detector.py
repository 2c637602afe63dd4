"""Detections value type, window tiling, and the shipped tile detector on rendered photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.synth.scenes import compose_scene
from vision.detections import CONFIRM_IOU, NEW_IOU, Detections, agreed, box_iou, box_overlap
import vision.detector as detector_module
from vision.detector import (
    COARSE_TILE_PX,
    LARGE_TILE_PX,
    MIN_COARSE_INPUT,
    coarse_input,
    fine_input,
    detect_tiles,
    find_tiles,
    tile_length_px,
    drop_duplicates_and_fragments,
    load_detector,
    windows,
)
from vision.model_files import ModelFileError, model_path

needs_weights = pytest.mark.skipif(
    not model_path("detector").is_file(), reason=f"shipped detector absent ({model_path('detector')}); see models/detector.md"
)


# --- Detections -------------------------------------------------------------------------------


def test_detections_are_frozen_read_only_copies():
    boxes = np.array([[0, 0, 10, 20], [5, 5, 15, 25]], np.float32)
    dets = Detections(boxes, [0.9, 0.8])
    boxes[0, 0] = 99
    assert dets.boxes[0, 0] == 0  # copied
    with pytest.raises(ValueError):
        dets.boxes[0, 0] = 1  # read-only
    with pytest.raises(AttributeError):
        dets.boxes = boxes  # type: ignore[misc]  # frozen
    assert len(dets) == 2 and dets.class_ids is None
    assert np.allclose(dets.centers, [[5, 10], [10, 15]])
    assert np.allclose(dets.areas, [200, 200])


def test_detections_validate_their_arrays():
    with pytest.raises(ValueError, match="confidences"):
        Detections(np.zeros((2, 4)), [0.5])
    with pytest.raises(ValueError, match="x2 >= x1"):
        Detections(np.array([[10, 0, 5, 5]]), [0.5])
    with pytest.raises(ValueError, match="class ids"):
        Detections(np.zeros((1, 4)), [0.5], class_ids=[1, 2])
    assert len(Detections.empty()) == 0 and Detections.empty().boxes.shape == (0, 4)


def test_filtering_shifting_scaling_clipping_and_concat():
    dets = Detections(np.array([[0, 0, 10, 10], [20, 20, 30, 30]]), [0.9, 0.3], class_ids=[4, 7])
    assert dets.with_min_confidence(0.5).class_ids.tolist() == [4]
    assert dets[[1]].boxes.tolist() == [[20, 20, 30, 30]]
    assert dets.shifted(5, -5).boxes[0].tolist() == [5, -5, 15, 5]
    assert dets.scaled(2).boxes[1].tolist() == [40, 40, 60, 60]
    assert dets.clipped(25, 25).boxes[1].tolist() == [20, 20, 25, 25]
    both = Detections.concat([dets, dets.shifted(100, 0)])
    assert len(both) == 4 and both.class_ids.tolist() == [4, 7, 4, 7]
    assert len(Detections.concat([])) == 0
    with pytest.raises(ValueError, match="class ids"):
        Detections.concat([dets, Detections(np.zeros((1, 4)), [0.4])])


def test_iou_and_overlap():
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[5, 0, 15, 10], [0, 0, 5, 5], [20, 20, 30, 30]])
    assert np.allclose(box_iou(a, b), [[50 / 150, 25 / 100, 0]])
    assert np.allclose(box_overlap(a, b), [[0.5, 1.0, 0.0]])


def test_nms_keeps_best_and_drops_contained_fragments():
    boxes = np.array([[0, 0, 10, 14], [1, 0, 11, 14], [0, 0, 10, 6], [50, 50, 60, 64]], np.float32)
    dets = Detections(boxes, [0.8, 0.9, 0.7, 0.5])
    kept = dets.nms(0.5)
    assert kept.confidences.tolist() == pytest.approx([0.9, 0.7, 0.5])  # fragment survives plain IoU NMS
    kept = dets.nms(0.5, overlap_threshold=0.75)
    assert kept.confidences.tolist() == pytest.approx([0.9, 0.5])
    assert len(Detections.empty().nms()) == 0


def test_two_detectors_agree_on_the_firsts_boxes_and_add_the_seconds_new_ones():
    first = Detections(
        np.array([[0, 0, 10, 20], [30, 0, 40, 20], [60, 0, 70, 20], [90, 0, 100, 20]], np.float32),
        np.array([0.9, 0.8, 0.7, 0.6], np.float32),
    )
    second = Detections(
        np.array([[31, 1, 41, 21], [1, 0, 11, 20], [65, 0, 75, 20], [200, 0, 210, 20]], np.float32),
        np.array([0.5, 0.4, 0.3, 0.2], np.float32),
    )
    iou = box_iou(first.boxes, second.boxes)
    assert iou[0, 1] >= CONFIRM_IOU and iou[1, 0] >= CONFIRM_IOU and NEW_IOU <= iou[2, 2] < CONFIRM_IOU
    both = agreed(first, second)
    # confirmed: the first's boxes and confidences; unconfirmed (90..100, and 60..70 whose match is
    # off by half a tile) dropped with that match; the second's box on no tile of the first added
    assert both.boxes.tolist() == [[0, 0, 10, 20], [30, 0, 40, 20], [200, 0, 210, 20]]
    assert both.confidences.tolist() == pytest.approx([0.9, 0.8, 0.2])
    assert agreed(first, Detections.empty()).boxes.shape == (0, 4)  # nothing confirmed
    assert agreed(Detections.empty(), second).boxes.tolist() == second.boxes.tolist()  # all new
    assert agreed(first, first).boxes.tolist() == first.boxes.tolist()  # a detector agrees with itself


def _row_of_tiles(n: int, x0: float = 0.0) -> np.ndarray:
    return np.array([[x0 + 12 * i, 0, x0 + 12 * i + 10, 14] for i in range(n)], np.float32)


def test_duplicate_boxes_and_slivers_are_dropped_but_small_far_tiles_kept():
    row = _row_of_tiles(6)
    duplicate = [[0.5, 0.5, 10, 13]]  # most of tile 0 again (IoU < 0.7 would slip past plain NMS)
    sliver = [[14, 4, 16, 7]]  # a digit-sized box inside tile 1
    far = [[200, 0, 206, 8]]  # a tile a third of the median area (perspective): kept
    boxes = np.concatenate([row, duplicate, sliver, far]).astype(np.float32)
    confidences = [0.9] * 6 + [0.5, 0.6, 0.7]
    kept = drop_duplicates_and_fragments(Detections(boxes, confidences))
    assert kept.boxes.tolist() == np.concatenate([row, far]).tolist()


def test_slivers_are_dropped_even_when_they_outnumber_the_tiles():
    """A close-up of a few big tiles: the logo's letters fire as more tiny boxes than tiles."""
    tiles = np.array([[120 * i, 0, 120 * i + 100, 140] for i in range(4)], np.float32)
    letters = np.array([[300 + 12 * i, 300, 308 + 12 * i, 310] for i in range(6)], np.float32)
    dets = Detections(np.concatenate([tiles, letters]), [0.8] * 4 + [0.5] * 6)
    assert drop_duplicates_and_fragments(dets).boxes.tolist() == tiles.tolist()


def test_size_rule_needs_enough_sure_tiles():
    boxes = np.concatenate([_row_of_tiles(2), [[40, 0, 42, 2]]]).astype(np.float32)
    assert len(drop_duplicates_and_fragments(Detections(boxes, [0.9, 0.9, 0.9]))) == 3
    assert len(drop_duplicates_and_fragments(Detections.empty())) == 0


def test_windows_cover_the_image_with_overlap():
    boxes = windows(1000, 600, 400, 100)
    covered = np.zeros((600, 1000), bool)
    for x1, y1, x2, y2 in boxes:
        assert x2 - x1 <= 400 and y2 - y1 <= 400
        covered[y1:y2, x1:x2] = True
    assert covered.all()
    xs = sorted({b[0] for b in boxes})
    assert all(b - a <= 300 for a, b in zip(xs, xs[1:]))  # neighbours overlap by >= 100
    assert windows(300, 200, 400, 100) == [(0, 0, 300, 200)]
    with pytest.raises(ValueError):
        windows(1000, 1000, 100, 100)


def test_windows_are_as_few_as_the_size_allows_and_no_longer_than_covering_needs():
    boxes = windows(1000, 600, 400, 100)
    xs, ys = sorted({(b[0], b[2]) for b in boxes}), sorted({(b[1], b[3]) for b in boxes})
    assert len(xs) == 3 and len(ys) == 2  # ceil((1000 - 100) / 300), ceil((600 - 100) / 300)
    assert {y2 - y1 for y1, y2 in ys} == {350}  # two rows of 350 cover 600 with 100 of overlap
    assert {x2 - x1 for x1, x2 in xs} == {400}  # three columns need the whole size
    assert ys[0][1] - ys[1][0] >= 100
    # a 4000 x 3000 photo in 1481-pixel windows: 3 x 3, each only 1,079 tall, all one shape (one batch)
    big = windows(4000, 3000, 1481, 118)
    assert len(big) == 9 and len({(x2 - x1, y2 - y1) for x1, y1, x2, y2 in big}) == 1
    assert max(y2 - y1 for _, y1, _, y2 in big) < 1100


def test_tile_length_is_the_median_longer_side_of_the_sure_boxes_in_input_pixels():
    boxes = np.array([[0, 0, 10, 14], [20, 0, 34, 10], [40, 0, 50, 16], [60, 0, 200, 200]], np.float32)
    sure_three = Detections(boxes, [0.9, 0.8, 0.7, 0.1])  # the unsure giant is not counted
    assert tile_length_px(sure_three, 0.5) == pytest.approx(7.0)  # median of 14, 14, 16, halved
    assert tile_length_px(sure_three, 1.0, conf=0.75) == pytest.approx(14.0)
    assert tile_length_px(Detections(boxes[:1], [0.1]), 1.0) is None
    assert tile_length_px(Detections.empty(), 1.0) is None


def test_coarse_input_only_for_big_tiles_aimed_at_the_coarse_size():
    assert coarse_input(LARGE_TILE_PX - 0.5, 640, 32) is None
    assert coarse_input(LARGE_TILE_PX, 640, 32) == int(round(640 * COARSE_TILE_PX / LARGE_TILE_PX / 32)) * 32
    assert coarse_input(LARGE_TILE_PX, 1280, 32) == 640  # aims at the coarse size, in whole strides
    assert coarse_input(400.0, 640, 32) == MIN_COARSE_INPUT  # never coarser than the floor
    assert coarse_input(LARGE_TILE_PX, MIN_COARSE_INPUT, 32) is None  # not coarser than the input itself
    for tile in (80.0, 97.0, 130.0, 260.0):
        size = coarse_input(tile, 1024, 32)
        assert size % 32 == 0 and MIN_COARSE_INPUT <= size < 1024


def test_fine_input_only_for_middling_small_tiles_aimed_at_the_fine_size():
    from vision.detector import FINE_BELOW_PX, FINE_TILE_PX, MAX_FINE_INPUT

    assert fine_input(FINE_BELOW_PX, 640, 32, 4000) is None  # long enough already
    tile = FINE_BELOW_PX - 4
    size = fine_input(tile, 640, 32, 4000)
    assert size == int(round(640 * FINE_TILE_PX / tile / 32)) * 32 and size > 640
    assert fine_input(3.0, 640, 32, 4000) == MAX_FINE_INPUT  # never finer than the cap
    assert fine_input(tile, 640, 32, 700) == 672  # nor than the photo has pixels, in whole strides
    assert fine_input(tile, 640, 32, 640) is None  # a photo no bigger than the first input
    for long_side in (12.0, 17.5, 21.0, 23.9):
        size = fine_input(long_side, 640, 32, 4032)
        assert size % 32 == 0 and 640 < size <= MAX_FINE_INPUT


# --- the shipped detector -----------------------------------------------------------------------


def _match(found: Detections, truth: np.ndarray, iou: float = 0.5) -> tuple[float, float]:
    """Recall and precision with greedy one-to-one matching at ``iou``."""
    if len(truth) == 0 or len(found) == 0:
        return (1.0 if len(truth) == 0 else 0.0), (1.0 if len(found) == 0 else 0.0)
    matrix = box_iou(found.boxes, truth)
    matched_truth: set[int] = set()
    hits = 0
    for i in np.argsort(-found.confidences):
        candidates = [j for j in np.argsort(-matrix[i]) if matrix[i, j] >= iou and j not in matched_truth]
        if candidates:
            matched_truth.add(candidates[0])
            hits += 1
    return hits / len(truth), hits / len(found)


def _tidy_scene(seed: int):
    """A generated table photo whose tiles are fully visible (partly hidden ones are ambiguous)."""
    scene = compose_scene(np.random.default_rng(seed), 960, 720, "table")
    truth = np.array([t.box for t in scene.tiles if t.visible > 0.9], np.float32)
    hidden = np.array([t.box for t in scene.tiles if t.visible <= 0.9], np.float32).reshape(-1, 4)
    return scene.image, truth, hidden


def _without_partly_hidden(found: Detections, hidden: np.ndarray) -> Detections:
    if len(hidden) == 0 or len(found) == 0:
        return found
    return found[box_iou(found.boxes, hidden).max(axis=1) < 0.3]


@needs_weights
def test_detector_finds_tiles_in_rendered_photos():
    recalls, precisions = [], []
    for seed in (7, 8, 9):
        image, truth, hidden = _tidy_scene(seed)
        found = _without_partly_hidden(detect_tiles(image), hidden)
        recall, precision = _match(found, truth)
        recalls.append(recall)
        precisions.append(precision)
    assert np.mean(recalls) >= 0.85, recalls
    assert np.mean(precisions) >= 0.85, precisions


@needs_weights
def test_reading_finds_the_tiles_both_detectors_agree_on(monkeypatch):
    """find_tiles is the detector's boxes vetted by the shipped second detector; with the detector
    itself as the check it is the detector alone, and so where no second detector is installed."""
    image, _, _ = _tidy_scene(8)
    alone = detect_tiles(image)
    second = detect_tiles(image, weights=detector_module.check_detector_path())
    found = find_tiles(image)
    assert found.boxes.tolist() == agreed(alone, second).boxes.tolist()
    assert found.boxes.tolist() != alone.boxes.tolist()  # the two detectors differ on this photo
    assert find_tiles(image, check_weights=model_path("detector")).boxes.tolist() == alone.boxes.tolist()
    monkeypatch.setattr(detector_module, "check_detector_path", lambda: None)
    assert find_tiles(image).boxes.tolist() == alone.boxes.tolist()


@needs_weights
def test_detector_on_a_big_photo_returns_boxes_in_photo_pixels():
    image, truth, hidden = _tidy_scene(7)
    big = cv2.resize(image, (3840, 2880), interpolation=cv2.INTER_LINEAR)  # 11 MP
    found = _without_partly_hidden(detect_tiles(big), hidden * 4)
    recall, precision = _match(found, truth * 4)
    assert recall >= 0.8 and precision >= 0.8, (recall, precision)
    assert found.boxes[:, 2].max() <= 3840 and found.boxes[:, 3].max() <= 2880


def _input_sizes_seen(monkeypatch) -> list[int]:
    """Record the input size of each detector pass."""
    sizes: list[int] = []
    real = detector_module._predict

    def spy(model, images, imgsz, conf):
        sizes.append(imgsz)
        return real(model, images, imgsz, conf)

    monkeypatch.setattr(detector_module, "_predict", spy)
    return sizes


@needs_weights
def test_a_close_up_is_seen_again_coarser_and_its_tiles_found(monkeypatch):
    sizes = _input_sizes_seen(monkeypatch)
    for seed in (2, 7):  # racks of 30 and 25 tiles about 95 px long at 640
        scene = compose_scene(np.random.default_rng(seed), 1600, 900, "closeup")
        truth = np.array([t.box for t in scene.tiles if t.visible > 0.9], np.float32)
        hidden = np.array([t.box for t in scene.tiles if t.visible <= 0.9], np.float32).reshape(-1, 4)
        sizes.clear()
        found = _without_partly_hidden(detect_tiles(scene.image), hidden)
        assert sizes == [640, MIN_COARSE_INPUT], sizes  # big tiles: the coarse pass replaces the first
        recall, precision = _match(found, truth)
        assert recall >= 0.9 and precision >= 0.9, (seed, recall, precision)
        assert found.boxes[:, 2].max() <= 1600 and found.boxes[:, 3].max() <= 900  # in the photo's pixels


@needs_weights
def test_a_whole_table_of_smallish_tiles_is_seen_again_finer_and_its_tiles_found(monkeypatch):
    """Tiles about 21 px long at 640 (a 12 MP photo of a whole table): not small enough for windows,
    so the whole photo is seen again at a finer input, which replaces the first pass."""
    from vision.detector import FINE_BELOW_PX, MAX_FINE_INPUT

    sizes = _input_sizes_seen(monkeypatch)
    scene = compose_scene(np.random.default_rng(2), 2400, 1800, "table", tile_px=80.0)
    truth = np.array([t.box for t in scene.tiles if t.visible > 0.9], np.float32)
    hidden = np.array([t.box for t in scene.tiles if t.visible <= 0.9], np.float32).reshape(-1, 4)
    first = detector_module._predict(load_detector(), [scene.image], 640, 0.35)[0]
    assert tile_length_px(first, 640 / 2400, 0.35) < FINE_BELOW_PX
    sizes.clear()
    found = _without_partly_hidden(detect_tiles(scene.image), hidden)
    assert len(sizes) == 2 and sizes[0] == 640 and 640 < sizes[1] <= MAX_FINE_INPUT, sizes
    recall, precision = _match(found, truth)
    assert recall >= 0.95 and precision >= 0.9, (recall, precision)


@needs_weights
def test_a_table_of_middling_tiles_is_seen_once(monkeypatch):
    sizes = _input_sizes_seen(monkeypatch)
    image, _, _ = _tidy_scene(7)
    detect_tiles(image)
    assert sizes == [640]
    sizes.clear()
    detect_tiles(image, tiling="never")
    assert sizes == [640]


@needs_weights
def test_detector_on_an_empty_table_finds_little():
    plain = np.full((480, 640, 3), (60, 90, 140), np.uint8)  # a plain brown table
    assert len(detect_tiles(plain)) <= 1


@needs_weights
def test_tiny_and_bad_images():
    assert len(detect_tiles(np.zeros((4, 4, 3), np.uint8))) == 0
    with pytest.raises(ValueError, match="BGR uint8"):
        detect_tiles(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="tiling"):
        detect_tiles(np.zeros((10, 10, 3), np.uint8), tiling="sometimes")


def test_missing_weights_raise_a_clear_error(tmp_path):
    with pytest.raises(ModelFileError, match="missing") as caught:
        load_detector(tmp_path / "absent.onnx")
    assert "RUMMIKUB_MODELS_DIR" in str(caught.value) and "absent.onnx" in str(caught.value)


@pytest.mark.train
@pytest.mark.slow
def test_training_entry_point_runs_offline(tmp_path):
    from training.train import main

    config = tmp_path / "tiny.yaml"
    config.write_text(
        "model: yolo11n.yaml\nreal: null\nsynthetic: {count: 2, seed: 0}\n"
        "train: {imgsz: 64, epochs: 1, batch: 2, workers: 0, seed: 0, plots: false}\n"
    )
    export = tmp_path / "detector.pt"
    assert main(["detector", "--config", str(config), "--work", str(tmp_path / "work"), "--export", str(export)]) == 0
    assert export.is_file() and export.stat().st_size > 100_000
