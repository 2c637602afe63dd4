"""``python -m training.train {detector|reader} [options]``: one entry point for training both vision models.

``detector`` runs :mod:`training.train_detector` (one-class tile finder); ``reader`` runs
:mod:`training.train_reader` (the 53-class tile reader); ``reader-editions`` runs
:mod:`training.generalised_reader` (the reader fine-tuned on other editions, with ``not-tile``); ``reader-fonts`` runs
:mod:`training.font_reader` (that reader fine-tuned on reshaped digits and small tiles). Each is imported only when asked for, so one
model's training code never slows down or breaks the other's.
"""

from __future__ import annotations

import importlib
import sys

_TRAINERS = {
    "detector": "training.train_detector",
    "reader": "training.train_reader",
    "reader-editions": "training.generalised_reader",
    "reader-fonts": "training.font_reader",
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in _TRAINERS:
        print(f"usage: python -m training.train {{{'|'.join(_TRAINERS)}}} [options]  (--help after the model name)", file=sys.stderr)
        return 2
    module = importlib.import_module(_TRAINERS[argv[0]])
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
