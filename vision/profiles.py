"""A tile-set profile: what the player's own tiles look like to the reader, and how that adapts it.

    TileSample(tile, crops, embedding, box)      one labelled tile of a calibration photo
    TileProfile.from_samples(name, samples, corrections)
                                                class means of the samples' embeddings; each
                                                correction also remembered as itself
    profile.adapt(probs, embeddings) -> probs   the reader's probabilities, adapted
    profile.looks_like_no_tile(embeddings)      boxes like one the player's set showed as no tile

How it adapts (chosen by measurement, ``python -m training.evaluate_profiles``; figures in
``models/reader.md``): nearest class mean on the reader's own embeddings, mixed with the
classifier where the profile recognises the tile. Embeddings are centred on the profile's centre
(the mean of its class means: what every tile of one set shares - plastic, light, font weight -
cancels, what tells one tile from another is left), scaled to unit length, and compared with each
class's mean by cosine. A softmax at temperature :data:`TEMPERATURE` over the classes the profile
has seen is the profile's opinion ``q``; how far it is heard depends on how close the tile comes
to its nearest class mean: not at all below a cosine of ``RECOGNISED[0]``, fully from
``RECOGNISED[1]``, linearly between (``s``). The result is ``(1 - WEIGHT * s) * p + WEIGHT * s * q``.

Why so: on photos of large upright tiles in styles the reader never saw, the class means alone
read 95-100 % of tiles right and the classifier 93-97 %, wrong in other places (a star joker read
as red 4 with certainty, black read as red), so the profile must be able to overrule a confident classifier (``WEIGHT`` above
one half). On the edition the reader was trained on, a mean made from one poor sample is
sometimes confidently wrong, but then the tile lies far from every mean (cosine 0.5-0.8 where a
right match gives 0.85-0.99), so the gate keeps the classifier's answer. On an edition no
model was trained on, a gate from 0.85 let the profile act too seldom (F1 0.949 against 0.961 from
0.75, ``models/reader.md``), so it opens from 0.75. A product of experts and
an ungated mix were measured too and lost on one side or the other; a linear head fitted on the
calibration tiles learnt almost nothing, since the classifier already reads most of them right.
On the held-out editions' photos of small, tilted or close-up tiles the profile changes almost
nothing: those tiles lie below the gate (``models/reader.md``).

**A correction is remembered as itself.** A tile the player fixed on the Play page joins its class
mean like a calibration tile, and is also kept as an exemplar: a tile's cosine to a class is the
higher of its cosine to the class mean and to each of that class's corrections. A class mean made
of a large upright calibration tile and one corrected tile lies between them, and the same tile in
the next photo of the same table (the usual case: the table is photographed again every turn)
came close to neither. A correction is heard only by near copies of it (cosine
:data:`REMEMBERED_FROM` or more): on photos of small tiles, a correction heard by every tile
pulled other classes' tiles towards it. Measured on the edition kept for choosing, by
photographing each table again after its misreads were corrected (``python -m
training.evaluate_profiles --retakes``, ``models/reader.md``; four runs): tiles of a corrected
class still read wrong on the retaken photos 44 with no correction, 21 with the corrections in the
class means only, 9 remembered; all tiles read wrong 141, 118, 103. Calibration tiles stay in the
means only: with two calibration photos, the mean of the two read 2 and 1 tiles more right than
the nearer of them on the same photos (seeds 0 and 2; an indication from a scratch script).

A profile also **vouches for boxes the gate dropped** (:meth:`TileProfile.vouches_for`): on a set
the detector never saw, its confidence on the player's own tiles often sits at 0.35-0.5, so the
gate (detector x reader's P(tile), :data:`vision.pipeline.MIN_TILE_PROB`) drops readable tiles. A
dropped box is kept when the reader is at least :data:`VOUCH_TILE_PROB` sure it shows a tile *and*
the profile recognises it (cosine :data:`VOUCH_RECOGNISED` or more to one of its class means); the
profile's cosine alone let through as many non-tiles as tiles (``models/reader.md``).

A profile also **knows its set's four inks** (:attr:`TileProfile.inks`, :mod:`vision.ink_colour`):
the colour of each calibration tile's ink against its own body, so that a navy blue the reader
takes for black reads as the player's blue. Fitted from the samples' crops whenever the profile is
made, so a profile saved before keeps working and gains them; none when the samples hold fewer
than three tiles of some colour.

A profile also **remembers what is no tile** (:attr:`TileProfile.not_tiles`): the end of a rack or
a knot in the table read as a tile is there in every photo of the player's table, session after
session. A box left out of a calibration photo as no tile of the layout
(:func:`vision.calibration.leaving_out`), or removed on the Play page with teaching on, is kept as
its embedding less the mean of its photo's boxes - unless it looks like a box kept beside it
(:func:`unlike_the_rest`) - and a box of a later photo that is a near copy of
one (:func:`near_copies`: the same comparison, photo-centred, and the same cosine
:data:`NO_TILE_FROM` as the session's memory of removed boxes, :mod:`vision.session_memory`) is
flagged, never dropped - from the first photo of every session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from solver.tiles import NUM_KINDS, Tile
from vision.ink_colour import InkModel

__all__ = [
    "TileSample", "NoTileSample", "TileProfile", "unit_rows", "photo_centred", "near_copies", "unlike_the_rest",
    "TEMPERATURE", "WEIGHT", "RECOGNISED", "VOUCH_TILE_PROB", "VOUCH_RECOGNISED", "REMEMBERED_FROM", "NO_TILE_FROM",
    "MIN_PHOTO_TILES",
]

#: Softmax temperature on the cosine similarities (cosines of one set's tiles lie close together).
TEMPERATURE = 0.05
#: The profile's share in the mix for a tile it recognises fully (0: the classifier alone).
WEIGHT = 0.7
#: Cosine to the nearest class mean from which the profile starts to be heard, and is fully heard
#: (chosen in session 15 on an edition no model was trained on and no test shows, ``python -m
#: training.evaluate_profiles --seed 0 --editions selection-heavy --test-set held-out-phone``: F1
#: 0.949 with (0.85, 0.95), 0.959 (0.8, 0.9), **0.961** (0.75, 0.9), 0.960 (0.7, 0.85), 0.959
#: (0.65, 0.8); the real validation split with profiles of the training edition unchanged, 1.000).
RECOGNISED = (0.75, 0.9)
#: The reader's P(tile) from which a box the gate dropped is kept on the profile's word (chosen on
#: ``python -m training.evaluate_profiles --seed 0``).
VOUCH_TILE_PROB = 0.97
#: The cosine to one of the profile's class means from which it vouches for a dropped box (the
#: gate's first setting, session 14; 0.75 was no better on the selection edition, session 15).
VOUCH_RECOGNISED = 0.85
#: A correction is heard only by a tile at least this close to it: a near copy of the tile corrected
#: (chosen in session 31 on the edition kept for choosing, ``python -m training.evaluate_profiles
#: --retakes --editions selection-heavy --seed S --test-set T --remembered-from 0 0.8 0.85 0.9 0.95``,
#: seeds 0 and 2, both test sets: tiles read wrong on the retaken photos, pooled, 107 from 0 and
#: from 0.8, 108 from 0.85, **103** from 0.9, 110 from 0.95; corrections in the class means only 118,
#: no correction 141).
REMEMBERED_FROM = 0.9
#: A photo with fewer tiles says too little about its own light to be its centre (two tiles less
#: their mean are each other's mirror image): nothing changed or removed on it is remembered, and no
#: box of it is compared as a near copy (:func:`near_copies`).
MIN_PHOTO_TILES = 5
#: The cosine (photo-centred, :func:`near_copies`) from which a box is a near copy of one that is no
#: tile: one the player removed this session (:mod:`vision.session_memory`) or one the profile holds
#: (:meth:`TileProfile.looks_like_no_tile`). Chosen in session 33 on the edition kept for choosing,
#: tables with rack ends and distractors photographed again (``python -m training.evaluate_profiles
#: --removals --editions selection-heavy --seed S --test-set T --removed-from 0.75 0.8 0.85 0.9 0.95``;
#: seeds 0 and 2 at phone resolution and small, 3 and 4 small; 12 photos each): of 88 non-tiles on
#: the retaken photos (some new to them) 70, 69, **62**, 52, 37 flagged; of 2,013 real tiles 6, 2,
#: **0**, 0, 0. Lower than a change's :data:`REMEMBERED_FROM`, since a flag costs a look, not a reading.
NO_TILE_FROM = 0.85


@dataclass(frozen=True, eq=False)
class TileSample:
    """One tile of the player's set, as a calibration photo (or a correction) showed it."""

    tile: Tile
    #: (margins, s, s, 3) uint8 BGR: the crops exactly as the reader read them (vision.reader.crop_views).
    crops: np.ndarray
    #: (d,) the reader's embedding of those crops (averaged like a reading's).
    embedding: np.ndarray
    #: Where the tile was in its photo (x1, y1, x2, y2), for showing it; () when unknown.
    box: tuple[float, ...] = ()
    #: (53,) the reader's probabilities of the tile in its photo, as decoding saw them (a photo's
    #: tiles follow a colour change by them, :mod:`vision.colour_follow`); None where not kept
    #: (a profile's samples).
    probs: np.ndarray | None = None
    #: The reader's probability that the box shows a tile at all (its ``not-tile`` class), as
    #: decoding saw it; 1.0 where not kept. With ``probs``, what decoding a photo's tiles together
    #: with another photo's needs (:func:`vision.pipeline.decode_together`).
    tile_prob: float = 1.0


