"""The shipped ONNX models give what ultralytics gives with the trained ``.pt`` weights.

On the real validation photos: the detector's boxes (one pass over the photo at 640, the same
confidence and NMS) match one to one with IoU >= 0.99 and confidences within 1e-3; the reader's
probabilities on the labelled tiles are within 1e-3. So an export can never drift silently from
the weights it came from. Needs the ``train`` extra (ultralytics) and the real photos.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.crops import crop_tiles
from vision.detections import box_iou
from vision.images import load_image
from vision.model_files import model_path

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = 12  # of the 34 validation photos: enough boxes (~170 tiles) to catch a drift, in seconds


@pytest.fixture(scope="module")
def real_valid():
    from training.real_data import DEFAULT_REAL, load_real_split

    if not (DEFAULT_REAL / "valid").is_dir():
        pytest.skip(f"the real photos are not here ({DEFAULT_REAL}); see datasets/README.md")
    return load_real_split(DEFAULT_REAL, "valid")[:PHOTOS]


@pytest.fixture(scope="module")
def ultralytics_yolo():
    pytest.importorskip("ultralytics", reason="the train extra is not installed")
    from training import yolo_env  # noqa: F401  (offline; before ultralytics)
    from ultralytics import YOLO

    return YOLO


def _source(model) -> str:
    """The file name of the ``.pt`` a shipped ONNX model says it was exported from, checked by hash."""
    import hashlib
    import json

    source = json.loads(model.session.get_modelmeta().custom_metadata_map["rummikub.source"])
    path = ROOT / "models" / source["file"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == source["sha256"], f"{path} is not the exported file"
    return source["file"]


@pytest.mark.parametrize("file", ["detector", "check"])
def test_detector_onnx_matches_ultralytics(real_valid, ultralytics_yolo, file):
    from vision.detector import _MAX_DET, _NMS_IOU, _predict, load_detector
    from vision.model_files import check_detector_path

    onnx_model = load_detector(model_path("detector") if file == "detector" else check_detector_path())
    torch_model = ultralytics_yolo(str(ROOT / "models" / _source(onnx_model)), task="detect")
    compared = 0
    for photo in real_valid:
        image = load_image(photo.image_path)
        expected = torch_model.predict(image, imgsz=640, conf=0.35, iou=_NMS_IOU, max_det=_MAX_DET, verbose=False, device="cpu")[0]
        want_boxes, want_conf = expected.boxes.xyxy.numpy(), expected.boxes.conf.numpy()
        got = _predict(onnx_model, [image], 640, 0.35)[0]
        assert len(got) == len(want_boxes), photo.image_path.name
        if not len(got):
            continue
        iou = box_iou(want_boxes, got.boxes)
        pairs = iou.argmax(axis=1)
        assert len(set(pairs.tolist())) == len(pairs), photo.image_path.name
        assert iou[np.arange(len(pairs)), pairs].min() >= 0.99, photo.image_path.name
        assert np.abs(got.confidences[pairs] - want_conf).max() <= 1e-3, photo.image_path.name
        compared += len(got)
    assert compared > 100


def test_reader_onnx_matches_ultralytics(real_valid, ultralytics_yolo):
    import torch

    from vision.reader import load_reader

    reader = load_reader(model_path("reader"))
    source = ROOT / "models" / _source(reader.model)  # the .pt this ONNX file was exported from
    classifier = ultralytics_yolo(str(source), task="classify").model.float().eval()
    crops = np.concatenate([crop_tiles(load_image(p.image_path), [t.box for t in p.tiles], reader.imgsz) for p in real_valid])
    blob = np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
    got, embedding = reader.model.session.run(None, {reader.model.input_name: blob})  # every class, the model's order
    with torch.inference_mode():
        result = classifier(torch.from_numpy(blob))
        want = (result[0] if isinstance(result, (tuple, list)) else result).numpy()
    assert len(crops) > 100 and got.shape == want.shape and embedding.shape[0] == len(crops)
    assert np.abs(got - want).max() <= 1e-3
