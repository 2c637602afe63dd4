"""The pages' door to photos: upload bytes in, a reading the player can fix out.

Reading itself is :func:`app.photo_reading.read_photo`, the one entry the CLI uses too; this
module adds what only the pages need: the session's tile profile and the tiles changed this
session (:func:`app.tile_profiles.remembered`), the reading as chips, a
small annotated preview, and the models opened once per server process (``st.cache_resource``)
and shared by every session. Uploads arrive as bytes and are decoded in memory; no name or path
a user gives is ever opened.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np
import streamlit as st

from solver.i18n import error_text, tile_label, tr
from solver.rules import RuleSet
from solver.tiles import Tile
from vision.profiles import TileProfile, TileSample
from vision.reading import PhotoLook, Reading, ReadingKind, ReadTile
from vision.session_memory import SessionMemory

from . import session
from .editing import Chip, Offer
from .photo_prefetch import Prefetcher
from .photo_reading import PhotoError, PhotoFailure, PhotoRead, annotate_preview, read_photo

Box = tuple[float, float, float, float]
#: Session key of the session's :class:`app.photo_prefetch.Prefetcher`.
PREFETCHER = "photo_prefetcher"


@dataclass(frozen=True)
class PhotoReading:
    """What the camera saw: chips per meld (a rack is one row), the annotated photo, notes.

    ``boxes`` has the shape of ``rows``: each chip's box (x1, y1, x2, y2) in the pixels of
    ``annotated_jpeg`` (the photo scaled down to at most :data:`PREVIEW_PX`), so a page can point
    at a tile on it.
    """

    rows: tuple[tuple[Chip, ...], ...]
    annotated_jpeg: bytes
    #: What the page should tell the player besides the tiles (a tile profile not used).
    notes: tuple[str, ...]
    tile_count: int
    boxes: tuple[tuple[Box, ...], ...] = ()
    #: Per tile of the reading, its crops and embedding (a chip's ``sample`` indexes this).
    samples: tuple[TileSample, ...] = ()
    #: Boxes left out as more likely not tiles, dashed on ``annotated_jpeg`` (see :func:`doubtful_note`).
    doubtful: int = 0
    #: How long and how blurred the read tiles are in the photo (:attr:`vision.reading.Reading.look`):
    #: what the page advises on (:func:`photo_notes`).
    look: PhotoLook = PhotoLook()
    #: The reading the chips come from, and the photo at the preview's size with nothing drawn on
    #: it (JPEG) and its scale: what reading it again with the other photo of the turn needs
    #: (:func:`read_together`). None and empty when not kept.
    reading: Reading | None = None
    plain_jpeg: bytes = b""
    scale: float = 1.0

    @property
    def chips(self) -> tuple[Chip, ...]:
        """Every tile read, row after row (a rack's tiles in order)."""
        return tuple(c for row in self.rows for c in row)

    @property
    def offers(self) -> tuple[Offer, ...]:
        """The boxes the reading left out that may be tiles (:attr:`vision.reading.Reading.left_out`),
        numbered as on the photo, each beside the chip of the photo tile it lies next to."""
        if self.reading is None:
            return ()
        kind = self.reading.kind.value
        return tuple(
            Offer(
                kind, number, t.tile, tuple(a.tile for a in t.alternatives), None if t.beside is None else (kind, t.beside),
                t.before, t.sample,
            )
            for number, t in enumerate(self.reading.left_out, start=1)
        )


log = logging.getLogger(__name__)


@st.cache_resource(show_spinner=False)
def _load_models() -> bool:
    """Open the detector and the reader once per server process and run them once (a failure is retried)."""
    import vision

    vision.warm_up()
    return True


def warm_up_in_background() -> None:
    """Start :func:`warm_up` in a thread at server start, so the first photo and the first move are as fast as the next.

    Called on every page run; the cached thread starts once per server process. A failure is only
    logged here: reading a photo later reports it to the player.
    """
    _start_warm_up()


def warm_up() -> None:
    """Pay now what the first photo and the first move would pay: opening and running both tile
    models, and importing the move solver (OR-Tools, SciPy: about 0.35 s, which the first *Find
    my best move* paid before). Failures are only logged: the player sees the reason when they
    read a photo or ask for a move."""
    try:
        import vision

        vision.warm_up()  # the sessions are cached per process (vision.model_files.open_model)
    except Exception:  # noqa: BLE001 - the player sees the reason when they read a photo
        log.warning("warming up the tile models failed", exc_info=True)
    try:
        importlib.import_module("solver.search")
    except Exception:  # noqa: BLE001 - as above, for the first move
        log.warning("importing the move solver failed", exc_info=True)


@st.cache_resource(show_spinner=False)
def _start_warm_up() -> threading.Thread:
    thread = threading.Thread(target=warm_up, name="rummikub-warm-up", daemon=True)
    thread.start()
    return thread


def vision_available() -> bool:
    """True when photos can be read here (the package and its model weights are present)."""
    try:
        return _load_models()
    except Exception:  # noqa: BLE001 - any failure means: type the tiles instead
        return False


def _chip(read_tile: ReadTile, sample: tuple[str, int] | None = None) -> Chip:
    return Chip(
        read_tile.tile,
        uncertain=read_tile.uncertain,
        corrected=read_tile.corrected,
        alternatives=tuple(a.tile for a in read_tile.alternatives if a.tile != read_tile.tile),
        confidence=read_tile.confidence,
        sample=sample,
        remembered=read_tile.remembered,
        like_removed=read_tile.like_removed,
        ink_doubt=read_tile.ink_doubt,
        blurred=read_tile.blurred,
    )


#: Longest side of the annotated photo a page shows: enough for a phone or laptop screen; the
#: full 12 MP photo as PNG was 17 MB sent to the phone for every reading.
PREVIEW_PX = 1600
PREVIEW_JPEG_QUALITY = 85


def _preview(photo: PhotoRead) -> tuple[np.ndarray, float]:
    """The photo at most :data:`PREVIEW_PX` on its longer side, and its scale (the reading is drawn
    on it scaled down: names stay legible and no full-size copy is made)."""
    scale = min(1.0, PREVIEW_PX / max(photo.image.shape[:2]))
    if scale == 1.0:
        return photo.image, scale
    return cv2.resize(photo.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), scale


def _jpeg(image: np.ndarray) -> bytes:
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, PREVIEW_JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 array
        raise PhotoError("could not draw the annotated photo", failure=PhotoFailure.FAILED)
    return encoded.tobytes()


def _row_positions(reading: Reading) -> tuple[tuple[int, ...], ...]:
    """Tile positions per meld (table) or the rack as one row; a tile outside every meld is its own row."""
    melds = list(reading.melds)
    grouped = {i for m in melds for i in m}
    melds += [(i,) for i in range(len(reading.tiles)) if i not in grouped]
    rows = tuple(meld for meld in melds if meld)
    if reading.kind is ReadingKind.RACK:
        return (tuple(i for row in rows for i in row),)
    return rows


def read_upload(data: bytes, kind: ReadingKind, rules: RuleSet, lang: str = "en") -> PhotoReading:
    """Read a table (rows are melds) or a rack (one row) from uploaded photo bytes, with the
    session's tile profile and the tiles changed this session; raises
    :class:`app.photo_reading.PhotoError`. A reading started ahead for the same photo
    (:func:`read_ahead`) is taken up instead of read again.

    The reading's problems are not repeated as notes: the pages show every kind in their own
    words (invalid melds and copy limits from the table check, doubtful tiles as marked chips).
    """
    return _prefetcher().result(data, kind, rules, *_profile_and_notes(lang), _remembered())


def read_ahead(data: bytes | None, kind: ReadingKind, rules: RuleSet, lang: str = "en") -> None:
    """Start reading an uploaded photo in the background, for :func:`read_upload` to take up
    (nothing when no photo is given)."""
    if data is not None:
        _prefetcher().start(data, kind, rules, *_profile_and_notes(lang), _remembered())


def read_with_profile(
    data: bytes, kind: ReadingKind, rules: RuleSet, profile: TileProfile | None, notes: tuple[str, ...],
    memory: SessionMemory | None = None,
) -> PhotoReading:
    """:func:`read_upload` once the session's profile and memory are resolved: touches no session
    state, so it may run on any thread."""
    photo = read_photo(data, kind, rules, profile, memory=memory)
    plain, scale = _preview(photo)
    return _photo_reading(photo.reading, plain, _jpeg(plain), scale, notes)


def _photo_reading(reading: Reading, plain: np.ndarray, plain_jpeg: bytes, scale: float, notes: tuple[str, ...]) -> PhotoReading:
    """``reading`` as chips, drawn on ``plain`` (the photo scaled by ``scale``; kept as ``plain_jpeg``)."""
    tiles = reading.tiles
    positions = _row_positions(reading)
    rows = tuple(tuple(_chip(tiles[i], (reading.kind.value, i)) for i in row) for row in positions)
    boxes = tuple(tuple(_scaled(tiles[i].box, scale) for i in row) for row in positions)
    return PhotoReading(
        rows, _jpeg(annotate_preview(plain, reading, scale)), notes, sum(len(r) for r in rows), boxes, reading.samples,
        len(reading.doubtful_boxes), reading.look, reading, plain_jpeg, scale,
    )


def read_together(
    photos: Mapping[ReadingKind, PhotoReading], rules: RuleSet, typed: Sequence[Tile] = (),
    on_table_before: Sequence[Tile] = (),
) -> dict[ReadingKind, PhotoReading]:
    """Photos of one game (a turn's table and rack, or a rack at the end of a round) read as one
    with the ``typed`` tiles of the same game (:func:`vision.pipeline.decode_together`): a tile the
    table holds both copies of is not read a third time on the rack when the next likeliest reading
    is near, and the other way round; with ``on_table_before`` (the table of the last reading, see
    :func:`same_table`) a table tile read otherwise than last time is read so again when that
    reading is near. A photo whose reading changes is drawn again; when a photo's reading was not
    kept, every photo is left as it was."""
    from vision.pipeline import decode_together

    kinds = list(photos)
    if not kinds or any(photos[k].reading is None or not photos[k].plain_jpeg for k in kinds):
        return dict(photos)
    readings = decode_together(
        [photos[k].reading for k in kinds], rules, known=typed, on_table_before=on_table_before,  # type: ignore[misc]
    )
    out = dict(photos)
    for kind, after in zip(kinds, readings):
        before = photos[kind]
        if after.tiles != before.reading.tiles:  # type: ignore[union-attr]
            plain = cv2.imdecode(np.frombuffer(before.plain_jpeg, np.uint8), cv2.IMREAD_COLOR)
            out[kind] = _photo_reading(after, plain, before.plain_jpeg, before.scale, before.notes)
    return out


#: The last reading's table is taken as the one this photo shows (tiles never leave the table)
#: only when this share of its tiles is read on the photo as they were, and it held this many: a
#: new game's table, or another table, shares far fewer (two random tables of 50 tiles share about
#: half). Fixed a priori, not tuned.
SAME_TABLE_SHARE = 0.8
SAME_TABLE_MIN_TILES = 6


def same_table(before: Sequence[Tile], now: Sequence[Tile]) -> bool:
    """Whether a table photo read as ``now`` shows the table of the last reading, ``before``
    (its tiles, and the ones played since): see :data:`SAME_TABLE_SHARE`."""
    if len(before) < SAME_TABLE_MIN_TILES:
        return False
    return sum((Counter(before) & Counter(now)).values()) >= SAME_TABLE_SHARE * len(before)


def unsure_rack_note(chips: Iterable[Chip], lang: str) -> str | None:
    """What a scorekeeper must check before a read rack goes on the score sheet (None when the
    reader was sure of every tile): a phantom joker saved unchecked costs its player 30 points."""
    unsure = [c.tile for c in chips if c.uncertain]
    if not unsure:
        return None
    return tr(
        "The camera was unsure of {tiles}. Check them against the photo before you score the round.",
        lang, tiles=", ".join(tile_label(t, lang) for t in unsure),
    )


def photo_notes(doubtful: int, look: PhotoLook, lang: str) -> tuple[str, ...]:
    """What a page says under a read photo: tiles too small or too blurred to read well
    (:meth:`vision.reading.PhotoLook.advice`), boxes left out."""
    note = doubtful_note(doubtful, lang)
    return look.advice(lang) + ((note,) if note else ())


def doubtful_note(count: int, lang: str) -> str | None:
    """What the dashed boxes on a read photo are (None when there are none)."""
    if count <= 0:
        return None
    return tr(
        "Dashed boxes on the photo ({count}): the camera found something there but thought it more likely "
        "not a tile, and left it out. If one is a tile, add it.",
        lang, count=count,
    )


@st.cache_resource(show_spinner=False)
def _reading_worker() -> ThreadPoolExecutor:
    """The one thread per server process that reads photos ahead."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="rummikub-read-ahead")


def _prefetcher() -> Prefetcher:
    """This session's readings ahead (each session its own: nothing read for one player is shown to another)."""
    prefetcher = session.get(PREFETCHER)
    if prefetcher is None:
        prefetcher = Prefetcher(read_with_profile, _reading_worker())
        session.put(PREFETCHER, prefetcher)
    return prefetcher


def _profile_and_notes(lang: str) -> tuple[TileProfile | None, tuple[str, ...]]:
    profile, note = _active_profile(lang)
    return profile, (note,) if note else ()


def _remembered() -> SessionMemory | None:
    from .tile_profiles import remembered

    return remembered()


def _scaled(box: Box, scale: float) -> Box:
    x1, y1, x2, y2 = box
    return (x1 * scale, y1 * scale, x2 * scale, y2 * scale)


def _active_profile(lang: str) -> tuple[TileProfile | None, str | None]:
    """The session's tile profile (None: the reader alone) and, when it cannot be used, why."""
    from vision.model_files import ModelFileError

    from .profile_store import ProfileError
    from .tile_profiles import active_name, active_profile

    try:
        return active_profile(), None
    except (ProfileError, ModelFileError) as err:
        log.warning("tile profile %r not used: %s", active_name(), err)
        return None, tr("The tile profile {name!r} was not used: {reason}", lang, name=active_name(), reason=error_text(err, lang))
