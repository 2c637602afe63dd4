"""Tile-set profiles on disk: one file per profile under ``$RUMMIKUB_DATA_DIR/profiles/``.

A profile file is a NumPy ``.npz`` archive (read with ``allow_pickle=False``: no code runs on
load) holding a format name and version, the profile's metadata as JSON (its name, when it was
made and changed, the reader that embedded its tiles, and where each tile came from), and per tile
its label, the crops exactly as the reader read them and their embedding; since version 2 also the
boxes the player's set showed that are no tiles (left out of a calibration photo, or removed on
the Play page with teaching on), each with its crops, its embedding and the mean embedding of its
photo's boxes (what it is compared on: :func:`vision.profiles.near_copies`); one another reader
embedded is not used, since its photo's other boxes are not kept. The crops are kept so
that a later reader - or a better adaptation method - can rebuild the profile from the same
tiles: when the reader that embedded them is not the one reading now, the embeddings are
recomputed from the crops on load (:meth:`StoredProfile.tile_profile`).

Names are what the player types; only safe ones are accepted (letters, digits, spaces, ``-`` and
``_``, up to 40 characters, no device names), and the file name is derived from the name, so
nothing a player types becomes a path. Writes go to a temporary file that replaces the old one,
so a crash mid-write leaves the old profile. A file that cannot be read is skipped with a
message when profiles are listed, never a crash. A version 1 file is read as a profile with no
boxes that are no tiles, and written as version 2 when it next changes.
"""

from __future__ import annotations

import json
import os
import tempfile
import unicodedata
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from solver.i18n import TranslatableError, tr
from solver.tiles import NUM_KINDS, Tile
from vision.ink_colour import MIN_PER_COLOUR, shows_every_ink
from vision.profiles import NoTileSample, TileProfile, TileSample

from .storage import data_dir

FORMAT = "rummikub-tile-profile"
VERSION = 2
SUFFIX = ".tiles.npz"
FOLDER = "profiles"
MAX_NAME = 40
#: Names Windows keeps for devices: refused as profile names on every system.
_DEVICE_NAMES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
#: Where a tile of a profile came from.
CALIBRATION = "calibration"
CORRECTION = "correction"
#: ... or removed on the Play page (a box that is no tile).
REMOVAL = "removal"


class ProfileError(TranslatableError, ValueError):
    """A profile name that is not safe, a profile that does not exist, or a file that cannot be read."""


@dataclass(frozen=True)
class ProfileSummary:
    """What the list of profiles shows."""

    name: str
    tiles: int
    kinds: int
    corrections: int
    updated: str
    not_tiles: int = 0
    #: Whether the profile holds enough tiles of every colour to learn the set's inks
    #: (:func:`vision.ink_colour.shows_every_ink`).
    inks: bool = False

    def notes(self, lang: str) -> str:
        """What the list of profiles (the *My tiles* page, ``rummikub tiles list``) adds after the
        counts: the boxes it holds as no tile, and too few tiles of some colour to learn its inks."""
        text = tr("; {count} box(es) that are no tile", lang, count=self.not_tiles) if self.not_tiles else ""
        if not self.inks:
            text += tr("; too few tiles of some colour to learn the set's inks ({count} of each are needed)",
                       lang, count=MIN_PER_COLOUR)
        return text


@dataclass(frozen=True)
class Listing:
    """Every readable profile, by name, and a message for each file that was skipped."""

    profiles: tuple[ProfileSummary, ...]
    skipped: tuple[ProfileError, ...]


