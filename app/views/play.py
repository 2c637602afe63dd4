"""Play: read the table and the rack (photo or typed), let the player fix it, suggest a move.

The reading and its fixes are one :class:`app.editing.Reading`: a reading of other inputs
starts afresh, pressing *Read the tiles* on the same inputs keeps the fixes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import streamlit as st

import solver
from app import components as ui
from app import session, tile_profiles
from app.editing import Chip, Offer, Place, TableAndRack, Reading, keeps_fixes, new_reading, not_added
from app.photo_reading import InputSource, PhotoError, choose_input
from app.photos import PhotoReading, photo_notes, read_ahead, read_together, read_upload, same_table
from app.rules_text import rules_summary
from solver.explain import (
    impossible_tiles_text,
    no_move_text,
    notation_error_text,
    play_summary,
    problem_text,
    time_limit_note,
    unsure_move_text,
    unsure_tiles_in_move,
)
from solver.i18n import error_text, tile_label, tr
from solver.rules import ImpossibleStateError, RuleSet, check_tile_limits
from solver.position import Objective, Position
from solver.suggestion import RACK, Action, Suggestion
from solver.tiles import NotationError, Tile, parse_melds, parse_tiles
from vision.reading import ReadingKind

READING = "play_reading"
ANSWER = "play_answer"
EDITOR = "play_edit"
#: Per photo kind, the crops and embeddings of its tiles (a chip's ``sample`` points here).
SAMPLES = "play_samples"
#: The line that says which tiles followed the player's last colour change (:func:`follow`).
FOLLOWED = "play_followed"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """A suggestion and the exact question it answers (so a stale one is never shown)."""

    question: tuple
    suggestion: Suggestion


lang = session.lang()
rules = session.rules()
st.title(tr("What should I play?", lang))
st.caption(tr("Photograph or type the table and your rack, check the reading, then ask for the best move.", lang))

# --- 1. inputs ---------------------------------------------------------------------------------

table_col, rack_col = st.columns(2)
with table_col:
    st.subheader(tr("Table", lang))
    table_text = st.text_area(
        tr("Table, typed (melds separated by |)", lang), key="play_table_text",
        placeholder="r4 r5 r6 | k5 b5 o5", height=90,
    )
    table_photo = ui.photo_input(tr("Photo of the table", lang), "play_table_photo", lang)
with rack_col:
    st.subheader(tr("Your rack", lang))
    rack_text = st.text_area(
        tr("Rack, typed", lang), key="play_rack_text", placeholder="r7 j k13", height=90,
    )
    rack_photo = ui.photo_input(tr("Photo of your rack", lang), "play_rack_photo", lang)

inputs = (table_text, rack_text, hash(table_photo), hash(rack_photo))
# A photo starts reading as soon as it arrives (app.photo_prefetch): while the player types or
# photographs the rack, so "Read the tiles" has little left to wait for. Not once these inputs are
# read: a tile changed then (remembered for the session) would only start the same photo again.
if getattr(session.get(READING), "source", None) != inputs:
    read_ahead(table_photo, ReadingKind.TABLE, rules, lang)
    read_ahead(rack_photo, ReadingKind.RACK, rules, lang)


def says(kind: str, message: str, **params: object) -> str:
    """One of the messages about the table or the rack, each a whole sentence (so that
    languages that inflect "table"/"rack" translate them properly)."""
    table = {
        "photo-wins": tr("Used the table photo; the typed table was ignored.", lang),
        "reading": tr("Reading the table photo…", lang),
        "unreadable": tr("The table photo cannot be read: {reason}", lang, **params),
        "no-tiles": tr("No tiles found on the table photo. Try a closer, sharper photo, or type the tiles.", lang),
        "notation": tr("In the typed table: {reason}", lang, **params),
    }
    rack = {
        "photo-wins": tr("Used the rack photo; the typed rack was ignored.", lang),
        "reading": tr("Reading the rack photo…", lang),
        "unreadable": tr("The rack photo cannot be read: {reason}", lang, **params),
        "no-tiles": tr("No tiles found on the rack photo. Try a closer, sharper photo, or type the tiles.", lang),
        "notation": tr("In the typed rack: {reason}", lang, **params),
    }
    return (table if kind == "table" else rack)[message]


def read_inputs(
    before: tuple[Tile, ...] = (),
) -> tuple[TableAndRack, tuple[tuple[str, bytes], ...], tuple[str, ...], tuple[Offer, ...]] | None:
    """Turn the photos and typed text into one table and rack to confirm, with the annotated photos,
    the reader's notes and the boxes it left out that may be tiles; report what went wrong (then
    ``None``). ``before``: the table of the last reading (:func:`last_table`), which a photo of the
    same table holds."""
    notes: list[str] = []
    offers: list[Offer] = []
    photos: dict[str, bytes] = {}
    samples: dict[str, tuple] = {}
    errors: list[str] = []
    melds: tuple = ()
    rack: tuple = ()
    sources = [(ReadingKind.TABLE, table_photo, table_text), (ReadingKind.RACK, rack_photo, rack_text)]
    read: dict[ReadingKind, PhotoReading] = {}
    for kind, photo, text in sources:
        choice = choose_input(photo is not None, text)
        if choice.text_ignored:
            notes.append(says(kind.value, "photo-wins"))
        if choice.source is InputSource.PHOTO:
            try:
                with st.spinner(says(kind.value, "reading")):
                    reading = read_upload(photo, kind, rules, lang)
            except PhotoError as err:
                errors.append(says(kind.value, "unreadable", reason=error_text(err, lang)))
                continue
            if reading.tile_count == 0:
                errors.append(says(kind.value, "no-tiles"))
                continue
            read[kind] = reading
        elif choice.source is InputSource.TEXT:
            try:
                if kind is ReadingKind.TABLE:
                    melds = tuple(tuple(Chip(t) for t in m) for m in parse_melds(text))
                else:
                    rack = tuple(Chip(t) for t in parse_tiles(text))
            except NotationError as err:
                errors.append(says(kind.value, "notation", reason=notation_error_text(err, lang)))
    if errors:
        for message in errors:
            st.error(ui.plain(message))
        return None
    # One turn of one game: the copy limits hold over both photos and the typed tiles together, and
    # a photo of the table of the last reading holds that table's tiles.
    typed = [c.tile for c in (*rack, *(c for m in melds for c in m))]
    table_now = [c.tile for c in read[ReadingKind.TABLE].chips] if ReadingKind.TABLE in read else []
    carried = before if same_table(before, table_now) else ()
    for kind, reading in read_together(read, rules, typed, on_table_before=carried).items():
        photos[kind.value] = reading.annotated_jpeg
        samples[kind.value] = reading.samples
        notes.extend(ui.plain(note) for note in reading.notes)
        notes.extend(photo_notes(reading.doubtful, reading.look, lang))
        offers.extend(reading.offers)
        if kind is ReadingKind.TABLE:
            melds = reading.rows
        else:
            rack = reading.chips
    if not melds and not rack:
        st.info(tr("Type or photograph the table and your rack first.", lang))
        return None
    session.put(SAMPLES, samples)  # what teaching the tile profile learns from (see teach)
    return TableAndRack(melds, rack), tuple(photos.items()), tuple(notes), tuple(offers)


def editor_key(reading: Reading) -> str:
    """The fix editor's widget keys for this reading as it is now (see :class:`Reading`)."""
    return f"{EDITOR}_{reading.revision}"


