"""The colour of a tile's ink against its own body, and the four inks of a player's set.

    ink_directions(crops) -> (n, 3)             each crop's ink: its CIELAB step away from the body
    body_colours(crops) -> (n, 3)               each crop's body in CIELAB
    InkModel.fit(directions, colours)            the four inks as a calibration photo showed them
    InkModel.of_samples(samples) -> model|None   the same from a profile's tiles (None: too few)
    shows_every_ink(tiles) -> bool              whether tiles are enough for that
    model.adapt(probs, directions) -> probs      the reader's probabilities, each colour weighed
    photo_inks(probs, directions) -> model|None  the inks of a photo's own sure tiles (None: too few)
    weigh_colours(probs, directions, inks)       the photo's own inks, then a profile's (each where known)

Why: colour is the reader's largest share of errors on a set it never saw (a teal or navy blue
read as black, a yellow-orange as red, for most tiles of that colour in a photo), and the
reader's own sense of colour was learnt on other sets' inks. A tile's ink is taken as a
direction, not a colour: the step in CIELAB from the tile's body (the brighter part of its face)
to its ink (the pixels furthest from the body), scaled to unit length. The light's cast moves
body and ink together, and a small or blurred tile mixes its ink with the body, which shortens
the step but hardly turns it; the direction is what stays a set's own from photo to photo. Each
colour's directions are fitted by a Gaussian (its covariance shrunk halfway to the colours'
pooled one, 13 tiles a colour being few), and the reader's probability of each numbered tile is
weighed by the likelihood of its colour, tempered by :data:`WEIGHT` and never below
:data:`FLOOR` of the likeliest colour's, so a tile whose ink is unclear keeps the reader's reading.

Whose inks: a photo's own tiles the reader is sure of show them (:func:`photo_inks`), when there
are enough of every colour, in the photo's own light; a player's calibration photo shows the set's
four inks for sure (a profile's, :attr:`vision.profiles.TileProfile.inks`). Both are heard, in that
order, each where known (:func:`weigh_colours`). One model of the inks fitted on every training
edition at once made reading worse (inks differ too much from set to set), which is why the inks
are always one set's. What the inks alone would change or make sure
stays unsure (:attr:`vision.pipeline.InkedDecoding.ink_doubt`).

Measured on the edition kept for choosing (``python -m training.evaluate_profiles --editions
selection-heavy --seed S --test-set T --skip-real --ink-settings ...``, and ``python -m
training.evaluate`` on the selection sets; ``models/reader.md``, "The set's inks").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from solver.tiles import NUM_COLOURS, NUM_KINDS, Colour, Tile

if TYPE_CHECKING:
    from vision.profiles import TileSample

__all__ = [
    "ink_directions", "body_colours", "shows_every_ink", "InkModel", "photo_inks", "weigh_colours", "INK_MARGIN",
    "INK_METHOD", "BODY_METHOD", "INNER", "BODY_PERCENTILE", "INK_SHARE", "WEIGHT", "FLOOR", "MIN_PER_COLOUR", "PHOTO_SURE",
]

#: Names the way an ink is read, so that directions cached under another way are not reused
#: (``training.evaluate --cache``).
INK_METHOD = "ink-direction-1"
#: The same for a tile's body (:func:`body_colours`).
BODY_METHOD = "body-1"
#: The margin (index into :data:`vision.reader.READ_PADS`) of the crop the ink is read from: the box
#: alone, with no margin (a test holds the two together; OpenCV is not imported here, so that
#: profiles load without it).
INK_MARGIN = 0
#: Share of the crop's side left out on each edge: the ink is looked for in the middle (the digit),
#: away from the tile's edges, the table beside a tilted tile and the grey beyond the box.
INNER = 0.3
#: The body is the median of the middle's pixels at least this bright (a percentile of lightness).
BODY_PERCENTILE = 70
#: The ink is the mean step of this share of the middle's pixels furthest from the body ...
INK_SHARE = 0.05
#: ... and of at least this many pixels.
MIN_INK_PIXELS = 6
#: The likelihood of a colour is heard to this power, and never lower than ``exp(-FLOOR)`` times the
#: likeliest colour's: chosen on the edition kept for choosing (``models/reader.md``).
WEIGHT = 0.15
FLOOR = 3.0
#: Inks are fitted (a profile's, a photo's) only from at least this many numbered tiles of every colour.
MIN_PER_COLOUR = 3
#: A photo's own tiles the reader is at least this sure of (a numbered tile) give the photo's inks,
#: when they hold :data:`MIN_PER_COLOUR` of every colour (:func:`photo_inks`).
#: Chosen among 0.8, 0.9 and 0.95 on the selection sets and the edition kept for choosing
#: (``models/reader.md``, "The set's inks"): the lowest took the most photos and put the most right.
PHOTO_SURE = 0.8
#: Of the covariance of each colour's directions, this share is the colours' pooled covariance.
SHRINK = 0.5
_RIDGE = 1e-4
#: Each numbered kind's colour (its position in :class:`Colour`), -1 for the joker.
_KIND_COLOUR = np.array([
    -1 if Tile.from_index(i).is_joker else list(Colour).index(Tile.from_index(i).colour) for i in range(NUM_KINDS)
])


def _middle_lab(crops: np.ndarray) -> np.ndarray:
    """(n, pixels, 3) CIELAB (L 0-100) of each crop's middle (:data:`INNER`); crops (n, s, s, 3) uint8 BGR."""
    import cv2

    crops = np.asarray(crops)
    if crops.ndim != 4 or crops.shape[-1] != 3 or crops.shape[1] != crops.shape[2]:
        raise ValueError(f"expected square BGR crops (n, s, s, 3), got shape {crops.shape}")
    n, side = crops.shape[:2]
    if n == 0:
        return np.zeros((0, 1, 3))
    cut = min(int(round(side * INNER)), (side - 1) // 2)  # a pixel at least is left
    middle = np.ascontiguousarray(crops[:, cut : side - cut, cut : side - cut])
    rows = middle.shape[1]
    lab = cv2.cvtColor(middle.reshape(n * rows, -1, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
    return lab.reshape(n, -1, 3).astype(np.float64)


def _body_of(lab: np.ndarray) -> np.ndarray:
    """(n, 3) the body of each crop's middle: the median of its pixels at least :data:`BODY_PERCENTILE` bright."""
    if not len(lab):
        return np.zeros((0, 3))
    lightness = lab[..., 0]
    bright = lightness >= np.percentile(lightness, BODY_PERCENTILE, axis=1, keepdims=True)
    return np.nanmedian(np.where(bright[..., None], lab, np.nan), axis=1)


def body_colours(crops: np.ndarray) -> np.ndarray:
    """(n, 3) CIELAB (L 0-100, a, b) of each crop's body, the brighter part of its middle; crops
    (n, s, s, 3) uint8 BGR. The body an ink is read against (:func:`ink_directions`), and what
    :mod:`vision.tile_likeness` holds against the photo's other tiles."""
    return _body_of(_middle_lab(crops))


def ink_directions(crops: np.ndarray) -> np.ndarray:
    """(n, 3) unit steps in CIELAB (L, a, b) from each crop's body to its ink; crops (n, s, s, 3) uint8 BGR."""
    lab = _middle_lab(crops)
    if not len(lab):
        return np.zeros((0, 3))
    step = lab - _body_of(lab)[:, None, :]
    distance = np.linalg.norm(step, axis=2)
    k = min(distance.shape[1], max(MIN_INK_PIXELS, int(INK_SHARE * distance.shape[1])))
    furthest = np.argpartition(-distance, k - 1, axis=1)[:, :k]
    ink = np.take_along_axis(step, furthest[..., None], axis=1).mean(axis=1)
    return ink / np.maximum(np.linalg.norm(ink, axis=1, keepdims=True), 1e-9)


def shows_every_ink(tiles: Iterable[Tile]) -> bool:
    """Whether ``tiles`` hold at least :data:`MIN_PER_COLOUR` numbered tiles of every colour: what a
    profile needs to learn its set's inks (a rack of three colours says nothing of the fourth, and a
    colour left out would draw its tiles to the others)."""
    colours = [_KIND_COLOUR[t.index] for t in tiles if not t.is_joker]
    return bool(np.bincount(np.array(colours, int), minlength=NUM_COLOURS).min() >= MIN_PER_COLOUR)


@dataclass(frozen=True, eq=False)
class InkModel:
    """A Gaussian per colour (in :class:`Colour`'s order) over the ink directions of one set."""

    means: np.ndarray  # (4, 3)
    covariances: np.ndarray  # (4, 3, 3)

    @classmethod
    def fit(cls, directions: np.ndarray, colours: Sequence[int]) -> "InkModel":
        """The inks of tiles whose ``directions`` (n, 3) and colours (positions in :class:`Colour`) are known."""
        directions = np.asarray(directions, np.float64)
        colours = np.asarray(colours, int)
        if directions.ndim != 2 or directions.shape[1] != 3 or len(directions) != len(colours):
            raise ValueError(f"{len(colours)} colours for ink directions of shape {directions.shape}")
        if colours.min(initial=0) < 0 or colours.max(initial=0) >= NUM_COLOURS:
            raise ValueError(f"a colour is a position in Colour (0-{NUM_COLOURS - 1}), got {sorted(set(colours.tolist()))}")
        counts = np.bincount(colours, minlength=NUM_COLOURS)
        if counts.min() < MIN_PER_COLOUR:
            raise ValueError(f"each colour needs {MIN_PER_COLOUR} tiles to fit its ink; these have {counts.tolist()}")
        means = np.stack([directions[colours == c].mean(axis=0) for c in range(NUM_COLOURS)])
        apart = directions - means[colours]
        ridge = _RIDGE * np.eye(3)
        pooled = np.cov(apart.T) + ridge
        covariances = np.stack([
            SHRINK * pooled + (1.0 - SHRINK) * np.cov(apart[colours == c].T) + ridge for c in range(NUM_COLOURS)
        ])
        return cls(means, covariances)

    @classmethod
    def of_samples(cls, samples: Sequence["TileSample"]) -> "InkModel | None":
        """The inks the numbered tiles of a profile's ``samples`` show (their crops at :data:`INK_MARGIN`),
        or None when they do not show every colour enough (:func:`shows_every_ink`)."""
        if not shows_every_ink(s.tile for s in samples):
            return None
        numbered = [s for s in samples if not s.tile.is_joker]
        colours = np.array([_KIND_COLOUR[s.tile.index] for s in numbered], int)
        return cls.fit(ink_directions(np.stack([s.crops[INK_MARGIN] for s in numbered])), colours)

    def log_likelihoods(self, directions: np.ndarray) -> np.ndarray:
        """(n, 4) each direction's log likelihood under each colour's Gaussian."""
        directions = np.asarray(directions, np.float64).reshape(-1, 3)
        out = np.empty((len(directions), NUM_COLOURS))
        for c, (mean, covariance) in enumerate(zip(self.means, self.covariances)):
            apart = directions - mean
            _, log_det = np.linalg.slogdet(covariance)
            out[:, c] = -0.5 * np.einsum("ni,ij,nj->n", apart, np.linalg.inv(covariance), apart) - 0.5 * log_det
        return out

    def adapt(self, probs: np.ndarray, directions: np.ndarray, weight: float = WEIGHT, floor: float = FLOOR) -> np.ndarray:
        """The reader's ``probs`` (n x 53) with each numbered kind weighed by its colour's likelihood
        (tempered by ``weight``, at least ``exp(-floor)`` of the likeliest colour's; the joker's as the
        colours' mean); each row keeps its sum."""
        probs = np.asarray(probs, np.float64)
        if probs.ndim != 2 or probs.shape[1] != NUM_KINDS or len(probs) != len(directions):
            raise ValueError(f"{len(directions)} ink directions for probabilities of shape {probs.shape}")
        if not len(probs):
            return probs
        heard = self.log_likelihoods(directions)
        heard = np.exp(np.maximum(weight * (heard - heard.max(axis=1, keepdims=True)), -floor))
        heard /= heard.mean(axis=1, keepdims=True)
        factor = np.ones_like(probs)
        numbered = _KIND_COLOUR >= 0
        factor[:, numbered] = heard[:, _KIND_COLOUR[numbered]]
        weighed = probs * factor
        total = weighed.sum(axis=1, keepdims=True)
        return np.where(total > 0, weighed / np.maximum(total, 1e-300) * probs.sum(axis=1, keepdims=True), probs)


def photo_inks(probs: np.ndarray, directions: np.ndarray, sure: float = PHOTO_SURE) -> InkModel | None:
    """The inks of one photo's own tiles (``probs`` n x 53, their ink ``directions`` n x 3) that the
    reader reads as a numbered tile with at least ``sure`` probability, or None when those do not
    show every colour :data:`MIN_PER_COLOUR` times. Where the reader takes a whole colour for
    another (every teal blue read as black), too few tiles of it are read surely and nothing is fitted."""
    probs = np.asarray(probs, np.float64)
    if not len(probs):
        return None
    labels = probs.argmax(axis=1)
    chosen = (probs.max(axis=1) >= sure) & (_KIND_COLOUR[labels] >= 0)
    if not shows_every_ink(Tile.from_index(int(i)) for i in labels[chosen]):
        return None
    return InkModel.fit(np.asarray(directions)[chosen], _KIND_COLOUR[labels[chosen]])


def weigh_colours(probs: np.ndarray, directions: np.ndarray, inks: InkModel | None = None) -> np.ndarray:
    """The reader's ``probs`` (n x 53) of one photo's tiles weighed by the photo's own inks
    (:func:`photo_inks`, where it has enough sure tiles), then by the inks of the player's set
    (``inks``: a profile's, where known); unchanged when neither is. ``directions``: the tiles'
    :func:`ink_directions`.

    Why both: the photo's inks are in the photo's own light, the profile's are known for sure (the
    calibration named every tile); on the edition kept for choosing, with a profile, the photo's
    inks then the profile's read 2,634 tiles right where the profile's alone read 2,620, the
    photo's alone (the profile's only where the photo has too few sure tiles) 2,634 with one wrong
    tile more shown as sure (``models/reader.md``, "The set's inks")."""
    weighed = np.asarray(probs, np.float64)
    for model in (photo_inks(probs, directions), inks):
        if model is not None:
            weighed = model.adapt(weighed, directions)
    return weighed
