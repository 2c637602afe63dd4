"""The app's tile profiles: which one the session uses, loading it once, and what a correction teaches.

The profile chosen on the *My tiles* page lives in session state under :data:`ACTIVE` (a name;
none chosen: the reader alone) and applies to every photo any page reads (:func:`app.photos.read_upload`
asks :func:`active_profile`). A loaded profile is cached per file and change time, so reading a
photo does not reload it. :func:`corrections` is pure: what the player changed on a photo tile.

Every tile the player changes on a photo is also remembered for the session, profile or none
(:data:`MEMORY`, a :class:`vision.session_memory.SessionMemory`; :func:`remember` is pure), and
every photo read later in the session reads a near copy of it as the player set it. A box the
player removes is remembered too (:func:`removals`; on the Score page, a read tile taken out of a
rack's typed line, :func:`taken_out`), as no tile: a near copy of it in a later photo is flagged
for the player to check. A tile the player adds from a box the camera left out (:func:`additions`)
is remembered as a changed one: a near copy in a later photo is kept even where the gate drops it
again, and read as the player set it.

:func:`learn_from_fix` is what the Play and Check-a-turn pages do with each fix: remember it, and
teach the active profile when the player switched that on.

A change of a photo tile's colour is also followed on the spot by the tiles of the same photo that
look at least as much like the new colour (:func:`follow_colour`, pure; :mod:`vision.colour_follow`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from solver.i18n import error_text, tr
from solver.rules import STANDARD, RuleSet
from solver.tiles import Tile
from vision.colour_follow import colour_followers, is_colour_change
from vision.detections import median_length
from vision.profiles import NoTileSample, TileProfile, TileSample, unlike_the_rest
from vision.session_memory import SessionMemory, lying_apart

from .editing import Chip, Offer, TableAndRack
from .profile_store import CORRECTION, REMOVAL, ProfileError, ProfileStore, StoredProfile

#: Session key (and widget key on the My tiles page) of the chosen profile's name; "" for none.
ACTIVE = "tiles_active_profile"
#: Session key of the switch (above the Play and Check-a-turn pages' fix editors): a tile fixed teaches the active profile.
TEACH = "play_teach_profile"
#: Session key of the tiles the player changed or removed this session (:func:`remembered`).
MEMORY = "tiles_session_memory"
#: Session key of the line saying what the last fix taught the profile (a :class:`Taught`), shown
#: once above the page's fix editor (:func:`app.components.fix_memory`).
TAUGHT = "tiles_taught"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Taught:
    """What teaching the active profile came to, for the page to show: ``ok`` False when it failed."""

    ok: bool
    text: str


def store() -> ProfileStore:
    """The profiles under ``$RUMMIKUB_DATA_DIR/profiles`` (read each time: another session may change them)."""
    return ProfileStore()


def active_name() -> str:
    return str(st.session_state.get(ACTIVE) or "")


@st.cache_resource(show_spinner=False, max_entries=8)
def _loaded(path: str, changed_ns: int, name: str) -> TileProfile:
    return store().load(name).tile_profile()


def active_profile() -> TileProfile | None:
    """The chosen profile, ready to adapt readings; None when none is chosen.

    Raises :class:`app.profile_store.ProfileError` when it was deleted or its file is damaged,
    and :class:`vision.model_files.ModelFileError` when the reader model is missing.
    """
    name = active_name()
    if not name:
        return None
    path = store().path(name)
    if not path.is_file():
        raise ProfileError("there is no tile profile named {name!r}", name=name)
    return _loaded(str(path), path.stat().st_mtime_ns, name)


def corrections(old: TableAndRack, new: TableAndRack) -> tuple[tuple[tuple[str, int], Tile], ...]:
    """Photo tiles whose tile the player changed between ``old`` and ``new``: (sample key, new tile)."""
    before = {c.sample: c.tile for c in old.chips if c.sample is not None}
    return tuple(
        (c.sample, c.tile) for c in new.chips if c.sample is not None and c.sample in before and before[c.sample] != c.tile
    )


def removals(old: TableAndRack, new: TableAndRack) -> tuple[tuple[str, int], ...]:
    """Photo tiles the player removed between ``old`` and ``new`` (*Remove*; a moved tile stays): their sample keys."""
    kept = {c.sample for c in new.chips}
    return tuple(c.sample for c in old.chips if c.sample is not None and c.sample not in kept)


def kept_additions(chips: Sequence[Chip], offers: Sequence[Offer], typed: Sequence[Tile]) -> tuple[tuple[Offer, Tile], ...]:
    """Of the ``offers`` the scorekeeper added to the typed line of a rack read from a photo (the
    Score page: its *Add* buttons; ``chips`` as read), those the line ``typed`` still holds, each as
    its tile: only as many of a tile as the line holds beyond the read copies (one changed in the
    line since is not known for sure, so not counted)."""
    beyond = Counter(typed) - Counter(c.tile for c in chips)
    kept = []
    for offer in offers:
        if beyond[offer.tile] > 0:
            beyond[offer.tile] -= 1
            kept.append((offer, offer.tile))
    return tuple(kept)


def follow_colour(
    old: TableAndRack, new: TableAndRack, samples: Mapping[str, Sequence[TileSample]], rules: RuleSet = STANDARD,
) -> tuple[TableAndRack, tuple[tuple[Tile, Tile, int], ...]]:
    """``new`` with the photo tiles that follow the player's colour changes between ``old`` and
    ``new`` changed too (:func:`vision.colour_follow.colour_followers`), each marked ``followed`` and
    unsure; and per change followed, (the tile as it was read, the tile the player set, how many
    tiles followed).

    ``samples`` are every tile of each photo (by kind, as :attr:`app.photos.PhotoReading.samples`);
    a tile's reading is its chip as it stands (the changed tile's: as it was in ``old``); a tile
    the player set, one that followed a change before (it would follow the next change back), or
    one no longer on the table or rack never follows. Nothing follows a tile without its reader's probabilities."""
    before = {c.sample: c.tile for c in old.chips if c.sample is not None}
    followed: list[tuple[Tile, Tile, int]] = []
    for (kind, index), tile in corrections(old, new):
        photo = samples.get(kind, ())
        read = before[(kind, index)]
        if not is_colour_change(read, tile) or not 0 <= index < len(photo) or any(s.probs is None for s in photo):
            continue
        chips = {c.sample[1]: c for c in new.chips if c.sample is not None and c.sample[0] == kind}
        labels = [chips[i].tile.index if i in chips else s.tile.index for i, s in enumerate(photo)]
        labels[index] = read.index
        fixed = {i for i in range(len(photo)) if i not in chips or chips[i].edited or chips[i].followed}
        followers = colour_followers(
            np.stack([s.probs for s in photo]), labels, index, tile, fixed - {index},
            median_length([s.box for s in photo if len(s.box) == 4]), rules,
        )
        if not followers:
            continue
        to = {i: follow for i, follow in followers}
        new = _rechipped(new, kind, to)
        followed.append((read, tile, len(to)))
    return new, tuple(followed)