def replace_reading(new: Reading) -> None:
    """Make ``new`` the reading: the last one's editor state and answer go with it."""
    old: Reading | None = session.get(READING)
    if old is not None:
        session.forget(editor_key(old) + "_")
    session.put(READING, new)
    session.drop(ANSWER)


def last_table(current: Reading | None) -> tuple[Tile, ...]:
    """The tiles of the last reading's table that the player left unmarked (:attr:`TableAndRack.sure_table_tiles`)."""
    return () if current is None else current.table_rack.sure_table_tiles


def read_pressed() -> None:
    current: Reading | None = session.get(READING)
    if keeps_fixes(current, inputs):
        st.info(tr(
            "These photos and tiles were read already: your fixes are kept. "
            "To go back to the reading as it came, use “Undo my fixes” below.", lang,
        ))
        return
    read = read_inputs(last_table(current))
    if read is None:
        return
    if current is not None and current.fixed:
        st.info(tr("A new reading: the fixes made to the previous one do not apply to it.", lang))
    replace_reading(new_reading(current, inputs, *read))


if st.button(tr("Read the tiles", lang), type="primary", key="play_read", width="stretch"):
    read_pressed()

reading: Reading | None = session.get(READING)
if reading is None:
    st.stop()
table_rack = reading.table_rack

if reading.source != inputs:
    st.info(tr("The photos or typed tiles changed since they were read: press “Read the tiles” again to use them.", lang))

# --- 2. the reading, and fixing it -------------------------------------------------------------

st.divider()
st.subheader(tr("Check the reading", lang))
if reading.photos:
    cols = st.columns(len(reading.photos))
    for col, (kind, png) in zip(cols, reading.photos):
        caption = tr("Table as read", lang) if kind == "table" else tr("Rack as read", lang)
        col.image(png, caption=caption, width="stretch")
