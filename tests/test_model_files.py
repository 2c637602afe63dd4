"""Finding and opening the tile models: the shipped files, $RUMMIKUB_MODELS_DIR, clear errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solver.i18n import error_text
from vision import model_files
from vision.model_files import MODELS_DIR_ENV, ModelFileError, model_path, open_model

ROOT = Path(__file__).resolve().parents[1]
shipped = pytest.mark.skipif(
    not model_path("detector").is_file() or not model_path("reader").is_file(), reason="the ONNX models are not shipped"
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    model_files._open.cache_clear()
    yield
    model_files._open.cache_clear()


def test_the_shipped_models_are_package_data_of_models():
    assert model_path("detector").name == "detector.onnx"
    assert model_path("detector").parent == Path(__import__("models").__file__).parent
    with pytest.raises(ValueError, match="unknown model"):
        model_path("../etc")


def test_the_environment_variable_points_at_other_weights(tmp_path, monkeypatch):
    monkeypatch.setenv(MODELS_DIR_ENV, str(tmp_path))
    assert model_path("reader") == tmp_path / "reader.onnx"
    with pytest.raises(ModelFileError) as caught:
        open_model("reader")
    text = str(caught.value)
    assert str(tmp_path / "reader.onnx") in text and MODELS_DIR_ENV in text and "missing" in text


def test_a_damaged_file_is_one_clear_translated_error(tmp_path):
    bad = tmp_path / "detector.onnx"
    bad.write_bytes(b"\x08\x07 not a model at all" * 10)
    with pytest.raises(ModelFileError) as caught:
        open_model("detector", bad)
    assert str(bad) in str(caught.value) and MODELS_DIR_ENV in str(caught.value)
    ukrainian = error_text(caught.value, "uk")
    assert ukrainian != str(caught.value) and str(bad) in ukrainian and MODELS_DIR_ENV in ukrainian


@shipped
def test_a_model_of_the_other_kind_is_refused(tmp_path):
    swapped = tmp_path / "detector.onnx"
    shutil.copy(model_path("reader"), swapped)
    with pytest.raises(ModelFileError, match="not the right model"):
        open_model("detector", swapped)


@shipped
def test_the_shipped_models_carry_their_metadata():
    detector, reader = open_model("detector"), open_model("reader")
    assert detector.names == ("tile",) and detector.imgsz == 640 and detector.stride == 32
    assert len(reader.names) in (53, 54) and reader.imgsz == 64


def _fresh_python(script: str, folder: Path) -> subprocess.CompletedProcess:
    """Run ``script`` in a new interpreter on this checkout (what is imported there is its own)."""
    done = subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(folder)})
    assert done.returncode == 0, done.stderr
    return done


@shipped
def test_reading_a_photo_imports_neither_torch_nor_ultralytics(tmp_path):
    script = (
        "import sys, numpy as np, cv2, vision\n"
        "image = np.full((480, 640, 3), 90, np.uint8)\n"
        "cv2.rectangle(image, (100, 100), (160, 190), (235, 235, 235), -1)\n"
        "vision.read(image)\n"
        "heavy = sorted(m for m in ('torch', 'ultralytics', 'torchvision') if m in sys.modules)\n"
        "print(','.join(heavy) or 'none')\n"
    )
    assert _fresh_python(script, tmp_path).stdout.strip() == "none"


@shipped
def test_the_read_command_leaves_the_solver_unimported(tmp_path):
    """``rummikub read`` pays neither for the move solver nor for OR-Tools' model builder and SciPy
    behind it (about half a second of a cold read); ``solve`` still finds them."""
    import cv2

    from tests.synthetic_photos import rows_photo

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), rows_photo([["r4", "r5", "r6"]]))
    script = (
        "import sys, app.cli\n"
        f"code = app.cli.main(['read', {str(photo)!r}, '--json'])\n"
        "heavy = sorted(m for m in ('solver.search', 'scipy', 'ortools.linear_solver.python.model_builder_helper') if m in sys.modules)\n"
        "print(code, ','.join(heavy) or 'none', file=sys.stderr)\n"
        "import solver\n"
        "print(solver.solve(solver.Position(solver.parse_melds(''), solver.parse_tiles('r1 r2 r3'))).played, file=sys.stderr)\n"
    )
    done = _fresh_python(script, tmp_path)
    lines = done.stderr.strip().splitlines()
    assert lines[-2] == "0 none", done.stderr
    assert lines[-1].count("Colour.RED") == 3, done.stderr  # the lazy solve is the real one: r1 r2 r3 laid


def test_thread_count_follows_the_environment(monkeypatch):
    monkeypatch.setenv(model_files.THREADS_ENV, "3")
    assert model_files.threads() == 3
    monkeypatch.setenv(model_files.THREADS_ENV, "lots")
    assert model_files.threads() >= 1


def test_pure_vision_modules_import_without_opencv_or_onnxruntime(tmp_path):
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('cv2', 'onnxruntime'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import vision, vision.decoding, vision.reading, vision.meld_grouping, vision.detections\n"
        "print(vision.Reading.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Reading"


@shipped
def test_the_second_detector_is_shipped_and_looked_for_beside_the_first(tmp_path, monkeypatch):
    """It ships beside the detector; a folder of a player's own models without one reads with the
    detector alone (None), and one that holds it is used."""
    from vision.model_files import CHECK_DETECTOR_FILE, check_detector_path

    assert check_detector_path() == model_path("detector").with_name(CHECK_DETECTOR_FILE)
    assert open_model("detector", check_detector_path()).names == ("tile",)
    monkeypatch.setenv(MODELS_DIR_ENV, str(tmp_path))
    assert check_detector_path() is None
    shutil.copyfile(ROOT / "models" / CHECK_DETECTOR_FILE, tmp_path / CHECK_DETECTOR_FILE)
    assert check_detector_path() == tmp_path / CHECK_DETECTOR_FILE


def test_the_app_warm_up_opens_both_models_and_imports_the_solver(tmp_path):
    """What the app's server start does in the background: the first photo and the first move then
    pay neither for opening the models nor for importing OR-Tools; a failure of one is logged and
    the other still happens."""
    script = (
        "import sys, app.photos as photos, vision.model_files as mf\n"
        "before = ('solver.search' in sys.modules, mf._open.cache_info().currsize)\n"
        "photos.warm_up()\n"
        "print(before, ('solver.search' in sys.modules, mf._open.cache_info().currsize))\n"
        "del sys.modules['solver.search']\n"
        "import vision\n"
        "def broken(): raise RuntimeError('no models here')\n"
        "vision.warm_up = broken\n"
        "photos.warm_up()\n"
        "print('solver.search' in sys.modules)\n"
    )
    done = _fresh_python(script, tmp_path)
    # opened: both detectors and the reader
    assert done.stdout.strip().splitlines() == ["(False, 0) (True, 3)", "True"], done.stderr
    assert "warming up the tile models failed" in done.stderr and "no models here" in done.stderr
