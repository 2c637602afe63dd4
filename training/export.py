"""``python -m training.export [detector|reader|all]``: trained ultralytics weights -> ONNX files.

The runtime (:mod:`vision`) reads photos with ONNX Runtime only; this is the one place where the
trained ``.pt`` files become the shipped ``models/*.onnx``. Each file carries its own metadata
(JSON in the ONNX ``metadata_props``), which the runtime checks when it loads the file:

* ``rummikub.model``: ``detector`` or ``reader``;
* ``rummikub.names``: the class names in output order (the reader's 53 tiles, and optionally
  ``not-tile``);
* ``rummikub.imgsz`` / ``rummikub.stride``: the input size it was trained at and the stride a
  letterboxed input is padded to;
* ``rummikub.source``: the ``.pt`` file's name and SHA-256, so a model card can say exactly which
  weights a shipped file came from.

The detector is exported by ultralytics' own exporter (dynamic height and width, so the
runtime can feed the same minimum-rectangle letterbox ultralytics' predictor uses). The reader is
exported through a small wrapper that returns the class probabilities *and* the head's pooled
features (the tile embedding that calibration to a player's own set works on).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
MODELS = REPO_ROOT / "models"
OPSET = 17


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _source_entry(sources: Sequence[Path]) -> str:
    """``rummikub.source``: the weights' file name and SHA-256; a list of them for readers averaged."""
    entries = [{"file": s.name, "sha256": _sha256(s)} for s in sources]
    return json.dumps(entries[0] if len(entries) == 1 else entries)


def _write_metadata(onnx_path: Path, model: str, names: list[str], imgsz: int, stride: int, sources: Sequence[Path]) -> None:
    import onnx

    proto = onnx.load(str(onnx_path))
    entries = {
        "rummikub.model": model,
        "rummikub.names": json.dumps(names),
        "rummikub.imgsz": str(imgsz),
        "rummikub.stride": str(stride),
        "rummikub.source": _source_entry(sources),
    }
    kept = [p for p in proto.metadata_props if not p.key.startswith("rummikub.")]
    del proto.metadata_props[:]
    proto.metadata_props.extend(kept)
    for key, value in entries.items():
        proto.metadata_props.add(key=key, value=value)
    onnx.save(proto, str(onnx_path))


def _names(names: dict[int, str] | list[str]) -> list[str]:
    return [names[i] for i in sorted(names)] if isinstance(names, dict) else list(names)


def export_detector(source: Path, out: Path, imgsz: int = 640) -> Path:
    """Export the one-class tile detector with dynamic input height and width."""
    from training import yolo_env  # noqa: F401  (offline, no auto-install; before ultralytics)
    from ultralytics import YOLO

    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / source.name
        shutil.copy2(source, staged)  # ultralytics writes the .onnx beside its input
        model = YOLO(str(staged), task="detect")
        exported = Path(model.export(format="onnx", dynamic=True, simplify=True, imgsz=imgsz, opset=OPSET, device="cpu"))
        stride = int(max(model.model.stride))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(exported), out)
    _write_metadata(out, "detector", _names(model.names), imgsz, stride, [source])
    return out


def reader_with_embedding(model):
    """A torch module: crops (n, 3, s, s, RGB 0..1) -> (probabilities, pooled head features).

    It runs the classification model's layers exactly as ultralytics' forward does, then splits
    the ``Classify`` head after its pooling, so the embedding comes out beside the probabilities.
    """
    import torch

    class ReaderWithEmbedding(torch.nn.Module):
        def __init__(self, classifier) -> None:
            super().__init__()
            self.layers = classifier.model
            self.save = set(classifier.save)

        def forward(self, x):
            outputs: list = []
            for layer in self.layers[:-1]:
                x = self._inputs(layer, x, outputs)
                x = layer(x)
                outputs.append(x if layer.i in self.save else None)
            head = self.layers[-1]
            x = self._inputs(head, x, outputs)
            if isinstance(x, list):
                x = torch.cat(x, 1)
            embedding = head.pool(head.conv(x)).flatten(1)
            return head.linear(embedding).softmax(1), embedding

        @staticmethod
        def _inputs(layer, x, outputs):
            if layer.f == -1:
                return x
            if isinstance(layer.f, int):
                return outputs[layer.f]
            return [x if j == -1 else outputs[j] for j in layer.f]

    return ReaderWithEmbedding(model).eval()


