"""Where the tile models are and how they are opened: ONNX Runtime sessions, checked once.

The shipped files are package data of :mod:`models` (found with :mod:`importlib.resources`, so
an installed wheel reads photos from any folder). ``$RUMMIKUB_MODELS_DIR`` points at a folder
with other ``detector.onnx`` / ``reader.onnx`` files instead (a player's own training run, say).

Every file carries the metadata :mod:`training.export` wrote (model kind, class names, input
size, stride); a missing, damaged or wrong file raises :class:`ModelFileError`, one translatable
message that names the file and the variable to set.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from solver.i18n import TranslatableError

__all__ = [
    "MODELS_DIR_ENV", "THREADS_ENV", "ModelFile", "ModelFileError", "check_detector_path", "model_path", "open_model",
]

MODELS_DIR_ENV = "RUMMIKUB_MODELS_DIR"
THREADS_ENV = "RUMMIKUB_THREADS"
MODEL_NAMES = ("detector", "reader")
#: The file of the second detector, whose boxes vet the detector's (vision.detector.find_tiles).
CHECK_DETECTOR_FILE = "detector-check.onnx"


class ModelFileError(TranslatableError, FileNotFoundError):
    """A tile model file is missing, damaged or not the model it should be."""


@dataclass(frozen=True, eq=False)
class ModelFile:
    """An open ONNX Runtime session and what its metadata says about the model."""

    path: Path
    session: object  # onnxruntime.InferenceSession
    names: tuple[str, ...]
    imgsz: int
    stride: int

    @property
    def input_name(self) -> str:
        return self.session.get_inputs()[0].name  # type: ignore[attr-defined]


def model_path(name: str) -> Path:
    """The ``.onnx`` file for model ``name`` (``detector`` or ``reader``): env folder or shipped."""
    if name not in MODEL_NAMES:
        raise ValueError(f"unknown model {name!r}; expected one of {', '.join(MODEL_NAMES)}")
    folder = os.environ.get(MODELS_DIR_ENV)
    if folder:
        return Path(folder) / f"{name}.onnx"
    return Path(str(resources.files("models").joinpath(f"{name}.onnx")))


def check_detector_path() -> Path | None:
    """The second detector's file, where :func:`model_path` looks for the others, or None where it
    is not there: a folder of a player's own models may hold only ``detector.onnx`` and ``reader.onnx``,
    and photos are then read by the detector alone, as before the second one shipped."""
    path = model_path("detector").with_name(CHECK_DETECTOR_FILE)
    return path if path.is_file() else None


def threads() -> int:
    """Threads per ONNX Runtime session: ``$RUMMIKUB_THREADS``, else the cores (at most 8)."""
    try:
        return max(1, int(os.environ.get(THREADS_ENV, "")))
    except ValueError:
        return max(1, min(8, os.cpu_count() or 1))


def _missing(path: Path) -> ModelFileError:
    return ModelFileError(
        "the tile model file {path} is missing. Reinstall the package, or set {variable} to a folder that "
        "holds detector.onnx and reader.onnx",
        path=str(path), variable=MODELS_DIR_ENV,
    )


def _damaged(path: Path) -> ModelFileError:
    return ModelFileError(
        "the tile model file {path} is damaged or is not the right model. Reinstall the package, or set "
        "{variable} to a folder that holds detector.onnx and reader.onnx",
        path=str(path), variable=MODELS_DIR_ENV,
    )


def open_model(name: str, path: str | Path | None = None) -> ModelFile:
    """Open (once per process and file) model ``name`` from ``path`` or :func:`model_path`; check it."""
    return _open(name, Path(path) if path is not None else model_path(name))


@functools.lru_cache(maxsize=4)
def _open(name: str, file: Path) -> ModelFile:
    import onnxruntime as ort

    if not file.is_file():
        raise _missing(file)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads()
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: ONNX Runtime's warnings are not the player's business
    try:
        session = ort.InferenceSession(str(file), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as err:  # noqa: BLE001 - onnxruntime raises its own exception types for bad files
        raise _damaged(file) from err
    meta = session.get_modelmeta().custom_metadata_map
    try:
        if meta["rummikub.model"] != name:
            raise ValueError(f"it is a {meta['rummikub.model']} model")
        names = tuple(str(n) for n in json.loads(meta["rummikub.names"]))
        imgsz, stride = int(meta["rummikub.imgsz"]), int(meta["rummikub.stride"])
    except (KeyError, ValueError, TypeError) as err:
        raise _damaged(file) from err
    return ModelFile(file, session, names, imgsz, stride)
