"""The table as the "Check a turn" page holds it: melds, and where each tile lay on the photo.

A :class:`TableReading` comes from a photo (then every tile has its box on the annotated photo)
or from typed notation (no photo, no boxes). The page keeps the one taken at the start of the
turn under :data:`TURN_START` in the session, where the Timer page finds it when time runs out
and shows it meld by meld, so the players can put the table back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import streamlit as st

from solver.i18n import tr
from solver.tiles import Tile, parse_melds, parse_tiles
from solver.turn_check import Side, Spot
from vision.profiles import TileSample
from vision.reading import PhotoLook, ReadingKind

from .components import inject_css, reading_chip_html, row_html, show_html
from .editing import Chip, Offer, TableAndRack
from .photos import Box, PhotoReading

#: Session key of the table at the start of the turn (a :class:`TableReading`).
TURN_START = "turn_start"
#: Session key of the end of the turn as read and fixed (a :class:`TurnEnd`).
TURN_END = "turn_end"
#: The problem boxes' colour on the photo (BGR) and their margin around the tile.
HIGHLIGHT_BGR = (43, 24, 208)
MARGIN_PX = 6


@dataclass(frozen=True)
class TableReading:
    """A table's melds (or a rack) as the page holds it: as read or typed (``original``), and as the
    player fixed it since (``table_rack``, one :class:`app.editing.Chip` per tile, so an unsure tile
    stays marked); from a photo, the annotated photo, each photo tile's box on it (by its chip's
    ``sample``), how many boxes it shows dashed, how long and how blurred its tiles are
    (:attr:`app.photos.PhotoReading.look`), the boxes left out that may be tiles, and the tiles'
    crops (what the session remembers of a fix). ``revision`` keys its fix editor's widgets."""

    original: TableAndRack
    table_rack: TableAndRack
    #: A table's melds or a rack; its photo kind is what its chips' ``sample`` keys name.
    kind: ReadingKind = ReadingKind.TABLE
    photo_jpeg: bytes | None = None
    boxes: tuple[tuple[tuple[str, int], Box], ...] = ()
    doubtful: int = 0
    look: PhotoLook = PhotoLook()
    #: The boxes the photo's reading left out that may be tiles (:attr:`app.photos.PhotoReading.offers`).
    offers: tuple[Offer, ...] = ()
    samples: tuple[TileSample, ...] = field(default=(), compare=False, repr=False)
    revision: int = 0
    #: What it was read from (the page's inputs): reading the same again keeps the player's fixes
    #: (:func:`app.editing.keeps_fixes`).
    source: object = None

    @property
    def melds(self) -> tuple[tuple[Tile, ...], ...]:
        return self.table_rack.table_tiles

    @property
    def rack(self) -> tuple[Tile, ...]:
        return self.table_rack.rack_tiles

    @property
    def tile_count(self) -> int:
        return len(self.table_rack.places())

    @property
    def fixed(self) -> bool:
        return self.table_rack != self.original

    @property
    def samples_by_kind(self) -> Mapping[str, Sequence[TileSample]]:
        """Its photo tiles' crops as :func:`app.tile_profiles.learn_from_fix` takes them."""
        return {self.kind.value: self.samples} if self.samples else {}

    def box(self, chip: Chip) -> Box | None:
        """Where the photo tile ``chip`` is on the annotated photo (None when typed or added)."""
        return dict(self.boxes).get(chip.sample) if chip.sample is not None else None

    def fixed_to(self, table_rack: TableAndRack, revision: int) -> "TableReading":
        return replace(self, table_rack=table_rack, revision=revision)


@dataclass(frozen=True)
class TurnEnd:
    """The end of the turn as read and fixed: the table, the player's rack at the start of the turn
    (None when not given) and whether they had made the initial meld. The page works out the
    verdict from these and the start each time it is drawn, so a fix to any of them shows at once."""

    table: TableReading
    rack: TableReading | None
    opened: bool


def from_photo(
    reading: PhotoReading, kind: ReadingKind = ReadingKind.TABLE, revision: int = 0, source: object = None,
) -> TableReading:
    """A photo's reading: its rows are the melds of a table, or one rack."""
    if kind is ReadingKind.RACK:
        read = TableAndRack(rack=reading.chips)
    else:
        read = TableAndRack(reading.rows)
    boxes = tuple(
        (chip.sample, box) for row, row_boxes in zip(reading.rows, reading.boxes) for chip, box in zip(row, row_boxes)
        if chip.sample is not None
    )
    return TableReading(
        read, read, kind, reading.annotated_jpeg, boxes, reading.doubtful, reading.look, reading.offers, reading.samples, revision,
        source,
    )


def from_text(text: str, kind: ReadingKind = ReadingKind.TABLE, revision: int = 0, source: object = None) -> TableReading:
    """Typed melds separated by ``|`` or new lines (a rack: typed tiles); raises
    :class:`solver.tiles.NotationError`."""
    typed = TableAndRack.typed(rack=parse_tiles(text)) if kind is ReadingKind.RACK else TableAndRack.typed(parse_melds(text))
    return TableReading(typed, typed, kind, revision=revision, source=source)


def spot_boxes(reading: TableReading, spots: Iterable[Spot], side: Side) -> tuple[Box, ...]:
    """The photo boxes of the ``spots`` on ``side`` (none for a typed table or an added tile)."""
    boxes = (reading.box(reading.table_rack.melds[s.meld][s.index]) for s in spots if s.side is side)
    return tuple(b for b in boxes if b is not None)


def highlight(photo: bytes, boxes: Sequence[Box]) -> bytes:
    """The photo (encoded: the page's JPEG preview) as a PNG with a thick frame around each box,
    so the tiles a problem is about stand out."""
    image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("not an image")
    thickness = max(3, round(max(image.shape[:2]) / 250))
    for x1, y1, x2, y2 in boxes:
        top_left = (int(x1) - MARGIN_PX, int(y1) - MARGIN_PX)
        bottom_right = (int(x2) + MARGIN_PX, int(y2) + MARGIN_PX)
        cv2.rectangle(image, top_left, bottom_right, HIGHLIGHT_BGR, thickness)
    ok, encoded = cv2.imencode(".png", image)
    if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 array
        raise ValueError("could not draw the photo")
    return encoded.tobytes()


def melds_html(melds: Sequence[Sequence[Chip]], lang: str, marked: Iterable[tuple[int, int]] = ()) -> str:
    """The table meld by meld as tiles, unsure ones marked; ``marked`` (meld, index) pairs are drawn as problems."""
    marked = set(marked)
    rows = []
    for m, meld in enumerate(melds):
        chips = [reading_chip_html(c, lang) for c in meld]
        rows.append(row_html(tr("Meld {n}", lang, n=m + 1), chips, bad=any((m, i) in marked for i in range(len(meld)))))
    return "".join(rows)


def show_turn_start(lang: str) -> None:
    """The table as it was at the start of the turn, meld by meld (to put it back), or how to
    have it here next time."""
    start: TableReading | None = st.session_state.get(TURN_START)
    if start is None:
        st.caption(tr("Record the table on the “Check a turn” page at the start of each turn to see it here.", lang))
        return
    st.markdown(f"**{tr('The table at the start of the turn', lang)}**")
    inject_css()
    show_html(melds_html(start.table_rack.melds, lang))
