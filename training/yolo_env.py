"""Make ultralytics run offline, quietly and on all our cores. Import this BEFORE ``ultralytics``.

Every vision module that touches ultralytics does ``from training import yolo_env`` first, then
``yolo_env.configure_threads()`` once torch is in use. What it sets, and why:

* ``YOLO_OFFLINE=1`` - never reach the network (no hub, no telemetry, no version checks);
* ``YOLO_AUTOINSTALL=0`` - never pip-install anything at run time;
* ``YOLO_CONFIG_DIR`` - a writable settings dir of our own (default: ``<tmp>/rummikub-yolo``),
  so ultralytics never writes into the user's home; a local DejaVu font is linked there as
  ``Arial.ttf`` so ultralytics never tries to download its plotting font;
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


def _provide_local_font() -> None:
    """Ultralytics looks for Arial.ttf in its settings dir and downloads it if absent; give it DejaVu Sans."""
    settings_dir = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    try:
        settings_dir.mkdir(parents=True, exist_ok=True)
        for name in ("Arial.ttf", "Arial.Unicode.ttf"):
            target = settings_dir / name
            if target.exists():
                continue
            for candidate in _FONT_CANDIDATES:
                if candidate.is_file():
                    target.symlink_to(candidate)
                    break
    except OSError:  # read-only or racing processes: ultralytics then just skips label plots
        pass


_FONT_CANDIDATES = [Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")]
try:
    import matplotlib

    _FONT_CANDIDATES.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
except ImportError:  # pragma: no cover
    pass
_provide_local_font()


def configure_threads(threads: int | None = None) -> int:
    """Give torch and ultralytics' loaders ``threads`` threads (default :data:`THREADS`); return it."""
    import torch
    import ultralytics.utils

    n = THREADS if threads is None else max(1, threads)
    torch.set_num_threads(n)
    ultralytics.utils.NUM_THREADS = n
    return n
