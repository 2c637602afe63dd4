"""Synthetic Rummikub photos with labels: tile renderer (:mod:`.tiles`), scene composer (:mod:`.scenes`),
and ``python -m datasets.synth --out DIR --count N --seed S`` to write a YOLO dataset."""
