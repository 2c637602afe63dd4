"""Check a turn: record the table at the start of a turn, then compare the table at its end.

The start is kept in the session (:data:`app.turn_reading.TURN_START`) until the next one is
recorded, so the Timer page can show it when time runs out. Each problem is listed in words
and, when the tiles came from a photo, framed on that photo.
"""

from __future__ import annotations

import streamlit as st

from app import components as ui
from app import session
from app.photo_reading import InputSource, PhotoError, PhotoFailure, choose_input
from app.photos import left_out_note, photo_notes, read_ahead, read_upload
from app.rules_text import rules_summary
from app.turn_reading import TURN_START, TableReading, from_photo, from_text, highlight, melds_html, spot_boxes
from solver.explain import notation_error_text
from solver.i18n import error_text, tile_label, tr
from solver.tiles import NotationError, parse_tiles
from solver.turn_check import Side, TurnCheck, TurnCheckError, check_turn
from vision.reading import ReadingKind

RESULT = "turn_result"

lang = session.lang()
rules = session.rules()
ui.inject_css()
st.title(tr("Check a turn", lang))
st.caption(tr(
    "Photograph or type the table at the start of a turn, and again at its end: the app says whether "
    "the turn was legal and points at what is wrong.", lang,
))
st.caption(rules_summary(rules, lang))


def says(side: str, message: str, **params: object) -> str:
    """The messages about one of the two readings, each a whole sentence."""
    start = {
        "unreadable": tr("The photo of the start of the turn cannot be read: {reason}", lang, **params),
        "no-tiles": tr("No tiles found on the photo of the start of the turn. Try a closer photo, or type the table.", lang),
        "notation": tr("In the typed table at the start of the turn: {reason}", lang, **params),
        "empty": tr("Photograph or type the table at the start of the turn first.", lang),
    }
    end = {
        "unreadable": tr("The photo of the end of the turn cannot be read: {reason}", lang, **params),
        "no-tiles": tr("No tiles found on the photo of the end of the turn. Try a closer photo, or type the table.", lang),
        "notation": tr("In the typed table at the end of the turn: {reason}", lang, **params),
        "empty": tr("Photograph or type the table at the end of the turn.", lang),
    }
    return (start if side == "start" else end)[message]


def read_table(side: str, photo: bytes | None, text: str) -> TableReading | None:
    """The table from the photo (it wins over typing) or the typed melds; ``None`` after a message."""
    source = choose_input(photo is not None, text).source
    try:
        if source is InputSource.PHOTO:
            with st.spinner(tr("Reading the photo…", lang)):
                reading = from_photo(read_upload(photo, ReadingKind.TABLE, rules, lang))
            if reading.tile_count == 0:
                st.error(ui.plain(says(side, "no-tiles")))
                return None
            return reading
        if source is InputSource.TEXT:
            return from_text(text)
    except PhotoError as err:
        st.error(ui.plain(says(side, "unreadable", reason=error_text(err, lang))))
        return None
    except NotationError as err:
        st.error(ui.plain(says(side, "notation", reason=notation_error_text(err, lang))))
        return None
    st.info(says(side, "empty"))
    return None


def read_rack(photo: bytes | None, text: str) -> tuple | None:
    """The player's rack from the photo (it wins over typing) or the typed tiles; ``None`` when
    neither is given. Raises :class:`PhotoError` or :class:`NotationError`."""
    source = choose_input(photo is not None, text).source
    if source is InputSource.PHOTO:
        reading = read_upload(photo, ReadingKind.RACK, rules, lang)
        if reading.tile_count == 0:
            raise PhotoError("no tiles found on the photo", failure=PhotoFailure.NO_TILES)
        return tuple(chip.tile for row in reading.rows for chip in row)
    return parse_tiles(text) if source is InputSource.TEXT else None


# --- 1. the start of the turn ------------------------------------------------------------------

st.subheader(tr("1. The table at the start of the turn", lang))
start_text = st.text_area(
    tr("Table, typed (melds separated by |)", lang), key="turn_start_text", placeholder="r4 r5 r6 | k5 b5 o5", height=80,
)
start_photo = ui.photo_input(tr("Photo of the table at the start of the turn", lang), "turn_start_photo", lang)
read_ahead(start_photo, ReadingKind.TABLE, rules, lang)  # app/photo_prefetch.py
if st.button(tr("Record the start of the turn", lang), type="primary", key="turn_record"):
    recorded = read_table("start", start_photo, start_text)
    if recorded is not None:
        session.put(TURN_START, recorded)
        session.drop(RESULT)

