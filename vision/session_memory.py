"""The tiles a player changed this session, remembered so that a later photo reads them as the player set them.

    memory = SessionMemory().remembering(photo_embeddings, [(index, Tile)])
    memory.adapt(probs, embeddings) -> probs        a later photo's probabilities, adapted

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from solver.tiles import NUM_KINDS, Tile
from vision.profiles import REMEMBERED_FROM, WEIGHT, TileProfile, unit_rows

__all__ = ["SessionMemory", "MIN_PHOTO_TILES", "MAX_REMEMBERED"]

#: A photo with fewer tiles says too little about its own light to be its centre: a change made on
#: it is not remembered, and the memory does not read it (two tiles less their mean are each
#: other's mirror image).
MIN_PHOTO_TILES = 5
#: Changes remembered at most; the oldest is forgotten first (a session of a whole evening's games).
MAX_REMEMBERED = 200


def _photo_centred(embeddings: np.ndarray) -> np.ndarray:
    """One photo's embeddings (n, d) less their mean."""
    embeddings = np.asarray(embeddings, np.float64)
    return embeddings - embeddings.mean(axis=0)


@dataclass(frozen=True, eq=False)
class SessionMemory:
    """The changed tiles, each as its photo-centred unit embedding and the tile the player set."""

    exemplars: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (m, d)
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, int))  # (m,) tile indices
    #: The memory's share in the mix for a near copy (:meth:`vision.profiles.TileProfile.adapt`): the
    #: profile's :data:`vision.profiles.WEIGHT`. A heavier memory would unflag the remembered tiles but
    #: show more wrong tiles as sure: on the edition kept for choosing (``--retakes --memory-weights``,
    #: twelve runs, no profile) wrong and shown as sure 44 at 0.7 and 0.8, 58 at 0.9, 66 at 0.95;
    #: right tiles flagged 926, 913, 805, 781; tiles read wrong 262, 260, 259, 264.
    weight: float = WEIGHT

    def __len__(self) -> int:
        return len(self.labels)

    def remembering(self, photo_embeddings: np.ndarray, changed: Sequence[tuple[int, Tile]]) -> "SessionMemory":
        """This memory with the tiles ``changed`` on one photo added: (the tile's row in
        ``photo_embeddings``, the tile the player set). ``photo_embeddings`` (n, d) are every tile
        read on that photo. A tile changed again is remembered as it was set last; a photo of
        fewer than :data:`MIN_PHOTO_TILES` tiles adds nothing."""
        embeddings = np.asarray(photo_embeddings, np.float64)
        if embeddings.ndim != 2:
            raise ValueError(f"a photo's embeddings must be (tiles, dimension), not {embeddings.shape}")
        if len(self) and embeddings.shape[1] != self.exemplars.shape[1]:
            raise ValueError(
                f"embeddings of dimension {embeddings.shape[1]} do not fit this memory ({self.exemplars.shape[1]})"
            )
        if len(embeddings) < MIN_PHOTO_TILES or not changed:
            return self
        for index, _ in changed:
            if not 0 <= index < len(embeddings):
                raise ValueError(f"tile {index} is not on a photo of {len(embeddings)} tiles")
        centred = unit_rows(_photo_centred(embeddings))
        exemplars = list(self.exemplars) if len(self) else []
        labels = [int(label) for label in self.labels]
        for index, tile in changed:
            new = centred[index]
            same = next((k for k, old in enumerate(exemplars) if np.array_equal(old, new)), None)
            if same is not None:  # the same tile changed again: the last word counts
                del exemplars[same], labels[same]
            exemplars.append(new)
            labels.append(tile.index)
        kept = slice(max(0, len(labels) - MAX_REMEMBERED), None)
        return SessionMemory(np.stack(exemplars[kept]), np.array(labels[kept], int), self.weight)

    def _profile(self) -> TileProfile:
        """A profile of these exemplars alone: class means of zero (never heard), so only a near
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
        if not len(self) or len(embeddings) < MIN_PHOTO_TILES:
            return heard
        q, nearest = self._profile().opinion(_photo_centred(embeddings))  # a class's mean is zero: only near copies count
        near = nearest[:, 0] >= REMEMBERED_FROM
        heard[near] = q[near].argmax(axis=1)
        return heard

    def adapt(self, probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        """The probabilities ``probs`` (n, 53) of one photo's tiles, with each tile that is a near copy
        of a changed one read towards the tile the player set; ``embeddings`` (n, d) are the
        reader's, of every tile read on that photo."""
        probs = np.asarray(probs, np.float64)
        if not len(self) or len(probs) < MIN_PHOTO_TILES:
            return probs
        if len(embeddings) != len(probs):
            raise ValueError(f"{len(embeddings)} embeddings for {len(probs)} tiles")
        return self._profile().adapt(probs, _photo_centred(embeddings), self.weight)