@dataclass(frozen=True, eq=False)
class StoredProfile:
    """A profile as saved: its samples, where each came from and which reader embedded it."""

    name: str
    samples: tuple[TileSample, ...]
    origins: tuple[str, ...]
    readers: tuple[str, ...]
    created: str
    updated: str
    #: The boxes the player's set showed that are no tiles, where each came from (:data:`CALIBRATION`:
    #: left out of a calibration photo; :data:`REMOVAL`) and which reader embedded it.
    not_tiles: tuple[NoTileSample, ...] = ()
    not_tile_origins: tuple[str, ...] = ()
    not_tile_readers: tuple[str, ...] = ()

    @property
    def summary(self) -> ProfileSummary:
        return ProfileSummary(
            self.name, len(self.samples), len({s.tile for s in self.samples}),
            sum(o == CORRECTION for o in self.origins), self.updated, len(self.not_tiles),
            shows_every_ink(s.tile for s in self.samples),
        )

    def tile_profile(self, reader=None) -> TileProfile:
        """The profile for ``reader`` (default: the shipped one); tiles another reader embedded are embedded again from their crops."""
        from vision.reader import load_reader, read_views, reader_fingerprint, views_cut_again

        reader = reader or load_reader()
        current = reader_fingerprint(reader)
        stale = [i for i, made_by in enumerate(self.readers) if made_by != current]
        samples = list(self.samples)
        if stale:
            # an older reader's crops may show the neighbours, which the crops no longer do
            crops = [views_cut_again(samples[i].crops, samples[i].box) if samples[i].box else samples[i].crops for i in stale]
            embeddings = read_views(np.stack(crops, axis=1), reader).embeddings
            for i, views, embedding in zip(stale, crops, embeddings):
                samples[i] = TileSample(samples[i].tile, views, embedding, samples[i].box)
        # a box another reader embedded is left out: its photo's other boxes, its centre, are not kept
        no_tiles = [box for box, made_by in zip(self.not_tiles, self.not_tile_readers) if made_by == current]
        corrected = [origin == CORRECTION for origin in self.origins]
        return TileProfile.from_samples(
            self.name, [s for s, c in zip(samples, corrected) if not c], [s for s, c in zip(samples, corrected) if c],
            no_tiles,
        )