start: TableReading | None = session.get(TURN_START)
if start is None:
    st.stop()
with st.expander(tr("Recorded start of the turn ({count} tiles)", lang, count=start.tile_count), expanded=False):
    ui.show_html(melds_html(start.melds, lang))
    if start.photo_jpeg is not None:
        st.image(start.photo_jpeg, width="stretch")
        for note in (*photo_notes(start.doubtful, start.look, lang), left_out_note(start.offers, lang)):
            if note:
                st.caption(note)

# --- 2. the end of the turn --------------------------------------------------------------------

st.divider()
st.subheader(tr("2. The table at the end of the turn", lang))
end_text = st.text_area(
    tr("Table, typed (melds separated by |)", lang), key="turn_end_text", placeholder="r4 r5 r6 r7 | k5 b5 o5", height=80,
)
end_photo = ui.photo_input(tr("Photo of the table at the end of the turn", lang), "turn_end_photo", lang)
read_ahead(end_photo, ReadingKind.TABLE, rules, lang)  # app/photo_prefetch.py
with st.expander(tr("The player's rack at the start of the turn (optional)", lang)):
    rack_text = st.text_input(tr("Rack, typed", lang), key="turn_rack_text", placeholder="r7 j k13")
    rack_photo = ui.photo_input(tr("Photo of the rack", lang), "turn_rack_photo", lang)
    read_ahead(rack_photo, ReadingKind.RACK, rules, lang)  # app/photo_prefetch.py
opened = st.toggle(tr("The player had made the initial meld before this turn", lang), value=True, key="turn_opened")

if st.button(tr("Check the turn", lang), type="primary", key="turn_check"):
    session.drop(RESULT)
    end = read_table("end", end_photo, end_text)
    try:
        rack = read_rack(rack_photo, rack_text)
    except PhotoError as err:
        st.error(ui.plain(tr("The rack photo cannot be read: {reason}", lang, reason=error_text(err, lang))))
        end = None
    except NotationError as err:
        st.error(ui.plain(tr("In the typed rack: {reason}", lang, reason=notation_error_text(err, lang))))
        end = None
    if end is not None:
        try:
            session.put(RESULT, (end, check_turn(start.melds, end.melds, rack, opened, rules)))
        except TurnCheckError as err:
            st.error(ui.plain(tr("The turn cannot be checked: {reason}.", lang, reason=error_text(err, lang))))

result: tuple[TableReading, TurnCheck] | None = session.get(RESULT)
if result is None:
    st.stop()
end, check = result

# --- 3. the verdict ----------------------------------------------------------------------------

st.divider()
played = ", ".join(tile_label(t, lang) for t in check.played)
if check.legal and check.played:
    st.success(tr("The turn is legal. Played: {tiles}.", lang, tiles=played))
elif check.legal:
    st.success(tr("The turn is legal: no tile was played, so the player draws one.", lang))
else:
    st.error(tr("The turn is not legal:", lang) + "\n" + "\n".join(f"- {p.message(lang)}" for p in check.problems))
    if check.played:
        st.caption(tr("Added to the table: {tiles}.", lang, tiles=played))
if check.initial_meld_value is not None:
    st.caption(tr("The initial meld is worth {points} points.", lang, points=check.initial_meld_value))

spots = [s for p in check.problems for s in p.spots]
for side, reading, caption in (
    (Side.END, end, tr("The end of the turn, problems framed", lang)),
    (Side.START, start, tr("The start of the turn, problems framed", lang)),
):
    marked = [(s.meld, s.index) for s in spots if s.side is side]
    if not marked and side is Side.START:
        continue
    st.markdown(f"**{caption}**")
    ui.show_html(melds_html(reading.melds, lang, marked))
    if reading.photo_jpeg is not None:
        st.image(highlight(reading.photo_jpeg, spot_boxes(reading, spots, side)), width="stretch")
        for note in (*photo_notes(reading.doubtful, reading.look, lang), left_out_note(reading.offers, lang)):
            if note:
                st.caption(note)

if check.legal and st.button(tr("Next turn: this table is the new start", lang), key="turn_next"):
    session.put(TURN_START, end)
    session.drop(RESULT)
    st.rerun()