def _rechipped(table_rack: TableAndRack, kind: str, to: Mapping[int, Tile]) -> TableAndRack:
    """``table_rack`` with the chips of photo ``kind``'s tiles ``to`` names changed to their new tile, marked followed."""
    def chip(c: Chip) -> Chip:
        if c.sample is None or c.sample[0] != kind or c.sample[1] not in to:
            return c
        return Chip(to[c.sample[1]], uncertain=True, alternatives=(c.tile,), sample=c.sample, followed=True)

    return table_rack.with_table(tuple(chip(c) for c in meld) for meld in table_rack.melds).with_rack(chip(c) for c in table_rack.rack)


def taken_out(chips: Sequence[Chip], typed: Sequence[Tile]) -> tuple[tuple[str, int], ...]:
    """Photo tiles of a rack read from a photo that the scorekeeper took out of its typed line (the
    Score page: a phantom joker deleted): their sample keys. Only what is surely a removal counts:
    the line must hold nothing the photo was not read as (else a tile may have been changed, not
    taken out), and a tile counts only when none of its kind is left (which of two read copies was
    taken out is not known). A line emptied says nothing of its tiles (the photo of another rack,
    say)."""
    read, left = Counter(c.tile for c in chips), Counter(typed)
    if not left or left - read:
        return ()
    return tuple(c.sample for c in chips if c.sample is not None and left[c.tile] == 0)


def teach(
    samples: Mapping[str, Sequence[TileSample]], changed: Sequence[tuple[tuple[str, int], Tile]],
    removed: Sequence[tuple[str, int]] = (), added: Sequence[tuple[Offer, Tile]] = (),
) -> StoredProfile | None:
    """Add each changed photo tile, labelled as the player set it, each tile added from a box the
    camera left out and set by the player (:func:`additions`), and each removed box as no tile, to the
    active profile."""
    if not active_name():
        return None
    return teach_profile(store(), active_name(), samples, changed, removed, added)


