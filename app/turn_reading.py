"""The table as the "Check a turn" page holds it: melds, and where each tile lay on the photo.

A :class:`TableReading` comes from a photo (then every tile has its box on the annotated photo)
or from typed notation (no photo, no boxes). The page keeps the one taken at the start of the
turn under :data:`TURN_START` in the session, where the Timer page finds it when time runs out
and shows it meld by meld, so the players can put the table back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import streamlit as st

from solver.i18n import tr
from solver.tiles import Tile, parse_melds
from solver.turn_check import Side, Spot
from vision.reading import PhotoLook

from .components import chip_html, inject_css, row_html, show_html
from .editing import Offer
from .photos import Box, PhotoReading

#: Session key of the table at the start of the turn (a :class:`TableReading`).
TURN_START = "turn_start"
#: The problem boxes' colour on the photo (BGR) and their margin around the tile.
HIGHLIGHT_BGR = (43, 24, 208)
MARGIN_PX = 6


@dataclass(frozen=True)
class TableReading:
    """Melds in table order, each tile's box (``()`` when typed), the annotated photo if any, how
    many boxes it shows dashed (left out as more likely not tiles), and how long and how blurred its
    tiles are in the photo (:attr:`app.photos.PhotoReading.look`; nothing known when typed)."""

    melds: tuple[tuple[Tile, ...], ...]
    boxes: tuple[tuple[Box, ...], ...] = ()
    photo_jpeg: bytes | None = None
    doubtful: int = 0
    look: PhotoLook = PhotoLook()
    #: The boxes the photo's reading left out that may be tiles (:attr:`app.photos.PhotoReading.offers`).
    offers: tuple[Offer, ...] = ()

    @property
    def tile_count(self) -> int:
        return sum(len(m) for m in self.melds)


def from_photo(reading: PhotoReading) -> TableReading:
    return TableReading(
        tuple(tuple(chip.tile for chip in row) for row in reading.rows), reading.boxes, reading.annotated_jpeg,
        reading.doubtful, reading.look, reading.offers,
    )


def from_text(text: str) -> TableReading:
    """Typed melds separated by ``|`` or new lines; raises :class:`solver.tiles.NotationError`."""
    return TableReading(parse_melds(text))


def spot_boxes(reading: TableReading, spots: Iterable[Spot], side: Side) -> tuple[Box, ...]:
    """The photo boxes of the ``spots`` on ``side`` (none for a typed table)."""
    if not reading.boxes:
        return ()
    return tuple(reading.boxes[s.meld][s.index] for s in spots if s.side is side)


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


def melds_html(melds: Sequence[Sequence[Tile]], lang: str, marked: Iterable[tuple[int, int]] = ()) -> str:
    """The table meld by meld as tiles; ``marked`` (meld, index) pairs are drawn as problems."""
    marked = set(marked)
    rows = []
    for m, meld in enumerate(melds):
        chips = [chip_html(t, lang) for t in meld]
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
    show_html(melds_html(start.melds, lang))
