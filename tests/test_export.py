"""``training.export``: readers averaged in one ONNX file give their members' mean, and say what they came from.

Uses two of the trained readers kept in ``models/`` (the ``train`` extra exports them).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.train

MODELS = Path(__file__).resolve().parents[1] / "models"
FIRST, SECOND = MODELS / "reader-masked.pt", MODELS / "reader-more-photos3.pt"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    pytest.importorskip("ultralytics", reason="the train extra is not installed")
    if not (FIRST.is_file() and SECOND.is_file()):
        pytest.skip("the kept reader checkpoints are not here")
    from training.export import export_reader

    out = tmp_path_factory.mktemp("export")
    return {
        "first": export_reader([FIRST], out / "first.onnx"),
        "second": export_reader([SECOND], out / "second.onnx"),
        "both": export_reader([FIRST, SECOND], out / "both.onnx"),
    }


def _run(path: Path, crops: np.ndarray):
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"images": crops}), session.get_modelmeta().custom_metadata_map


def _crops() -> np.ndarray:
    """Rendered tiles (not noise, on which every reader says the same): members disagree on some."""
    from datasets.synth.editions import TRAINING_EDITIONS
    from solver.tiles import Tile
    from training.train_reader import synthetic_crop

    rng = np.random.default_rng(3)
    crops = [synthetic_crop(Tile.from_index(i), rng, 64, [], TRAINING_EDITIONS[i % len(TRAINING_EDITIONS)]) for i in range(0, 53, 4)]
    return np.ascontiguousarray(np.stack(crops)[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def test_readers_averaged_give_the_mean_probabilities_and_both_embeddings(exported):
    crops = _crops()
    (p1, e1), first_meta = _run(exported["first"], crops)
    (p2, e2), _ = _run(exported["second"], crops)
    (both, embedding), meta = _run(exported["both"], crops)
    assert np.abs(p1 - p2).max() > 0.05  # the members differ, so the mean is not either one
    np.testing.assert_allclose(both, (p1 + p2) / 2, atol=1e-5)
    np.testing.assert_allclose(both.sum(axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(embedding, np.concatenate([e1, e2], axis=1), atol=1e-4)
    sources = json.loads(meta["rummikub.source"])
    assert [s["file"] for s in sources] == [FIRST.name, SECOND.name]
    assert json.loads(meta["rummikub.names"]) == json.loads(first_meta["rummikub.names"])


def test_one_reader_keeps_its_single_source_entry(exported):
    _, meta = _run(exported["second"], _crops())
    assert json.loads(meta["rummikub.source"])["file"] == SECOND.name


def test_readers_of_other_classes_are_not_averaged(tmp_path):
    pytest.importorskip("ultralytics", reason="the train extra is not installed")
    from training.export import export_reader

    older = MODELS / "reader.pt"  # 53 classes, without not-tile
    if not (older.is_file() and FIRST.is_file()):
        pytest.skip("the kept reader checkpoints are not here")
    with pytest.raises(ValueError, match="other classes"):
        export_reader([FIRST, older], tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()
    with pytest.raises(ValueError, match="no reader"):
        export_reader([], tmp_path / "x.onnx")


def test_cli_averages_readers_only(tmp_path, capsys):
    from training.export import main

    with pytest.raises(SystemExit):
        main(["detector", "--from", str(FIRST), str(SECOND), "--out", str(tmp_path / "d.onnx")])
    assert "averaged readers" in capsys.readouterr().err
    assert main(["reader", "--from", str(tmp_path / "missing.pt"), "--out", str(tmp_path / "r.onnx")]) == 1
    assert "no weights to export" in capsys.readouterr().err