def safe_name(name: str) -> str:
    """``name`` tidied (Unicode NFC, outer spaces dropped) when it is a safe profile name; else :class:`ProfileError`."""
    tidy = unicodedata.normalize("NFC", name).strip()
    if not tidy:
        raise ProfileError("a tile profile needs a name")
    if len(tidy) > MAX_NAME:
        raise ProfileError("a tile profile's name has at most {limit} characters", limit=MAX_NAME)
    if not all(c.isalnum() or c in " -_" for c in tidy) or not tidy[0].isalnum():
        raise ProfileError(
            "{name!r} cannot name a tile profile: use letters, digits, spaces, - and _, starting with a letter or digit",
            name=name,
        )
    if tidy.casefold() in _DEVICE_NAMES:
        raise ProfileError("{name!r} cannot name a tile profile: the system reserves it", name=name)
    return tidy


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ProfileStore:
    """The profiles in one folder (default ``$RUMMIKUB_DATA_DIR/profiles``), created on first save."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else data_dir() / FOLDER

    def path(self, name: str) -> Path:
        """The file of the profile ``name`` (a safe name; names differing only in case share it)."""
        return self.root / (safe_name(name).casefold() + SUFFIX)

    def listing(self) -> Listing:
        """Every profile that can be read, by name; a message for each file that cannot."""
        profiles, skipped = [], []
        files = sorted(self.root.glob("*" + SUFFIX)) if self.root.is_dir() else []
        for file in files:
            try:
                profiles.append(_read(file).summary)
            except ProfileError as err:
                skipped.append(err)
        return Listing(tuple(sorted(profiles, key=lambda p: p.name.casefold())), tuple(skipped))

    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.listing().profiles)

    def load(self, name: str) -> StoredProfile:
        file = self.path(name)
        if not file.is_file():
            raise ProfileError("there is no tile profile named {name!r}", name=safe_name(name))
        return _read(file)

    def save(
        self, name: str, samples: Sequence[TileSample], reader: str, origin: str = CALIBRATION,
        not_tiles: Sequence[NoTileSample] = (),
    ) -> StoredProfile:
        """Add ``samples`` and the boxes ``not_tiles`` that are no tiles (all embedded by the reader
        whose fingerprint is ``reader``, from ``origin``) to the profile ``name``, made when it does
        not exist yet (it needs a tile), and write it."""
        name = safe_name(name)
        file = self.path(name)
        old = _read(file) if file.is_file() else StoredProfile(name, (), (), (), _now(), "")
        if not samples and not (not_tiles and old.samples):
            raise ProfileError("no tiles to save")
        stored = StoredProfile(
            old.name,
            old.samples + tuple(samples),
            old.origins + (origin,) * len(samples),
            old.readers + (reader,) * len(samples),
            old.created,
            _now(),
            old.not_tiles + tuple(not_tiles),
            old.not_tile_origins + (origin,) * len(not_tiles),
            old.not_tile_readers + (reader,) * len(not_tiles),
        )
        _write(file, stored)
        return stored

    def forget_not_tiles(self, name: str) -> StoredProfile:
        """The profile ``name`` with every box it holds as no tile forgotten (its tiles kept), written:
        a box taught as no tile by mistake (a real tile removed with teaching on) would flag its near
        copies in every later photo."""
        file = self.path(name)
        if not file.is_file():
            raise ProfileError("there is no tile profile named {name!r}", name=safe_name(name))
        old = _read(file)
        stored = StoredProfile(old.name, old.samples, old.origins, old.readers, old.created, _now())
        _write(file, stored)
        return stored

    def delete(self, name: str) -> None:
        file = self.path(name)
        if not file.is_file():
            raise ProfileError("there is no tile profile named {name!r}", name=safe_name(name))
        file.unlink()


def _damaged(file: Path) -> ProfileError:
    return ProfileError("the tile profile file {file} is damaged or not a tile profile; it was skipped", file=file.name)


def _read(file: Path) -> StoredProfile:
    try:
        with np.load(file, allow_pickle=False) as data:
            if str(data["format"]) != FORMAT:
                raise _damaged(file)
            if int(data["version"]) > VERSION:
                raise ProfileError(
                    "the tile profile file {file} was written by a newer version of the app; it was skipped",
                    file=file.name,
                )
            meta = json.loads(str(data["meta"]))
            labels, crops, embeddings = data["tiles"], data["crops"], data["embeddings"]
            origins = tuple(str(o) for o in meta["origins"])
            readers = tuple(str(r) for r in meta["readers"])
            boxes = meta["boxes"]
            if not (len(labels) == len(crops) == len(embeddings) == len(origins) == len(readers) == len(boxes) > 0):
                raise _damaged(file)
            if crops.dtype != np.uint8 or crops.ndim != 5 or embeddings.ndim != 2:
                raise _damaged(file)
            if labels.min() < 0 or labels.max() >= NUM_KINDS:
                raise _damaged(file)
            samples = tuple(
                TileSample(Tile.from_index(int(t)), c, e.astype(np.float64), tuple(float(v) for v in b))
                for t, c, e, b in zip(labels, crops, embeddings, boxes)
            )
            no_tiles = meta.get("not_tiles", []) if int(data["version"]) >= 2 else []
            if no_tiles:
                no_crops, no_embeddings, no_means = (
                    data["not_tile_crops"], data["not_tile_embeddings"], data["not_tile_photo_means"]
                )
                if not (len(no_crops) == len(no_embeddings) == len(no_means) == len(no_tiles)) or no_crops.dtype != np.uint8 \
                        or no_crops.shape[1:] != crops.shape[1:] or no_embeddings.shape[1:] != embeddings.shape[1:] \
                        or no_means.shape != no_embeddings.shape:
                    raise _damaged(file)
            else:
                no_crops, no_embeddings, no_means = (), (), ()
            not_tiles = tuple(
                NoTileSample(c, e.astype(np.float64), m.astype(np.float64), tuple(float(v) for v in n["box"]))
                for c, e, m, n in zip(no_crops, no_embeddings, no_means, no_tiles)
            )
            return StoredProfile(
                str(meta["name"]), samples, origins, readers, str(meta["created"]), str(meta["updated"]),
                not_tiles, tuple(str(n["origin"]) for n in no_tiles), tuple(str(n["reader"]) for n in no_tiles),
            )
    except ProfileError:
        raise
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as err:
        raise _damaged(file) from err


def _write(file: Path, stored: StoredProfile) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "name": stored.name, "created": stored.created, "updated": stored.updated,
        "origins": list(stored.origins), "readers": list(stored.readers), "boxes": [list(s.box) for s in stored.samples],
        "not_tiles": [
            {"origin": origin, "reader": reader, "box": list(box.box)}
            for box, origin, reader in zip(stored.not_tiles, stored.not_tile_origins, stored.not_tile_readers)
        ],
    }
    first = stored.samples[0]
    handle, temporary = tempfile.mkstemp(dir=file.parent, suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez_compressed(
                out,
                format=np.array(FORMAT),
                version=np.array(VERSION),
                meta=np.array(json.dumps(meta, ensure_ascii=False)),
                tiles=np.array([s.tile.index for s in stored.samples], np.int16),
                crops=np.stack([s.crops for s in stored.samples]).astype(np.uint8),
                embeddings=np.stack([s.embedding for s in stored.samples]).astype(np.float32),
                not_tile_crops=np.stack([b.crops for b in stored.not_tiles]).astype(np.uint8)
                if stored.not_tiles else np.zeros((0, *first.crops.shape), np.uint8),
                not_tile_embeddings=np.stack([b.embedding for b in stored.not_tiles]).astype(np.float32)
                if stored.not_tiles else np.zeros((0, len(first.embedding)), np.float32),
                not_tile_photo_means=np.stack([b.photo_mean for b in stored.not_tiles]).astype(np.float32)
                if stored.not_tiles else np.zeros((0, len(first.embedding)), np.float32),
            )
        os.replace(temporary, file)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
