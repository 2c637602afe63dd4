"""The tiles a player changed or removed this session, remembered so that a later photo reads them as the player left them.

    memory = SessionMemory().remembering(photo_embeddings, [(index, Tile)], removed=[index])
    memory.adapt(probs, embeddings) -> probs        a later photo's probabilities, adapted
    memory.looks_removed(embeddings) -> mask        a later photo's boxes like one the player removed
    memory.keeps(kept, dropped) -> mask             dropped boxes like a tile the player set: kept

Why: players photograph the table every turn, so a tile the reader got wrong and the player fixed
with *Change* is usually in the next photo too, and was read wrong again. A tile profile
(:mod:`vision.profiles`) remembers corrections only for a player who made one and switched
teaching on; this memory needs neither, and is forgotten with the session.

How: each changed tile's embedding is taken less the mean embedding of the photo it was on (what
the photo's tiles share - light, plastic, font weight - cancels, as a profile's centre does; a
photo is its own centre since there is no calibration), scaled to unit length, and kept as an
exemplar of the tile the player set (:attr:`vision.profiles.TileProfile.exemplars`). A tile of a
later photo, centred on its own photo's mean, hears an exemplar only when it is a near copy of it
(cosine :data:`vision.profiles.REMEMBERED_FROM` or more) and then reads as a profile would
(:meth:`vision.profiles.TileProfile.adapt`, the same gate and mix); any other tile reads as before.

Measured by photographing each table again after its misreads were corrected (``python -m
training.evaluate_profiles --retakes``, ``models/reader.md``, "Every change remembered for the
session"): on the edition kept for choosing (seeds 0, 2, 3, 4, then 5 and 6; phone and small
photos) tiles read wrong on the retaken photos fell from 424 to 262 without a profile (shown as
sure 80 -> 44), and from 257 to 248 beside a profile taught the same corrections, so every change
is remembered, profile or none. A remembered tile the classifier still reads otherwise is read as
the player set it, flagged (the mix gives it about 0.7).

**A box the player removed is remembered as no tile.** A phantom tile (the end of a rack, a knot
in the wood, a key of a keyboard beside the table) is there again in every photo of the same
table, and read as a tile again, at times surely. A box the player removes is kept as its
photo-centred unit embedding, and a box of a later photo that is a near copy of one (cosine
:data:`REMOVED_FROM` or more, and nearer to it than to every changed tile) is flagged with a note that says why; it is
never dropped, since the player may have removed a real tile that was not theirs (a dropped tile
is lost without a word). A removed box lying on a box that stays (:func:`lying_apart`) is the
detector's second box on one tile and is not remembered. Measured by photographing a table
again: ``python -m training.evaluate_profiles --removals`` (``models/reader.md``, "A removed box
is remembered as no tile").

**A tile the player set is kept when the gate drops it again.** On a set the models never saw,
the gate (:func:`vision.pipeline.kept_as_tiles`) drops some of the player's tiles, and the same
tiles again in the next photo of the table. A tile the player added from a box the camera left
out (:mod:`vision.left_out`) is remembered as a changed tile is, and a dropped box of a later
photo that is a near copy of any tile the player set (:meth:`keeps`, the same comparison as
:meth:`heard`) is kept and read as the player set it (``python -m training.evaluate_profiles
--left-out``, ``models/reader.md``, session 43).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from solver.tiles import NUM_KINDS, Tile
from vision.detections import box_overlap
from vision.profiles import (
    MIN_PHOTO_TILES, NO_TILE_FROM, REMEMBERED_FROM, WEIGHT, TileProfile, near_copies, photo_centred, unit_rows,
)

__all__ = ["SessionMemory", "MIN_PHOTO_TILES", "MAX_REMEMBERED", "REMOVED_FROM", "lying_apart"]

#: A removed box overlapping a box that stays by this share of the smaller of the two is the
#: detector's second box on that tile (:func:`lying_apart`).
SAME_TILE_OVERLAP = 0.5
#: The cosine (photo-centred) from which a box is a near copy of one the player removed: the same as
#: for a box a tile profile holds as no tile (:data:`vision.profiles.NO_TILE_FROM`, where how it was
#: chosen is told).
REMOVED_FROM = NO_TILE_FROM
#: Changes remembered at most; the oldest is forgotten first (a session of a whole evening's games).
MAX_REMEMBERED = 200


def lying_apart(boxes: np.ndarray, removed: Sequence[int]) -> list[int]:
    """The ``removed`` boxes (indices into ``boxes``, (n, 4) x1 y1 x2 y2 of one photo) that do not lie
    for the most part on a box that stays: half of the smaller of the two or more overlapping
    (:func:`vision.detections.box_overlap`) is a second box on one tile (the detector's double),
    which says nothing about what is no tile."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    stays = np.setdiff1d(np.arange(len(boxes)), list(removed))
    if not len(stays):
        return list(removed)
    on_a_tile = box_overlap(boxes[list(removed)], boxes[stays]).max(axis=1) >= SAME_TILE_OVERLAP
    return [index for index, lies_on in zip(removed, on_a_tile) if not lies_on]


@dataclass(frozen=True, eq=False)
class SessionMemory:
    """The changed tiles, each as its photo-centred unit embedding and the tile the player set, and
    the boxes the player removed as no tiles, each as its photo-centred unit embedding."""

    exemplars: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (m, d)
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, int))  # (m,) tile indices
    #: The memory's share in the mix for a near copy (:meth:`vision.profiles.TileProfile.adapt`): the
    #: profile's :data:`vision.profiles.WEIGHT`. A heavier memory would unflag the remembered tiles but
    #: show more wrong tiles as sure: on the edition kept for choosing (``--retakes --memory-weights``,
    #: twelve runs, no profile) wrong and shown as sure 44 at 0.7 and 0.8, 58 at 0.9, 66 at 0.95;
    #: right tiles flagged 926, 913, 805, 781; tiles read wrong 262, 260, 259, 264.
    weight: float = WEIGHT
    #: (r, d) the boxes the player removed (*Remove*: no tile there), photo-centred and unit: a near
    #: copy in a later photo is flagged, never dropped (:meth:`looks_removed`).
    not_tiles: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    #: The cosine from which a box is a near copy of a removed one (:meth:`looks_removed`).
    removed_from: float = REMOVED_FROM

    def __len__(self) -> int:
        return self.changed_count + self.removed_count

    @property
    def changed_count(self) -> int:
        return len(self.labels)

    @property
    def removed_count(self) -> int:
        return len(self.not_tiles)

    def _dimension(self) -> int | None:
        held = self.exemplars if self.changed_count else self.not_tiles if self.removed_count else None
        return None if held is None else held.shape[1]

    def remembering(
        self, photo_embeddings: np.ndarray, changed: Sequence[tuple[int, Tile]], removed: Sequence[int] = ()
    ) -> "SessionMemory":
        """This memory with the tiles ``changed`` on one photo added: (the tile's row in
        ``photo_embeddings``, the tile the player set), and the boxes ``removed`` from it (their rows)
        as no tiles. ``photo_embeddings`` (n, d) are every tile read on that photo. A tile changed or
        removed again is remembered as the player left it last; a photo of fewer than
        :data:`MIN_PHOTO_TILES` tiles adds nothing."""
        embeddings = np.asarray(photo_embeddings, np.float64)
        if embeddings.ndim != 2:
            raise ValueError(f"a photo's embeddings must be (tiles, dimension), not {embeddings.shape}")
        dimension = self._dimension()
        if dimension is not None and embeddings.shape[1] != dimension:
            raise ValueError(f"embeddings of dimension {embeddings.shape[1]} do not fit this memory ({dimension})")
        if len(embeddings) < MIN_PHOTO_TILES or not (changed or removed):
            return self
        for index in [i for i, _ in changed] + list(removed):
            if not 0 <= index < len(embeddings):
                raise ValueError(f"tile {index} is not on a photo of {len(embeddings)} tiles")
        centred = unit_rows(photo_centred(embeddings))
        exemplars, labels = list(self.exemplars[: self.changed_count]), [int(label) for label in self.labels]
        not_tiles = list(self.not_tiles[: self.removed_count])

        def forget(new: np.ndarray) -> None:  # the same tile left otherwise before: the last word counts
            for k in [k for k, old in enumerate(exemplars) if np.array_equal(old, new)][::-1]:
                del exemplars[k], labels[k]
            for k in [k for k, old in enumerate(not_tiles) if np.array_equal(old, new)][::-1]:
                del not_tiles[k]

        for index, tile in changed:
            forget(centred[index])
            exemplars.append(centred[index])
            labels.append(tile.index)
        for index in removed:
            forget(centred[index])
            not_tiles.append(centred[index])
        d = embeddings.shape[1]
        return replace(
            self, exemplars=_last(exemplars, d), labels=np.array(labels[max(0, len(labels) - MAX_REMEMBERED):], int),
            not_tiles=_last(not_tiles, d),
        )

    def _profile(self) -> TileProfile:
        """A profile of the changed tiles alone: class means of zero (never heard), so only a near
        copy of a changed tile moves a reading."""
        dimension = self.exemplars.shape[1]
        counts = np.bincount(self.labels, minlength=NUM_KINDS)
        return TileProfile(
            "session", np.zeros(dimension), np.zeros((NUM_KINDS, dimension)), counts > 0, counts,
            self.exemplars, self.labels,
        )

    def heard(self, embeddings: np.ndarray) -> np.ndarray:
        """(n,) per tile of one photo, the tile the player set on the changed tile it is a near copy
        of (its index; the nearest such tile), or -1 where it is none's: what :meth:`adapt` reads
        each tile towards."""
        heard = np.full(len(embeddings), -1)
        if not self.changed_count or len(embeddings) < MIN_PHOTO_TILES:
            return heard
        q, nearest = self._profile().opinion(photo_centred(embeddings))  # a class's mean is zero: only near copies count
        near = nearest[:, 0] >= REMEMBERED_FROM
        heard[near] = q[near].argmax(axis=1)
        return heard

    def keeps(self, kept: np.ndarray, dropped: np.ndarray) -> np.ndarray:
        """(m,) bool per box of one photo that the gate dropped (``dropped``, m x d; ``kept``, n x d:
        the photo's boxes kept as tiles): a near copy of a tile the player set this session
        (:meth:`heard`, the photo's boxes all together its centre). Such a box is kept as a tile."""
        kept, dropped = np.asarray(kept, np.float64), np.asarray(dropped, np.float64)
        if not len(dropped) or not self.changed_count:
            return np.zeros(len(dropped), bool)
        every = dropped if not len(kept) else np.concatenate([kept, dropped])
        return self.heard(every)[len(every) - len(dropped):] >= 0

    def looks_removed(self, embeddings: np.ndarray) -> np.ndarray:
        """(n,) bool per box of one photo: a near copy (cosine :attr:`removed_from` or more,
        photo-centred) of a box the player removed, and nearer to it than to every changed
        tile. Such a box is flagged for the player to check, never dropped: the player may have
        removed a real tile that was not theirs, and a dropped tile is lost without a word."""
        if not self.removed_count:
            return np.zeros(len(embeddings), bool)
        return near_copies(embeddings, self.not_tiles, self.removed_from, self.exemplars if self.changed_count else None)

    def adapt(self, probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        """The probabilities ``probs`` (n, 53) of one photo's tiles, with each tile that is a near copy
        of a changed one read towards the tile the player set; ``embeddings`` (n, d) are the
        reader's, of every tile read on that photo."""
        probs = np.asarray(probs, np.float64)
        if not self.changed_count or len(probs) < MIN_PHOTO_TILES:
            return probs
        if len(embeddings) != len(probs):
            raise ValueError(f"{len(embeddings)} embeddings for {len(probs)} tiles")
        return self._profile().adapt(probs, photo_centred(embeddings), self.weight)


def _last(rows: list[np.ndarray], dimension: int) -> np.ndarray:
    """The last :data:`MAX_REMEMBERED` of ``rows`` as one (m, d) array (the oldest forgotten first)."""
    kept = rows[max(0, len(rows) - MAX_REMEMBERED):]
    return np.stack(kept) if kept else np.zeros((0, dimension))
