"""Write synthetic scenes to disk as a YOLO dataset (one class, ``tile``) plus per-tile identities.

Layout of ``out``::

    images/synth_000123.jpg
    labels/synth_000123.txt        # YOLO boxes, class 0 = tile       (stage 1, the detector)
    labels_tiles/synth_000123.txt  # YOLO boxes, 53 classes in the real set's data.yaml order
    meta/synth_000123.json         # kind, melds, and per tile: name, class, corners, box, visible
    data.yaml                      # ultralytics dataset file for the one-class detector

Image ``i`` is drawn from ``numpy.random.default_rng([seed, i])``, so any subset of a dataset can
be regenerated exactly, whatever the number of worker processes.

A :class:`SceneRecipe` says which scene kinds, editions and distractors the photos show
(:data:`RECIPES`: ``default`` is the original mix of tables and racks of assorted tiles;
``generalised`` adds close-up racks, grids, every training edition and distractors; ``phone`` draws
those at a phone's 12 MP). A recipe
that names a held-out edition is refused unless the caller builds a test set (``allow_held_out``).
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.editions import NEVER_TRAINED, TRAINING_EDITIONS, edition
from datasets.synth.scenes import REAL_CLASS_NAMES, Scene, compose_scene, real_class_index
from datasets.synth.wide_fonts import with_wide_fonts

__all__ = ["write_dataset", "write_scene", "scene_name", "SceneRecipe", "RECIPES", "HeldOutEditionError"]


class HeldOutEditionError(ValueError):
    """A training set was asked to show an edition kept out of all training."""


@dataclass(frozen=True)
class SceneRecipe:
    """What the photos of a dataset show. Empty ``kinds`` leaves the choice to ``compose_scene``."""

    kinds: tuple[tuple[str, float], ...] = ()
    editions: tuple[str, ...] = ("assorted",)
    distractors: tuple[int, int] = (0, 0)  # inclusive range per photo
    #: (width, height) of close-up photos: a phone's 16:9 frame, landscape or portrait.
    closeup_sizes: tuple[tuple[int, int], ...] = ((1280, 720), (1280, 720), (720, 1280))
    #: (width, height) of the other photos, one drawn per photo; empty: the generator's own sizes.
    photo_sizes: tuple[tuple[int, int], ...] = ()
    #: A table's tile height as a share of the photo's longer side, drawn log-uniformly in this
    #: range (as a phone photo of a table shows them); None: the generator's 20-150 px.
    table_tile_share: tuple[float, float] | None = None
    #: The chance that a rack or close-up shows the rack's end caps beside its tiers (0: never, and
    #: nothing is drawn for it, so the recipes without it keep their scenes).
    rack_ends: float = 0.0
    #: The chance that a photo's tiles draw their digits in the wide training font pool
    #: (:mod:`datasets.synth.wide_fonts`) instead of their edition's own fonts; 0: never, and no
    #: draw is made for it, so the recipes without it keep their scenes.
    wide_fonts: float = 0.0
    #: Every photo's tiles from one set (two of each, two jokers), as a photo of one game shows
    #: them; False: each tile drawn at random, so a photo may show a tile three times.
    one_set: bool = False

    def uses_held_out(self) -> bool:
        """Whether it shows an edition kept out of all training (held out, or a sibling game's tiles)."""
        return any(name in NEVER_TRAINED for name in self.editions)

    def compose(self, rng: np.random.Generator, width: int | None = None, height: int | None = None) -> Scene:
        if self == RECIPES["default"]:
            return compose_scene(rng, width, height)  # the original generator, pixel for pixel
        kinds = [k for k, _ in self.kinds]
        kind = kinds[int(rng.choice(len(kinds), p=[w for _, w in self.kinds]))] if kinds else None
        if kind == "closeup" and width is None:
            width, height = self.closeup_sizes[int(rng.integers(0, len(self.closeup_sizes)))]
        low, high = self.distractors
        distractors = int(rng.integers(low, high + 1))
        # drawn only by recipes that set them, after the draws above: other recipes keep their scenes
        if self.photo_sizes and width is None:
            width, height = self.photo_sizes[int(rng.integers(0, len(self.photo_sizes)))]
        editions = tuple(edition(n) for n in self.editions)
        if self.wide_fonts and rng.random() < self.wide_fonts:
            editions = tuple(with_wide_fonts(e) for e in editions)
        tile_px = None
        if self.table_tile_share is not None:
            share = float(np.exp(rng.uniform(*np.log(self.table_tile_share))))
            if width is not None and height is not None:
                tile_px = share * max(width, height)
        return compose_scene(
            rng, width, height, kind, editions, distractors, tile_px=tile_px,
            rack_ends=self.rack_ends, one_set=self.one_set,
        )


RECIPES: dict[str, SceneRecipe] = {
    "default": SceneRecipe(),
    "generalised": SceneRecipe(
        kinds=(("table", 0.35), ("rack", 0.15), ("closeup", 0.35), ("grid", 0.15)),
        editions=tuple(e.name for e in TRAINING_EDITIONS),
        distractors=(0, 4),
    ),
}
#: ``generalised`` with half the photos' digits in the wide font pool (the detector's stage 5): the
#: detector's doubt on fonts it never saw is what drops most readable tiles of unseen editions.
RECIPES["generalised-wide-fonts"] = replace(RECIPES["generalised"], wide_fonts=0.5)
#: Photos as a phone sends them: 12 MP (close-ups 16:9, 9 MP), a table's tiles 1/40 to 1/15 of the
#: longer side (issue 15's range for tables; racks, close-ups and grids size their tiles by the
#: frame); the training editions. The phone test sets draw it with their own editions.
RECIPES["phone"] = SceneRecipe(
    kinds=(("table", 0.35), ("rack", 0.15), ("closeup", 0.3), ("grid", 0.2)),
    editions=tuple(e.name for e in TRAINING_EDITIONS), distractors=(0, 2),
    closeup_sizes=((4000, 2250), (4000, 2250), (2250, 4000)), photo_sizes=((4000, 3000), (3000, 4000)),
    table_tile_share=(1 / 40, 1 / 15),
)


def scene_name(index: int) -> str:
    return f"synth_{index:06d}"


def yolo_line(cls: int, box: tuple[float, float, float, float], width: int, height: int) -> str:
    """One YOLO label line: the class, then the box's centre and size as shares of the image's."""
    x1, y1, x2, y2 = box
    return f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} {(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}"


def write_scene(scene: Scene, out: Path, name: str, jpeg_quality: int) -> None:
    """Save one scene's image and its three label files under ``out``."""
    height, width = scene.image.shape[:2]
    ok, encoded = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes a BGR uint8 array
        raise RuntimeError(f"could not encode {name} as JPEG")
    (out / "images" / f"{name}.jpg").write_bytes(encoded.tobytes())
    boxes = [yolo_line(0, t.box, width, height) for t in scene.tiles]
    (out / "labels" / f"{name}.txt").write_text("\n".join(boxes) + ("\n" if boxes else ""))
    tiles = [yolo_line(real_class_index(t.tile), t.box, width, height) for t in scene.tiles]
    (out / "labels_tiles" / f"{name}.txt").write_text("\n".join(tiles) + ("\n" if tiles else ""))
    meta = {
        "image": f"images/{name}.jpg",
        "width": width,
        "height": height,
        "kind": scene.kind,
        "edition": scene.edition,
        "distractors": [[round(v, 2) for v in box] for box in scene.distractors],
        "hidden": [[round(v, 2) for v in box] for box in scene.hidden],
        "melds": [list(m) for m in scene.melds],
        "tiles": [
            {
                "name": t.tile.name,
                "index": t.tile.index,
                "real_class": real_class_index(t.tile),
                "corners": np.round(t.corners, 2).tolist(),
                "box": [round(v, 2) for v in t.box],
                "visible": round(t.visible, 3),
                "number_visible": round(t.number_visible, 3),
            }
            for t in scene.tiles
        ],
    }
    (out / "meta" / f"{name}.json").write_text(json.dumps(meta))


def _make(args: tuple[Path, int, int, SceneRecipe]) -> int:
    out, seed, index, recipe = args
    rng = np.random.default_rng([seed, index])
    scene = recipe.compose(rng)
    write_scene(scene, out, scene_name(index), int(rng.integers(35, 96)))
    return len(scene.tiles)


def write_dataset(
    out: Path,
    count: int,
    seed: int,
    workers: int = 1,
    start: int = 0,
    progress: bool = True,
    recipe: SceneRecipe = RECIPES["default"],
    allow_held_out: bool = False,
) -> int:
    """Write images ``start .. start+count-1`` as ``recipe`` says; return the number of labelled tiles."""
    if count < 0 or start < 0:
        raise ValueError("count and start must not be negative")
    if recipe.uses_held_out() and not allow_held_out:
        raise HeldOutEditionError(f"editions {sorted(NEVER_TRAINED & set(recipe.editions))} are held out of all training")
    out = Path(out)
    for sub in ("images", "labels", "labels_tiles", "meta"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    (out / "data.yaml").write_text(
        "# Synthetic Rummikub photos (datasets/synth). One class for the tile detector;\n"
        "# labels_tiles/ holds the same boxes with the real set's 53 classes:\n"
        f"# {', '.join(REAL_CLASS_NAMES)}\n"
        f"path: {out.resolve()}\ntrain: images\nval: images\nnc: 1\nnames: ['tile']\n"
    )
    jobs = [(out, seed, i, recipe) for i in range(start, start + count)]
    total = 0
    if workers <= 1:
        results = map(_make, jobs)
        pool = None
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        results = pool.map(_make, jobs, chunksize=4)
    try:
        for done, n_tiles in enumerate(results, 1):
            total += n_tiles
            if progress and (done % 50 == 0 or done == count):
                print(f"{done}/{count} images, {total} tiles", flush=True)
    finally:
        if pool is not None:
            pool.shutdown()
    return total
