"""Benchmark: how fast a photo is read, from a new process and in a warm one; how big the install is.

    python -m benchmarks.runtime_benchmark [--photo PHOTO] [--repeats 5] [--venv PATH] [--out FILE]

* **cold**: a new process runs ``rummikub read PHOTO --json`` (the installed script, else
  ``python -m app.cli``), file to JSON on stdout, the way a player's first read from the command
  line goes: interpreter start, imports, opening both models, decoding the photo, reading it;
* **warm**: ``vision.read(PHOTO)`` again in one process after a first read (what the app pays
  once its models are warm);
* **import**: a new process that only imports the CLI and ``vision`` (the share of cold that is
  Python start-up and imports);
* **install size** (with ``--venv``): the size on disk of a virtual environment made with a plain
  ``pip install .``.

The photo defaults to a seeded synthetic 4000 x 3000 (12 MP) table from :mod:`datasets.synth`,
so anyone can rerun it without the real photos.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

SEED = 7


def synthetic_photo(folder: Path) -> Path:
    """A seeded 12 MP synthetic table photo written as JPEG (quality 92)."""
    from datasets.synth.scenes import compose_scene

    scene = compose_scene(np.random.default_rng(SEED), width=4000, height=3000, kind="table")
    path = folder / "table-12mp.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def _cli() -> list[str]:
    script = shutil.which("rummikub")
    return [script] if script else [sys.executable, "-m", "app.cli"]


def _timed_run(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-500:]}")
    return seconds


def cold_reads(photo: Path, repeats: int) -> list[float]:
    return [_timed_run([*_cli(), "read", str(photo), "--json"]) for _ in range(repeats)]


def import_times(repeats: int) -> list[float]:
    return [_timed_run([sys.executable, "-c", "import app.cli, vision"]) for _ in range(repeats)]


def warm_reads(photo: Path, repeats: int) -> list[float]:
    import vision

    vision.read(photo)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        vision.read(photo)
        times.append(time.perf_counter() - start)
    return times


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def _row(name: str, times: list[float]) -> str:
    return f"| {name} | {statistics.median(times):.2f} | {max(times):.2f} | {len(times)} |"


def report(photo: Path, repeats: int, venv: Path | None) -> str:
    cold, imports, warm = cold_reads(photo, repeats), import_times(repeats), warm_reads(photo, repeats)
    height, width = cv2.imread(str(photo)).shape[:2]
    lines = [
        f"Photo: {photo.name} ({width} x {height}); {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.machine()}",
        "",
        "| measure | median s | max s | runs |",
        "|---|---:|---:|---:|",
        _row("cold: new process, `rummikub read PHOTO --json`", cold),
        _row("imports only: `import app.cli, vision`", imports),
        _row("warm: `vision.read(PHOTO)` in a warm process", warm),
    ]
    if venv is not None:
        lines += ["", f"Install size: {folder_size(venv) / 1e9:.2f} GB ({venv})"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.runtime_benchmark", description=__doc__.split("\n")[0])
    parser.add_argument("--photo", type=Path, help="the photo to read (default: a seeded synthetic 12 MP table)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--venv", type=Path, help="a virtual environment made by `pip install .`, to measure its size")
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        photo = args.photo or synthetic_photo(Path(folder))
        text = report(photo, max(1, args.repeats), args.venv)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