@dataclass(frozen=True, eq=False)
class NoTileSample:
    """A box the player's set showed that is no tile (the end of their rack read as a joker): left
    out of a calibration photo, or removed on the Play page with teaching on."""

    #: (margins, s, s, 3) uint8 BGR: the crops exactly as the reader read them.
    crops: np.ndarray
    #: (d,) the reader's embedding of those crops.
    embedding: np.ndarray
    #: (d,) the mean embedding of every box read on its photo (this one too): its photo's centre.
    photo_mean: np.ndarray
    #: Where the box was in its photo (x1, y1, x2, y2); () when unknown.
    box: tuple[float, ...] = ()


def unit_rows(rows: np.ndarray) -> np.ndarray:
    """Each row scaled to unit length (a row of zeros stays zero): what a cosine compares."""
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-12)


def photo_centred(embeddings: np.ndarray) -> np.ndarray:
    """One photo's embeddings (n, d) less their mean: what the photo's tiles share (light, plastic,
    font weight) cancels, so a box compares with a box of another photo by what tells it apart."""
    embeddings = np.asarray(embeddings, np.float64)
    return embeddings - embeddings.mean(axis=0)


def unlike_the_rest(embeddings: np.ndarray, chosen: Sequence[int], threshold: float = NO_TILE_FROM) -> list[int]:
    """Of the boxes ``chosen`` (rows of one photo's ``embeddings``, n x d; the boxes the player took
    for no tiles), those whose photo-centred cosine to every other box of the photo is below
    ``threshold``; none of a photo of fewer than :data:`MIN_PHOTO_TILES` boxes.

    Why: a box taken for no tile that looks like a tile kept beside it would flag that tile in every
    later photo. On the held-out editions' small tables a first version without this kept as no
    tiles seven boxes the gate had dropped that looked like the photo's small tiles, and six real
    tiles of the retaken photo were flagged (``models/reader.md``).
    """
    embeddings = np.asarray(embeddings, np.float64)
    chosen = [int(i) for i in chosen]
    rest = np.setdiff1d(np.arange(len(embeddings)), chosen)
    if len(embeddings) < MIN_PHOTO_TILES or not chosen:
        return []
    if not len(rest):
        return chosen
    unit = unit_rows(photo_centred(embeddings))
    nearest = (unit[chosen] @ unit[rest].T).max(axis=1)
    return [i for i, cosine in zip(chosen, nearest) if cosine < threshold]