if reading.notes:
    st.warning("\n".join(f"- {note}" for note in reading.notes))

check = solver.check_table(table_rack.table_tiles, rules)
rows = []
for m, chips in enumerate(table_rack.melds):
    meld_check = check.melds[m]
    chips_html = [ui.reading_chip_html(c, lang) for c in chips]
    rows.append(ui.row_html(tr("Meld {n}", lang, n=m + 1), chips_html, bad=not meld_check.valid))
if not table_rack.melds:
    rows.append(ui.row_html(tr("Table", lang), []) + f'<p class="rk-label">{tr("empty", lang)}</p>')
rows.append(ui.row_html(tr("Rack", lang), [ui.reading_chip_html(c, lang) for c in table_rack.rack]))
ui.show_html("".join(rows))
ui.reading_legend(table_rack.chips, lang)

doubts = [p for p in table_rack.places() if table_rack.chip(p).uncertain or table_rack.chip(p).corrected]
if doubts:
    with st.expander(tr("Tiles to check ({n})", lang, n=len(doubts)), expanded=len(doubts) <= 6):
        st.markdown("\n".join(f"- {ui.place_label(table_rack, p, lang)} — {ui.chip_note(table_rack.chip(p), lang)}" for p in doubts))


def excess_tiles(table_rack: TableAndRack, rules: RuleSet) -> tuple[Tile, ...]:
    """Tiles of which the table and the rack together hold more copies than the game has
    (three red 7s; three jokers in a two-joker game): the check a position makes."""
    try:
        check_tile_limits([t for meld in table_rack.table_tiles for t in meld] + list(table_rack.rack_tiles), rules)
    except ImpossibleStateError as err:
        return err.tiles
    return ()


excess = excess_tiles(table_rack, rules)
table_ok = check.valid
table_problems = [
    tr("Meld {n} is not valid: {reasons}", lang, n=m + 1,
       reasons="; ".join(problem_text(p, lang) for p in check.melds[m].problems))
    for m in check.invalid
]
for tile in excess:  # each with where it lies, so the misread copy is found without a search
    where = "; ".join(ui.place_label(table_rack, p, lang) for p in table_rack.places() if table_rack.chip(p).tile == tile)
    table_problems.append(tr("More copies than the game has: {tiles}", lang, tiles=tile_label(tile, lang)) + f" — {where}")
if table_problems:
    st.error("\n".join(f"- {line}" for line in table_problems))


def likeliest_extra_copy(table_rack: TableAndRack, excess: tuple[Tile, ...]) -> Place | None:
    """Of the copies of tiles held too often, the one the camera was least sure of (typed tiles
    count as sure): where the fix editor opens, since it is the likeliest misread."""
    copies = [p for p in table_rack.places() if table_rack.chip(p).tile in excess]
    if not copies:
        return None
    return min(copies, key=lambda p: 1.0 if table_rack.chip(p).confidence is None else table_rack.chip(p).confidence)


def set_table_rack(new: TableAndRack) -> None:
    tile_profiles.learn_from_fix(table_rack, new, reading.offers, session.get(SAMPLES, {}), lang)
    replace_reading(reading.fixed_to(follow(new)))


def follow(new: TableAndRack) -> TableAndRack:
    """``new`` with the photo's tiles that look as much like the colour the player just set changed
    too, marked for the player to check, and a line that says so (:func:`app.tile_profiles.follow_colour`)."""
    try:
        followed_to, followed = tile_profiles.follow_colour(table_rack, new, session.get(SAMPLES, {}), rules)
    except Exception:  # noqa: BLE001 - the player's own fix must still apply; the log keeps the reason
        log.warning("following a colour change failed", exc_info=True)
        return new
    if followed:  # the editor changes one tile at a time: one change, one line
        read, set_to, count = followed[-1]
        session.put(FOLLOWED, tr(
            "Tiles of this photo changed with your {read} → {tile}, as they look at least as much like that colour: {count}. "
            "They are marked: check them.",
            lang, read=tile_label(read, lang), tile=tile_label(set_to, lang), count=count,
        ))
    return followed_to


with st.expander(tr("Fix a tile", lang), expanded=bool(doubts) or not table_ok or bool(excess) or bool(not_added(table_rack, reading.offers))):
    ui.fix_memory("play", lang)
    followed_line = session.get(FOLLOWED)
    if followed_line:
        st.info(ui.plain(followed_line))
        session.drop(FOLLOWED)
    ui.fix_editor(
        editor_key(reading), table_rack, set_table_rack, lang, open_on=likeliest_extra_copy(table_rack, excess),
        offers=not_added(table_rack, reading.offers),
    )
    if reading.fixed:
        st.button(
            tr("Undo my fixes", lang), key="play_undo_fixes", on_click=replace_reading, args=(reading.undone(),),
            help=tr("Back to the tiles as they were read.", lang),
        )