def teach_profile(
    profiles: ProfileStore, name: str, samples: Mapping[str, Sequence[TileSample]],
    changed: Sequence[tuple[tuple[str, int], Tile]], removed: Sequence[tuple[str, int]] = (),
    added: Sequence[tuple[Offer, Tile]] = (),
) -> StoredProfile | None:
    """Add each changed photo tile, labelled as the player set it, and each box the camera left out
    that the player ``added`` (labelled as its chip holds it) to the profile ``name`` in
    ``profiles``, and each ``removed`` box as no tile with its photo's mean. Skipped: a removed box
    lying on a tile that stays (the detector's second box on it, as :func:`remember` skips it), one
    that looks like a box kept beside it (:func:`vision.profiles.unlike_the_rest`: it would flag
    that tile in every later photo), and any of a photo of fewer than
    :data:`vision.profiles.MIN_PHOTO_TILES` boxes (too few to be its own centre).

    The Play page's *Change* and *Remove* (through :func:`teach`) and the measurements of how many
    corrections fix a class and of removed boxes (``python -m training.evaluate_profiles``) teach
    through here. None when no changed or removed box has a sample (nothing is written).
    """
    from vision.reader import load_reader, reader_fingerprint

    taught = []
    for (kind, index), tile in changed:
        sample = _sample(samples, kind, index)
        if sample is not None:
            taught.append(TileSample(tile, sample.crops, sample.embedding, sample.box))
    taught += [TileSample(tile, o.sample.crops, o.sample.embedding, o.sample.box) for o, tile in added if o.sample is not None]
    no_tiles = []
    for kind, gone in _removed_apart(samples, removed).items():
        embeddings = np.stack([s.embedding for s in samples[kind]])
        for index in unlike_the_rest(embeddings, gone):  # none of a photo too small to centre on
            box = samples[kind][index]
            no_tiles.append(NoTileSample(box.crops, box.embedding, embeddings.mean(axis=0), box.box))
    stored = None
    if taught:
        stored = profiles.save(name, taught, reader_fingerprint(load_reader()), origin=CORRECTION)
    if no_tiles:
        stored = profiles.save(name, (), reader_fingerprint(load_reader()), origin=REMOVAL, not_tiles=no_tiles)
    return stored


def _removed_apart(
    samples: Mapping[str, Sequence[TileSample]], removed: Sequence[tuple[str, int]]
) -> dict[str, list[int]]:
    """The ``removed`` boxes that have a sample, by kind, less those lying on a tile that stays
    (:func:`vision.session_memory.lying_apart`: the detector's second box on a tile)."""
    apart = {}
    for kind, photo in samples.items():
        gone = [index for where, index in removed if where == kind and _sample(samples, where, index) is not None]
        if gone and all(len(s.box) == 4 for s in photo):
            gone = lying_apart(np.array([s.box for s in photo], np.float64), gone)
        if gone:
            apart[kind] = gone
    return apart


def remembered() -> SessionMemory | None:
    """The tiles the player changed or removed on photos this session (None before the first)."""
    memory = st.session_state.get(MEMORY)
    return memory if memory is not None and len(memory) else None


def additions(
    old: TableAndRack, new: TableAndRack, offers: Sequence[Offer], set_only: bool = False,
) -> tuple[tuple[Offer, Tile], ...]:
    """The ``offers`` (boxes the camera left out) the player added between ``old`` and ``new``, or set
    to another tile since: (the offer, the tile its chip holds now). ``set_only``: only those the
    player set (*Change*), not taken as the camera guessed them: what a profile may learn."""
    before = {c.offered: c.tile for c in old.chips if c.offered is not None}
    by_key = {o.key: o for o in offers}
    return tuple(
        (by_key[c.offered], c.tile) for c in new.chips
        if c.offered in by_key and before.get(c.offered) != c.tile and (c.edited or not set_only)
    )


def offers_removed(old: TableAndRack, new: TableAndRack, offers: Sequence[Offer]) -> tuple[Offer, ...]:
    """The ``offers`` whose tile the player added and then removed between ``old`` and ``new``."""
    before, kept = {c.offered for c in old.chips}, {c.offered for c in new.chips}
    return tuple(o for o in offers if o.key in before and o.key not in kept)


def remember_in_session(
    samples: Mapping[str, Sequence[TileSample]], changed: Sequence[tuple[tuple[str, int], Tile]],
    removed: Sequence[tuple[str, int]] = (), added: Sequence[tuple[Offer, Tile]] = (), taken_back: Sequence[Offer] = (),
) -> None:
    """Remember the photo tiles just ``changed``, ``removed`` or ``added`` (or added and ``taken_back``)
    for the rest of the session (see :func:`remember`)."""
    st.session_state[MEMORY] = remember(
        st.session_state.get(MEMORY) or SessionMemory(), samples, changed, removed, added, taken_back,
    )