def near_copies(
    embeddings: np.ndarray, remembered: np.ndarray, threshold: float, rivals: np.ndarray | None = None
) -> np.ndarray:
    """(n,) bool per box of one photo (``embeddings``, n x d): its photo-centred unit embedding is at
    cosine ``threshold`` or more to one of ``remembered`` (r x d, photo-centred unit rows), and
    nearer to it than to every row of ``rivals``. None of a photo of fewer than :data:`MIN_PHOTO_TILES`.

    Why photo-centred: a profile's centre comes from its calibration photo, in other light; a box of
    a photo taken later compared on that centre shares the later photo's light with every tile of
    that photo, so a box held as no tile from that table came closer to the photo's real tiles than
    their own class means did (``models/reader.md``).
    """
    embeddings = np.asarray(embeddings, np.float64)
    if not len(remembered) or len(embeddings) < MIN_PHOTO_TILES:
        return np.zeros(len(embeddings), bool)
    if embeddings.ndim != 2 or embeddings.shape[1] != remembered.shape[1]:
        raise ValueError(
            f"embeddings of shape {embeddings.shape} do not fit boxes of dimension {remembered.shape[1]}: "
            "were they made with another reader?"
        )
    unit = unit_rows(photo_centred(embeddings))
    to_remembered = (unit @ remembered.T).max(axis=1)
    to_rivals = (unit @ rivals.T).max(axis=1) if rivals is not None and len(rivals) else np.full(len(unit), -np.inf)
    return (to_remembered >= threshold) & (to_remembered > to_rivals)


