"""Check a turn: record the table at the start of a turn, then compare the table at its end.

The start is kept in the session (:data:`app.turn_reading.TURN_START`) until the next one is
recorded, so the Timer page can show it when time runs out. Each problem is listed in words
and, when the tiles came from a photo, framed on that photo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import streamlit as st

from app import components as ui
from app import session, tile_profiles
from app.editing import TableAndRack, keeps_fixes, not_added
from app.photo_reading import InputSource, PhotoError, PhotoFailure, choose_input
from app.photos import photo_notes, read_ahead, read_together, read_upload, same_table
from app.rules_text import rules_summary
from app.turn_reading import TURN_END, TURN_START, TableReading, TurnEnd, from_photo, from_text, highlight, melds_html, spot_boxes
from solver.explain import notation_error_text
from solver.i18n import error_text, tile_label, tr
from solver.tiles import NotationError, Tile
from solver.turn_check import Side, TurnCheckError, check_turn
from vision.reading import ReadingKind

#: Session key of the counter that gives every reading and every fix of one its own editor keys.
REVISIONS = "turn_revisions"

#: Whether this run of the page has drawn the teaching switch and the memory line (:func:`fix_reading`).
memory_drawn = False

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


def next_revision() -> int:
    """A number no reading or fix on this page has had in this session (see :attr:`TableReading.revision`)."""
    revision = int(session.get(REVISIONS, 0)) + 1
    session.put(REVISIONS, revision)
    return revision


def read_table(
    side: str, photo: bytes | None, text: str, current: TableReading | None, before: Sequence[Tile] = (),
) -> TableReading | None:
    """The table from the photo (it wins over typing) or the typed melds; ``None`` after a message.
    The ``current`` reading of this side when it was read from the same inputs and fixed since.
    ``before``: the sure tiles of the start of the turn, which a photo of the end of the turn holds
    (no tile may leave the table), so it is read as the Play page reads the next turn's photo
    (:func:`app.photos.read_together`, ``on_table_before``) when it shows that table."""
    inputs = (hash(photo), text)
    if keeps_fixes(current, inputs):
        return current
    source = choose_input(photo is not None, text).source
    try:
        if source is InputSource.PHOTO:
            with st.spinner(tr("Reading the photo…", lang)):
                read = read_upload(photo, ReadingKind.TABLE, rules, lang)
                if same_table(before, [c.tile for c in read.chips]):
                    read = read_together({ReadingKind.TABLE: read}, rules, on_table_before=before)[ReadingKind.TABLE]
                reading = from_photo(read, ReadingKind.TABLE, next_revision(), inputs)
            if reading.tile_count == 0:
                st.error(ui.plain(says(side, "no-tiles")))
                return None
            return reading
        if source is InputSource.TEXT:
            return from_text(text, ReadingKind.TABLE, next_revision(), inputs)
    except PhotoError as err:
        st.error(ui.plain(says(side, "unreadable", reason=error_text(err, lang))))
        return None
    except NotationError as err:
        st.error(ui.plain(says(side, "notation", reason=notation_error_text(err, lang))))
        return None
    st.info(says(side, "empty"))
    return None


def read_rack(photo: bytes | None, text: str, current: TableReading | None, table: Sequence[Tile] = ()) -> TableReading | None:
    """The player's rack from the photo (it wins over typing) or the typed tiles; ``None`` when
    neither is given; the ``current`` one when read from the same inputs and fixed since. The rack
    and the ``table`` at the start of the turn (its sure tiles) hold each tile at most as often as
    the game does, so the photo is read with them (:func:`app.photos.read_together`), as the Play
    page reads a rack with its table. Raises :class:`PhotoError` or :class:`NotationError`."""
    inputs = (hash(photo), text)
    if keeps_fixes(current, inputs):
        return current
    source = choose_input(photo is not None, text).source
    if source is InputSource.PHOTO:
        reading = read_upload(photo, ReadingKind.RACK, rules, lang)
        if reading.tile_count == 0:
            raise PhotoError("no tiles found on the photo", failure=PhotoFailure.NO_TILES)
        reading = read_together({ReadingKind.RACK: reading}, rules, table)[ReadingKind.RACK]
        return from_photo(reading, ReadingKind.RACK, next_revision(), inputs)
    return from_text(text, ReadingKind.RACK, next_revision(), inputs) if source is InputSource.TEXT else None


def editor_key(side: str, reading: TableReading) -> str:
    return f"turn_fix_{side}_{reading.revision}"


def put_reading(side: str, new: TableReading) -> None:
    """Make ``new`` the reading of ``side`` ("start", "end" or "rack"): the last one's editor state goes."""
    if side == "start":
        old = session.get(TURN_START)
        session.put(TURN_START, new)
    else:
        end: TurnEnd = session.get(TURN_END)
        old = end.table if side == "end" else end.rack
        session.put(TURN_END, replace(end, table=new) if side == "end" else replace(end, rack=new))
    if old is not None:
        session.forget(editor_key(side, old) + "_")