def forget_session() -> None:
    """Forget the tiles changed and removed this session: later photos read as the reader (and profile) alone say."""
    st.session_state.pop(MEMORY, None)


def remember(
    memory: SessionMemory, samples: Mapping[str, Sequence[TileSample]], changed: Sequence[tuple[tuple[str, int], Tile]],
    removed: Sequence[tuple[str, int]] = (), added: Sequence[tuple[Offer, Tile]] = (), taken_back: Sequence[Offer] = (),
) -> SessionMemory:
    """``memory`` with each changed photo tile added as the player set it, each removed one as no
    tile, each box the camera left out that the player ``added`` as the tile it holds now, and each
    one added and ``taken_back`` (removed again) as no tile, no longer as a tile:
    ``samples`` are every tile of each photo (by kind, as :attr:`app.photos.PhotoReading.samples`),
    a change or removal names its tile by (kind, index) as a chip's ``sample`` does; one without a
    sample is skipped, and so is a removed box lying on a tile that stays (the detector's second box
    on it, :func:`vision.session_memory.lying_apart`). An added box is centred on its photo's tiles
    and itself."""
    apart = _removed_apart(samples, removed)
    for kind, photo in samples.items():
        on_photo = [
            (index, tile) for (where, index), tile in changed if where == kind and _sample(samples, where, index) is not None
        ]
        boxes = [(offer.sample, tile) for offer, tile in added if offer.kind == kind and offer.sample is not None]
        on_photo += [(len(photo) + k, tile) for k, (_, tile) in enumerate(boxes)]
        back = [offer.sample for offer in taken_back if offer.kind == kind and offer.sample is not None]
        gone = apart.get(kind, []) + [len(photo) + len(boxes) + k for k in range(len(back))]
        if on_photo or gone:
            every = (*photo, *(b for b, _ in boxes), *back)
            memory = memory.remembering(np.stack([s.embedding for s in every]), on_photo, gone)
    return memory


def learn_from_fix(
    old: TableAndRack, new: TableAndRack, offers: Sequence[Offer], samples: Mapping[str, Sequence[TileSample]], lang: str,
) -> Taught | None:
    """What a page does with one fix of a photo's reading (``old`` → ``new``), besides showing it:
    remember for the session the photo tiles the player changed, removed or added from a box the
    camera left out (or added and took back), and, with the teaching switch on and a profile chosen,
    teach the profile the tiles changed, the boxes removed and the added tiles the player set (not
    as the camera guessed them). ``samples`` are the crops of the photos ``old`` was read from, by
    kind. Never raises: the fix itself must apply whatever happens here; a failure is logged, and a
    failed teaching is the line returned. The line returned is also kept under :data:`TAUGHT`."""
    changed, removed = corrections(old, new), removals(old, new)
    added, taken_back = additions(old, new, offers), offers_removed(old, new, offers)
    if changed or removed or added or taken_back:
        try:
            remember_in_session(samples, changed, removed, added, taken_back)
        except Exception:  # noqa: BLE001 - see the docstring; the log keeps the reason
            log.warning("remembering the changed or removed tiles failed", exc_info=True)
    set_added = additions(old, new, offers, set_only=True)
    if not (changed or removed or set_added) or not st.session_state.get(TEACH) or not active_name():
        return None
    try:
        stored = teach(samples, changed, removed, set_added)
    except Exception as err:  # noqa: BLE001 - see the docstring
        log.warning("teaching the tile profile failed: %s", err)
        taught = Taught(False, tr("The tile profile could not learn this tile: {reason}", lang, reason=error_text(err, lang)))
    else:
        if stored is None:
            return None
        if changed or set_added:
            taught = Taught(True, tr("The tile profile {name!r} learnt this tile.", lang, name=stored.name))
        else:
            taught = Taught(True, tr(
                "The tile profile {name!r} learnt that this is no tile: in later photos anything that looks the same is "
                "marked for you to check.", lang, name=stored.name,
            ))
    st.session_state[TAUGHT] = taught
    return taught


def _sample(samples: Mapping[str, Sequence[TileSample]], kind: str, index: int) -> TileSample | None:
    kept = samples.get(kind, ())
    return kept[index] if 0 <= index < len(kept) else None


__all__ = [
    "ACTIVE", "MEMORY", "TAUGHT", "TEACH", "Taught", "active_name", "active_profile", "additions", "corrections", "offers_removed", "follow_colour", "forget_session", "kept_additions", "learn_from_fix", "remember",
    "removals", "remember_in_session", "remembered", "store", "taken_out", "teach", "teach_profile",
]