@dataclass(frozen=True, eq=False)
class TileProfile:
    """The class means a profile's samples give; ``seen`` marks the classes it holds."""

    name: str
    centre: np.ndarray  # (d,) mean embedding of the samples
    means: np.ndarray  # (53, d) unit class means of the centred, unit embeddings (0 where unseen)
    seen: np.ndarray  # (53,) bool
    counts: np.ndarray = field(default_factory=lambda: np.zeros(NUM_KINDS, int))  # samples per class
    #: (m, d) the corrections' centred unit embeddings, each compared with a tile on its own (see the module).
    exemplars: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    exemplar_labels: np.ndarray = field(default_factory=lambda: np.zeros(0, int))  # (m,) their classes
    remembered_from: float = REMEMBERED_FROM  # the cosine from which a correction is heard
    #: (r, d) the boxes the player's set showed that are no tiles (left out of a calibration photo, or
    #: removed on the Play page with teaching on), each less its photo's mean, unit: a near copy is
    #: flagged (:meth:`looks_like_no_tile`).
    not_tiles: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    no_tile_from: float = NO_TILE_FROM  # the cosine from which a box is a near copy of one
    #: The four inks of the player's set (:mod:`vision.ink_colour`), or None where the samples show
    #: too few tiles of a colour.
    inks: InkModel | None = None

    @classmethod
    def from_samples(
        cls, name: str, samples: Sequence[TileSample], corrections: Sequence[TileSample] = (),
        not_tiles: Sequence[NoTileSample] = (),
    ) -> "TileProfile":
        """The profile of calibration ``samples`` and the player's ``corrections``: both make the
        class means; the corrections are also remembered one by one. The boxes ``not_tiles`` are
        remembered as no tiles, each less its photo's mean."""
        every = [*samples, *corrections]
        if not every:
            raise ValueError("a profile needs at least one sample")
        embeddings = np.stack([np.asarray(s.embedding, np.float64) for s in every])
        labels = np.array([s.tile.index for s in every])
        counts = np.bincount(labels, minlength=NUM_KINDS)
        seen = counts > 0
        raw_means = np.zeros((NUM_KINDS, embeddings.shape[1]))
        np.add.at(raw_means, labels, embeddings)
        centre = (raw_means[seen] / counts[seen, None]).mean(axis=0)  # each class counts once
        means = np.zeros_like(raw_means)
        np.add.at(means, labels, unit_rows(embeddings - centre))
        means[seen] = unit_rows(means[seen])
        remembered = slice(len(samples), len(every))
        no_tiles = np.zeros((0, embeddings.shape[1]))
        if not_tiles:
            no_tiles = np.stack([np.asarray(b.embedding, np.float64) - b.photo_mean for b in not_tiles])
            if no_tiles.shape[1] != embeddings.shape[1]:
                raise ValueError(
                    f"boxes that are no tiles of dimension {no_tiles.shape[1]} for tiles of {embeddings.shape[1]}"
                )
        return cls(
            name, centre, means, seen, counts, unit_rows(embeddings[remembered] - centre), labels[remembered],
            not_tiles=unit_rows(no_tiles), inks=InkModel.of_samples(every),
        )

    @property
    def size(self) -> int:
        return int(self.counts.sum())

    def cosines(self, embeddings: np.ndarray) -> np.ndarray:
        """(n, classes seen) how close each centred embedding comes to each class the profile holds:
        its cosine to the class mean, or to one of the class's corrections where that is higher."""
        embeddings = np.asarray(embeddings, np.float64)
        if embeddings.ndim != 2 or embeddings.shape[1] != self.means.shape[1]:
            raise ValueError(
                f"embeddings of shape {embeddings.shape} do not fit this profile (dimension {self.means.shape[1]}): "
                "was it made with another reader?"
            )
        unit = unit_rows(embeddings - self.centre)
        cosine = unit @ self.means[self.seen].T
        if len(self.exemplar_labels):
            column = np.cumsum(self.seen) - 1  # class -> its column among the classes seen
            to_exemplars = unit @ self.exemplars.T
            to_exemplars[to_exemplars < self.remembered_from] = -1.0
            for label in np.unique(self.exemplar_labels):
                best = to_exemplars[:, self.exemplar_labels == label].max(axis=1)
                cosine[:, column[label]] = np.maximum(cosine[:, column[label]], best)
        return cosine

    def nearest_cosine(self, embeddings: np.ndarray) -> np.ndarray:
        """(n,) how close each embedding comes to the profile's nearest class (:meth:`cosines`; what the gate
        of :meth:`adapt` looks at)."""
        if len(embeddings) == 0:
            return np.zeros(0)
        return self.cosines(embeddings).max(axis=1)

    def looks_like_no_tile(self, embeddings: np.ndarray) -> np.ndarray:
        """(n,) bool per box of one photo: a near copy (:func:`near_copies`, cosine :attr:`no_tile_from`
        or more) of a box the player's set showed as no tile. Flagged for the player to check, never
        dropped, as a box like one removed this session is
        (:meth:`vision.session_memory.SessionMemory.looks_removed`)."""
        return near_copies(embeddings, self.not_tiles, self.no_tile_from)

    def vouches_for(self, tile_prob: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        """Mask of the boxes (dropped by the gate) this profile keeps as tiles: the reader at least
        :data:`VOUCH_TILE_PROB` sure of a tile, and the crop recognised as one of the player's tiles."""
        tile_prob = np.asarray(tile_prob, np.float64)
        if len(tile_prob) != len(embeddings):
            raise ValueError(f"{len(embeddings)} embeddings for {len(tile_prob)} boxes")
        if not len(tile_prob):
            return np.zeros(0, bool)
        return (tile_prob >= VOUCH_TILE_PROB) & (self.nearest_cosine(embeddings) >= VOUCH_RECOGNISED)

    def adapt(self, probs: np.ndarray, embeddings: np.ndarray, weight: float = WEIGHT) -> np.ndarray:
        """The classifier's ``probs`` (n x 53) with this profile's view of ``embeddings`` (n x d) mixed
        in, ``weight`` of it where the profile recognises a tile fully."""
        probs = np.asarray(probs, np.float64)
        if len(probs) == 0:
            return probs
        if len(embeddings) != len(probs):
            raise ValueError(f"{len(embeddings)} embeddings for {len(probs)} tiles")
        q, nearest = self.opinion(embeddings)
        low, high = RECOGNISED
        heard = weight * np.clip((nearest - low) / (high - low), 0.0, 1.0)
        return (1.0 - heard) * probs + heard * q

    def opinion(self, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What the profile alone says of each tile: (n, 53) ``q``, the softmax at :data:`TEMPERATURE`
        over the classes it holds of :meth:`cosines`, and (n, 1) the cosine to the nearest class."""
        cosine = self.cosines(embeddings)
        nearest = cosine.max(axis=1, keepdims=True)
        q = np.zeros((len(cosine), NUM_KINDS))
        q[:, self.seen] = np.exp((cosine - nearest) / TEMPERATURE)
        return q / q.sum(axis=1, keepdims=True), nearest