def drop_end(keep: tuple[TableReading | None, ...] = ()) -> None:
    """Drop the end of the turn as read, and its editors' state (but for the readings in ``keep``,
    carried over to the next one)."""
    end: TurnEnd | None = session.get(TURN_END)
    session.drop(TURN_END)
    for side, old in (("end", end.table), ("rack", end.rack)) if end is not None else ():
        if old is not None and all(old is not k for k in keep):
            session.forget(editor_key(side, old) + "_")


def show_photo(reading: TableReading, framed: bytes | None = None) -> None:
    """The reading's photo (``framed``: with the problem tiles framed) and what the player should know of it."""
    if reading.photo_jpeg is None:
        return
    st.image(framed or reading.photo_jpeg, width="stretch")
    for note in photo_notes(reading.doubtful, reading.look, lang):
        if note:
            st.caption(note)


def fix_reading(side: str, reading: TableReading) -> None:
    """The fix editor of a reading from a photo: change, move, remove or add a tile, or add one the
    camera left out; each fix is remembered for the session (and taught to the chosen tile profile
    when the player switched that on), as on the Play page."""
    if reading.photo_jpeg is None:
        return
    table_rack = reading.table_rack

    def apply(new: TableAndRack) -> None:
        tile_profiles.learn_from_fix(table_rack, new, reading.offers, reading.samples_by_kind, lang)
        put_reading(side, reading.fixed_to(new, next_revision()))

    global memory_drawn
    if not memory_drawn:  # one teaching switch and one memory line per page, in the first editor drawn
        ui.fix_memory("turn", lang)
        memory_drawn = True
    rows = ui.EditorRows.RACK if reading.kind is ReadingKind.RACK else ui.EditorRows.TABLE
    ui.fix_editor(editor_key(side, reading), table_rack, apply, lang, rows=rows, offers=not_added(table_rack, reading.offers))
    if reading.fixed:
        st.button(
            tr("Undo my fixes", lang), key=f"turn_undo_{side}", on_click=put_reading,
            args=(side, reading.fixed_to(reading.original, next_revision())),
            help=tr("Back to the tiles as they were read.", lang),
        )


def needs_a_look(reading: TableReading) -> bool:
    """Whether a reading has a tile marked unsure, or a box left out that may be a tile."""
    return bool(reading.table_rack.uncertain_places) or bool(not_added(reading.table_rack, reading.offers))


# --- 1. the start of the turn ------------------------------------------------------------------

st.subheader(tr("1. The table at the start of the turn", lang))
start_text = st.text_area(
    tr("Table, typed (melds separated by |)", lang), key="turn_start_text", placeholder="r4 r5 r6 | k5 b5 o5", height=80,
)
start_photo = ui.photo_input(tr("Photo of the table at the start of the turn", lang), "turn_start_photo", lang)
read_ahead(start_photo, ReadingKind.TABLE, rules, lang)  # app/photo_prefetch.py
if st.button(tr("Record the start of the turn", lang), type="primary", key="turn_record"):
    recorded = read_table("start", start_photo, start_text, session.get(TURN_START))
    if recorded is not None:
        put_reading("start", recorded)
        drop_end()

