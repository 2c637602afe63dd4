"""How often a calibration photo is refused, and whether what it teaches is right (a script, not a test)::

    python -m training.calibration_study [--editions NAME ...] [--photos 20] [--seed 0] [--phantoms]
                                         [--kinds table table-phone rack rack-ends] [--fit 0 3] [--json OUT]

A refused calibration photo costs the player another photo, or the profile altogether; a photo
paired wrongly teaches the player's set wrong labels. Per edition and kind of photo, ``--photos``
calibration photos are drawn, their tiles seen once (:func:`vision.pipeline.see_tiles`), and paired
with the layout as the app and the CLI pair them (:func:`vision.calibration.samples_from`), once per
``--fit`` (how many boxes may be put back or left out to fit the layout; 0: the boxes kept as they
are, as before session 34). ``--phantoms``: each photo also with one box the gate dropped on no
tile kept as a tile (:func:`with_a_phantom`): synthetic photos hardly ever keep a non-tile, real
racks of other editions did (the rack's end read as a joker).

* ``table``: the default layout (four colours 1-13, then the jokers) on a table, 1600 x 1200
  (:func:`datasets.synth.rows.lay_out_rows`); ``table-phone``: the same at 4000 x 3000.
* ``rack``: a close-up of a rack (1-3 tiers filling a phone's frame), its tiers as the typed
  layout (the issue's ``r1 ... r9 | o1 ... o9 | b1 ... b9``); ``rack-ends``: the same with the
  rack's end caps in view. A close-up that cuts a tile at the frame's edge (:data:`WHOLE`) is drawn
  again (a player lays the whole layout in view).

Reported per row: photos refused, by reason (a row's count, the number of rows, one place found
twice), and of the photos taken, the tiles paired with a box that lies on a tile of another kind
(what a profile would learn wrong) or on no tile (IoU below 0.5 with every tile's box: a loose box,
or a patch of the table).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from datasets.synth.editions import CATALOGUE, Edition, edition
from datasets.synth.rows import lay_out_rows
from datasets.synth.scenes import Scene
from datasets.synth.writer import SceneRecipe
from vision.calibration import DEFAULT_LAYOUT, MAX_FIT, CalibrationError, CalibrationLayout, samples_from
from vision.detections import box_iou
from vision.pipeline import SeenTiles, see_tiles

__all__ = ["KINDS", "calibration_photo", "refusal_reason", "mispaired", "with_a_phantom", "study", "main"]

#: The kinds of calibration photo drawn (see the module).
KINDS = ("table", "table-phone", "rack", "rack-ends")
#: A paired box lies on a tile when its IoU with the tile's box is at least this.
ON_TILE = 0.5
#: A close-up is a calibration photo when every tile shows at least this share of itself (a player
#: lays the whole layout in view; a close-up often cuts the tiles at the ends of the rack).
WHOLE = 0.95
#: A box the gate dropped lies on no tile when its IoU with every tile's box is under this.
NO_TILE = 0.2


def calibration_photo(kind: str, chosen: Edition, rng: np.random.Generator) -> tuple[Scene, CalibrationLayout]:
    """A calibration photo of ``kind`` (:data:`KINDS`) of the edition ``chosen``, and its layout."""
    if kind in ("table", "table-phone"):
        width, height = (1600, 1200) if kind == "table" else (4000, 3000)
        scene = lay_out_rows([list(r) for r in DEFAULT_LAYOUT.rows], chosen, rng, width, height, table=None)
        return scene, DEFAULT_LAYOUT
    if kind not in KINDS:
        raise ValueError(f"no calibration photo of kind {kind!r}; one of {', '.join(KINDS)}")
    recipe = SceneRecipe(kinds=(("closeup", 1.0),), editions=(chosen.name,), rack_ends=float(kind == "rack-ends"))
    while True:
        scene = recipe.compose(rng)
        if not scene.hidden and min(t.visible for t in scene.tiles) >= WHOLE:  # every tile of the layout in view
            return scene, CalibrationLayout(tuple(tuple(scene.tiles[j].tile for j in tier) for tier in scene.melds))


def refusal_reason(error: CalibrationError) -> str:
    """Why a photo was refused, in a word: ``row count``, ``rows``, ``same place`` or ``other``."""
    if "same place" in error.message:
        return "same place"
    if "rows of tiles" in error.message:
        return "rows"
    if "do not match" in error.message:
        return "row count"
    return "other"


def mispaired(scene: Scene, boxes: np.ndarray, labels: Sequence[int]) -> tuple[int, int]:
    """Of the paired ``boxes`` (n, 4) with the layout's ``labels``: how many lie on a tile of another
    kind, and how many on no tile (IoU below :data:`ON_TILE` with every tile's box)."""
    if not len(boxes):
        return 0, 0
    truth = np.array([t.box for t in scene.tiles], np.float64).reshape(-1, 4)
    kinds = np.array([t.tile.index for t in scene.tiles])
    overlap = box_iou(np.asarray(boxes, np.float64).reshape(-1, 4), truth)
    best = overlap.argmax(axis=1)
    on_tile = overlap[np.arange(len(best)), best] >= ON_TILE
    return int((on_tile & (kinds[best] != np.asarray(labels))).sum()), int((~on_tile).sum())


@dataclass
class Tally:
    """One edition, kind, ``fit`` and phantom or none: photos, refusals by reason, tiles paired wrongly."""

    photos: int = 0
    refused: Counter = field(default_factory=Counter)
    taken_tiles: int = 0
    other_kind: int = 0  # tiles paired with a box on a tile of another kind
    on_no_tile: int = 0  # ... with a box on no tile

    def add(self, scene: Scene, seen: SeenTiles, layout: CalibrationLayout, fit: int) -> None:
        """One calibration photo, as :func:`vision.calibration.samples_from` takes it."""
        self.photos += 1
        try:
            samples = samples_from(seen, layout, fit).samples
        except CalibrationError as error:
            self.refused[refusal_reason(error)] += 1
            return
        self.taken_tiles += len(samples)
        other, none = mispaired(scene, np.array([s.box for s in samples]), [s.tile.index for s in samples])
        self.other_kind += other
        self.on_no_tile += none

    def as_dict(self) -> dict:
        return {"photos": self.photos, "refused": sum(self.refused.values()), "refused_by_reason": dict(self.refused),
                "tiles_taken": self.taken_tiles,
                "paired_with_another_kind": self.other_kind, "paired_with_no_tile": self.on_no_tile}


def with_a_phantom(scene: Scene, seen: SeenTiles) -> SeenTiles | None:
    """``seen`` with one box the gate dropped that lies on no tile kept as a tile - the one it came
    closest to keeping - standing in for a phantom tile of a real photo (the end of a rack read as
    a joker); ``None`` when the gate dropped no such box."""
    if not len(seen.dropped):
        return None
    tiles = np.array([t.box for t in scene.tiles], np.float64).reshape(-1, 4)
    on_no_tile = box_iou(seen.dropped.boxes, tiles).max(axis=1) < NO_TILE
    if not on_no_tile.any():
        return None
    scores = np.where(on_no_tile, seen.dropped.confidences * seen.dropped_reading.tile_prob, -1.0)
    mask = np.zeros(len(seen.dropped), bool)
    mask[int(np.argmax(scores))] = True
    return seen.keeping(mask)


def study(
    editions: Sequence[Edition], kinds: Sequence[str], photos: int, seed: int, fits: Sequence[int], phantoms: bool = False
) -> dict:
    """The tallies, by edition, kind, phantom or none and ``fit`` (see the module); each photo is seen once."""
    report: dict = {}
    for chosen in editions:
        for kind in kinds:
            rng = np.random.default_rng([seed, KINDS.index(kind)])
            tallies = {(phantom, fit): Tally() for phantom in ((False, True) if phantoms else (False,)) for fit in fits}
            for _ in range(photos):
                scene, layout = calibration_photo(kind, chosen, rng)
                seen = see_tiles(scene.image)
                haunted = with_a_phantom(scene, seen) if phantoms else None
                for (phantom, fit), tally in tallies.items():
                    if not phantom:
                        tally.add(scene, seen, layout, fit)
                    elif haunted is not None:
                        tally.add(scene, haunted, layout, fit)
            for (phantom, fit), tally in tallies.items():
                line = tally.as_dict()
                report.setdefault(chosen.name, {}).setdefault(kind + (" with a phantom" if phantom else ""), {})[str(fit)] = line
                print(f"{chosen.name} {kind}{' with a phantom' if phantom else ''} fit {fit}: refused {line['refused']} of "
                      f"{line['photos']} {line['refused_by_reason']}; of {line['tiles_taken']} tiles taken, paired with "
                      f"another kind {line['paired_with_another_kind']}, with no tile {line['paired_with_no_tile']}",
                      flush=True)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--editions", nargs="*", type=edition, default=[edition("selection-heavy")],
                        help=f"editions of the catalogue ({', '.join(e.name for e in CATALOGUE)}); default: the one kept for choosing")
    parser.add_argument("--photos", type=int, default=20, help="calibration photos per edition and kind")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", nargs="*", choices=KINDS, default=list(KINDS))
    parser.add_argument("--fit", nargs="*", type=int, default=[0, MAX_FIT],
                        help="how many boxes may be put back or left out to fit the layout (each is measured)")
    parser.add_argument("--phantoms", action="store_true",
                        help="also each photo with one box the gate dropped on no tile kept, as a phantom tile")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    report = study(args.editions, args.kinds, args.photos, args.seed, args.fit, args.phantoms)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
