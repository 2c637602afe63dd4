"""Make ultralytics run offline, quietly and on all our cores. Import this BEFORE ``ultralytics``.

Every vision module that touches ultralytics does ``from vision import yolo_env`` first, then
``yolo_env.configure_threads()`` once torch is in use. What it sets, and why:

* ``YOLO_OFFLINE=1`` - never reach the network (no hub, no telemetry, no version checks);
* ``YOLO_AUTOINSTALL=0`` - never pip-install anything at run time;
* ``YOLO_CONFIG_DIR`` - a writable settings dir of our own (default: ``<tmp>/rummikub-yolo``),
  so ultralytics never writes into the user's home;
* ``OMP_NUM_THREADS`` - ultralytics would force 1; we use :data:`THREADS` (env
  ``RUMMIKUB_THREADS``, default: the machine's core count, at most 8).

Existing values in the environment win, so a user can still override each of them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["THREADS", "configure_threads"]

THREADS = max(1, int(os.environ.get("RUMMIKUB_THREADS", min(8, os.cpu_count() or 1))))

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")
os.environ.setdefault("YOLO_CONFIG_DIR", str(Path(tempfile.gettempdir()) / "rummikub-yolo"))
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
Path(os.environ["YOLO_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)


def configure_threads(threads: int | None = None) -> int:
    """Give torch and ultralytics' loaders ``threads`` threads (default :data:`THREADS`); return it."""
    import torch
    import ultralytics.utils

    n = THREADS if threads is None else max(1, threads)
    torch.set_num_threads(n)
    ultralytics.utils.NUM_THREADS = n
    return n