# --- 3. settings and the answer -----------------------------------------------------------------

st.divider()
c1, c2 = st.columns(2)
with c1:
    st.session_state.setdefault("play_initial_meld_done", True)
    initial_done = st.toggle(tr("I have made my initial meld", lang), key="play_initial_meld_done")
with c2:
    objective = st.radio(
        tr("Aim for", lang), [o.value for o in Objective], horizontal=True, key="play_objective",
        format_func=lambda v: tr("most tiles", lang) if v == Objective.TILES.value else tr("most points", lang),
    )
st.caption(rules_summary(rules, lang))
question = (table_rack, initial_done, objective, rules)


def find_move(rules: RuleSet) -> bool:
    """Look for the best move; ``True`` when a new answer was stored, else an error is shown."""
    if not table_ok:
        st.error(tr("Fix the table first: every meld on it must be valid before a move can be found.", lang))
        return False
    try:
        position = Position(table_rack.table_tiles, table_rack.rack_tiles, initial_done, rules)
    except ImpossibleStateError as err:
        st.error(impossible_tiles_text(err.tiles, lang))
        return False
    with st.spinner(tr("Looking for the best move…", lang)):
        try:
            suggestion = solver.solve(position, Objective(objective))
        except solver.InvalidTableError:
            st.error(tr("Fix the table first: every meld on it must be valid before a move can be found.", lang))
            return False
        except Exception:  # noqa: BLE001 - never a traceback on screen; the log keeps it
            log.exception("solving failed")
            st.error(tr("The move search failed; nothing was lost. Try again, or check the tiles.", lang))
            return False
    session.put(ANSWER, Answer(question, suggestion))
    return True


#: Brings the answer's top into view (a phone shows the button at the bottom of the screen,
#: the answer would start below it). Drawn once, after the answer, on the run that found it;
#: repeated for a moment, since the page can only scroll that far once the answer is laid out.
SCROLL_TO_ANSWER = """<script>
[0, 150, 400, 900].forEach((ms) => setTimeout(() => {
  document.querySelector(".st-key-play_answer_box")?.scrollIntoView({block: "start"});
}, ms));
</script>"""

solved_now = st.button(
    tr("Find my best move", lang), type="primary", key="play_solve", disabled=not table_rack.rack, width="stretch",
) and find_move(rules)
if not table_rack.rack:
    st.caption(tr("Add your rack's tiles to get a move.", lang))

answer: Answer | None = session.get(ANSWER)
if answer is None or answer.question != question:
    st.stop()


def show_answer(suggestion: Suggestion) -> None:
    """The move: what to play, the new table with the tiles that move marked, the steps."""
    st.subheader(tr("Your move", lang))
    st.caption(rules_summary(suggestion.position.rules, lang))  # the rules this move was found under
    if suggestion.action is Action.DRAW:
        st.warning(no_move_text(lang))
        if not initial_done:
            st.caption(tr(
                "Your initial meld must be worth at least {points} points from your rack alone.", lang,
                points=rules.initial_meld_threshold,
            ))
        return

    st.success(play_summary(suggestion, lang))
    unsure = unsure_tiles_in_move(table_rack.melds, table_rack.rack, suggestion)
    if unsure:
        st.warning(unsure_move_text(unsure, lang))
    new_rows = []
    highlights: set[str] = set()
    for n, new in enumerate(suggestion.new_table):
        chips = []
        for i, (tile, source) in enumerate(zip(new.meld.tiles, new.sources)):
            style = ui.ChipStyle(
                played=source == RACK,
                moved=source != RACK and source != new.continues,
                stands_for=new.meld.represented[i] if new.meld.joker_mask[i] else None,
            )
            chips.append(ui.chip_html(tile, lang, style))
            highlights |= {k for k in ("played", "moved") if getattr(style, k)}
        new_rows.append(ui.row_html(tr("Meld {n}", lang, n=n + 1), chips, dim=new.unchanged))
    ui.show_html("".join(new_rows))
    ui.legend(lang, sorted(highlights, key=["played", "moved"].index))
    st.markdown("**" + tr("Steps", lang) + "**")
    st.markdown("\n".join(f"{i}. {text}" for i, text in enumerate(solver.describe_steps(suggestion, lang), start=1)))
    if not suggestion.optimal:
        st.caption(time_limit_note(lang))


with st.container(key="play_answer_box"):
    show_answer(answer.suggestion)
    if solved_now:
        st.html(SCROLL_TO_ANSWER, unsafe_allow_javascript=True)