start: TableReading | None = session.get(TURN_START)
if start is None:
    st.stop()
with st.expander(tr("Recorded start of the turn ({count} tiles)", lang, count=start.tile_count), expanded=needs_a_look(start)):
    ui.show_html(melds_html(start.table_rack.melds, lang))
    ui.reading_legend(start.table_rack.chips, lang)
    show_photo(start)
    fix_reading("start", start)

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
    before: TurnEnd | None = session.get(TURN_END)
    end = read_table("end", end_photo, end_text, before.table if before else None, start.table_rack.sure_table_tiles)
    try:
        rack = read_rack(rack_photo, rack_text, before.rack if before else None, start.table_rack.sure_table_tiles)
    except PhotoError as err:
        st.error(ui.plain(tr("The rack photo cannot be read: {reason}", lang, reason=error_text(err, lang))))
        end = None
    except NotationError as err:
        st.error(ui.plain(tr("In the typed rack: {reason}", lang, reason=notation_error_text(err, lang))))
        end = None
    drop_end(keep=(end, rack))  # a reading read again starts a new editor; one kept with its fixes keeps its own
    if end is not None:
        try:
            check_turn(start.melds, end.melds, None if rack is None else rack.rack, opened, rules)
        except TurnCheckError as err:
            st.error(ui.plain(tr("The turn cannot be checked: {reason}.", lang, reason=error_text(err, lang))))
        else:
            session.put(TURN_END, TurnEnd(end, rack, opened))

result: TurnEnd | None = session.get(TURN_END)
if result is None:
    st.stop()
end = result.table
try:
    check = check_turn(start.melds, end.melds, None if result.rack is None else result.rack.rack, result.opened, rules)
except TurnCheckError as err:  # after a fix that made the two readings look like two tables
    st.error(ui.plain(tr("The turn cannot be checked: {reason}.", lang, reason=error_text(err, lang))))
    check = None

# --- 3. the verdict ----------------------------------------------------------------------------

st.divider()
if check is not None:
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
    unsure = [r for r in (start, end, result.rack) if r is not None and r.table_rack.uncertain_places]
    if unsure:
        st.warning(tr(
            "Some tiles were read unsure (marked): check them against the photos, and fix them below, before trusting the verdict.",
            lang,
        ))

spots = [s for p in check.problems for s in p.spots] if check is not None else []
for side, reading, caption in (
    (Side.END, end, tr("The end of the turn, problems framed", lang)),
    (Side.START, start, tr("The start of the turn, problems framed", lang)),
):
    marked = [(s.meld, s.index) for s in spots if s.side is side]
    if not marked and side is Side.START:
        continue
    st.markdown(f"**{caption}**")
    ui.show_html(melds_html(reading.table_rack.melds, lang, marked))
    ui.reading_legend(reading.table_rack.chips, lang)
    if reading.photo_jpeg is not None:
        show_photo(reading, highlight(reading.photo_jpeg, spot_boxes(reading, spots, side)))

if end.photo_jpeg is not None:
    with st.expander(tr("Fix a tile at the end of the turn", lang), expanded=needs_a_look(end)):
        fix_reading("end", end)
if result.rack is not None and result.rack.photo_jpeg is not None:
    rack = result.rack
    st.markdown(f"**{tr('Rack as read', lang)}**")
    ui.show_html(ui.row_html(tr("Rack", lang), [ui.reading_chip_html(c, lang) for c in rack.table_rack.rack]))
    ui.reading_legend(rack.table_rack.chips, lang)
    with st.expander(tr("Fix a tile of the rack", lang), expanded=needs_a_look(rack)):
        show_photo(rack)
        fix_reading("rack", rack)

if check is not None and check.legal and st.button(tr("Next turn: this table is the new start", lang), key="turn_next"):
    put_reading("start", end)
    drop_end()
    st.rerun()
