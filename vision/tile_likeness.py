"""Whether a box looks like the other tiles of its photo: its body's colour and its size.

    TileLikeness(max_body_step, min_area_share)       the rule's two limits (off: inf and 0)
    likeness.unlike(bodies, areas, tile_prob) -> mask  the boxes unlike the photo's sure tiles

Why: the tiles of one photo are one set under one light, so their bodies (the brighter part of
the face, :func:`vision.ink_colour.body_colours`) share a colour, and perspective changes their
size by far less than it changes a distractor's. The reader judges a box alone: a patch of wood,
a coloured card or the end of a rack that shows something like a digit can read as a tile at 80 %
and more. Held against the photo's own tiles (those the reader is sure of, as
:func:`vision.pipeline.photo_relative_confidence` takes them), such a box stands out whatever the
set's body tone or the light's cast: both move every tile of the photo alike. Only the body's hue
and saturation are compared (CIELAB a*, b*), not its lightness: a tile in a shadow is darker than
its neighbours and no less a tile, so a grey key, which differs from ivory tiles mostly in
lightness, is left to the reader.

A box unlike the photo's tiles is left out as the gate leaves out a box that more likely shows no
tile (:func:`vision.pipeline.kept_as_tiles`); it is then offered to add, like every box left out
that may be a tile (:mod:`vision.left_out`). Where the photo has too few sure tiles to say what its
tiles look like, nothing is held against them.

The limits were chosen by the rule declared for settings against non-tiles
(:data:`training.testsets.NON_TILE_RULE`) on the sets kept for it (``models/reader.md``, session 45).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["TileLikeness", "LIKENESS", "NO_LIKENESS", "REFERENCE_TILE_PROB", "MIN_REFERENCE_TILES"]

#: The boxes that say what a photo's tiles look like: those the reader calls a tile at least this surely...
REFERENCE_TILE_PROB = 0.97
#: ... and only where there are this many of them (fewer say little about the photo).
MIN_REFERENCE_TILES = 5


@dataclass(frozen=True)
class TileLikeness:
    """How far a box may stand from the photo's sure tiles and still be read as a tile.

    ``max_body_step``: the largest distance in CIELAB a*, b* from its body to the median body of the
    photo's sure tiles; ``min_area_share``: the smallest share of their median box area.
    """

    max_body_step: float = math.inf
    min_area_share: float = 0.0

    def __post_init__(self) -> None:
        if not self.max_body_step > 0 or not 0 <= self.min_area_share < 1:
            raise ValueError(
                f"a body step above 0 and an area share in [0, 1) are needed, got {self.max_body_step}, {self.min_area_share}"
            )

    @property
    def is_off(self) -> bool:
        """Whether it holds nothing against any box (both limits off)."""
        return math.isinf(self.max_body_step) and self.min_area_share == 0.0

    def unlike(self, bodies: np.ndarray, areas: np.ndarray, tile_prob: np.ndarray) -> np.ndarray:
        """(n,) bool: the boxes whose body (``bodies``, (n, 3) CIELAB) or area stands too far from the
        photo's sure tiles' (P(tile) >= :data:`REFERENCE_TILE_PROB`); none where there are fewer than
        :data:`MIN_REFERENCE_TILES` of those, or the rule is off."""
        bodies = np.asarray(bodies, np.float64).reshape(-1, 3)
        areas, tile_prob = np.asarray(areas, np.float64), np.asarray(tile_prob, np.float64)
        if not len(bodies) == len(areas) == len(tile_prob):
            raise ValueError(f"{len(bodies)} bodies, {len(areas)} areas and {len(tile_prob)} tile probabilities")
        sure = tile_prob >= REFERENCE_TILE_PROB
        if self.is_off or sure.sum() < MIN_REFERENCE_TILES:
            return np.zeros(len(bodies), bool)
        body = np.median(bodies[sure, 1:], axis=0)
        step = np.linalg.norm(bodies[:, 1:] - body, axis=1)
        area = float(np.median(areas[sure]))
        return (step > self.max_body_step) | (areas < self.min_area_share * area)


#: No box held against the others (what every reading did before session 45).
NO_LIKENESS = TileLikeness()
#: The rule every reading applies: chosen among body steps of 20-40 and area shares of 0.25-0.4 by
#: :data:`training.testsets.NON_TILE_RULE` on the selection sets and the sets kept for it
#: (``models/reader.md``, session 45): weighed errors 634.8 -> 618.8, 4 of 13 non-tiles read as
#: tiles left out and no tile lost; 35 did as well, 25 and 0.35 cost tiles. The sure tiles' bodies
#: lie within 22 of their photo's median for 999 tiles in 1,000.
LIKENESS = TileLikeness(max_body_step=30.0, min_area_share=0.3)