def readers_averaged(members):
    """A torch module: crops -> (the members' probabilities averaged, their embeddings side by side).

    One reader is the ensemble of one (its own outputs). Readers trained apart can be wrong on
    different tiles, so their mean may be right more often and more honestly unsure than any one of
    them (deep ensembles); fine-tunes of one checkpoint were not (``models/reader.md``, "Readers
    averaged"). The embeddings are concatenated, so a calibration profile compares tiles in every
    member's space at once.
    """
    import torch

    class ReadersAveraged(torch.nn.Module):
        def __init__(self, wrapped) -> None:
            super().__init__()
            self.members = torch.nn.ModuleList(wrapped)

        def forward(self, x):
            outputs = [member(x) for member in self.members]
            probs = torch.stack([p for p, _ in outputs]).mean(0)
            return probs, torch.cat([e for _, e in outputs], 1)

    return ReadersAveraged(members).eval()


def _load_classifier(source: Path):
    """A trained reader's classification model (fp32, eval), its class names and input size."""
    from training import yolo_env  # noqa: F401
    from ultralytics import YOLO

    model = YOLO(str(source), task="classify")
    classifier = model.model.float().eval()
    imgsz = model.overrides.get("imgsz") or getattr(classifier, "args", {}).get("imgsz", 64)
    imgsz = int(imgsz[0] if isinstance(imgsz, (list, tuple)) else imgsz)
    return classifier, _names(classifier.names), imgsz


def export_reader(sources: Sequence[Path], out: Path) -> Path:
    """Export the tile reader (dynamic batch) with its probabilities and embeddings as outputs.

    Several ``sources`` make one file whose probabilities are their mean (:func:`readers_averaged`);
    they must name the same classes in the same order and read the same crop size.
    """
    import torch

    sources = [Path(s) for s in sources]
    if not sources:
        raise ValueError("no reader weights to export")
    loaded = [_load_classifier(source) for source in sources]
    classifiers = [c for c, _, _ in loaded]
    names, imgsz = loaded[0][1], loaded[0][2]
    for source, (_, other_names, other_size) in zip(sources, loaded):
        if other_names != names or other_size != imgsz:
            raise ValueError(f"{source} reads other classes or another crop size than {sources[0]}: readers averaged must agree")
    wrapper = readers_averaged([reader_with_embedding(c) for c in classifiers])
    sample = torch.rand(2, 3, imgsz, imgsz, generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        expected = []
        for classifier in classifiers:
            result = classifier(sample)
            expected.append(result[0] if isinstance(result, (tuple, list)) else result)
        probs, _ = wrapper(sample)
    if not torch.allclose(probs, torch.stack(expected).mean(0), atol=1e-5):
        raise RuntimeError("the reader wrapper does not reproduce the classifiers' probabilities")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        wrapper,
        (sample,),
        str(out),
        input_names=["images"],
        output_names=["probs", "embedding"],
        dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}, "embedding": {0: "batch"}},
        opset_version=OPSET,
        dynamo=False,
    )
    _write_metadata(out, "reader", names, imgsz, 1, sources)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.export", description=__doc__.split("\n")[0])
    parser.add_argument("model", choices=("detector", "reader", "all"), nargs="?", default="all")
    parser.add_argument(
        "--from", dest="source", type=Path, nargs="+",
        help="the .pt to export (default: models/<model>.pt); several readers make one file of their mean",
    )
    parser.add_argument("--out", type=Path, help="where to write the .onnx (default: models/<model>.onnx)")
    args = parser.parse_args(argv)
    chosen = ("detector", "reader") if args.model == "all" else (args.model,)
    if len(chosen) > 1 and (args.source or args.out):
        parser.error("--from and --out name one model: give detector or reader")
    if args.source and len(args.source) > 1 and chosen != ("reader",):
        parser.error("several --from files are averaged readers: give reader")
    for name in chosen:
        sources = args.source or [MODELS / f"{name}.pt"]
        out = args.out or MODELS / f"{name}.onnx"
        missing = [s for s in sources if not s.is_file()]
        if missing:
            print(f"no weights to export: {missing[0]}", file=sys.stderr)
            return 1
        if name == "detector":
            export_detector(sources[0], out)
        else:
            export_reader(sources, out)
        print(f"{name}: {' + '.join(map(str, sources))} -> {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
