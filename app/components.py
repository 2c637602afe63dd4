"""Widgets the pages share: tiles drawn as tiles, the photo input, the reading editor.

Tiles are HTML chips coloured like the real ink, so a player compares the screen with the
table at a glance. Every label goes through :func:`solver.i18n.tr`; every string put into
HTML is escaped, and every text a player typed (names, notation, messages quoting them) is
passed through :func:`plain` before Streamlit reads it as Markdown.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Sequence, TypeVar

import streamlit as st

from solver.explain import joker_label, notation_error_text
from solver.i18n import tile_label, tr
from solver.tiles import ALL_NUMBERED, JOKER, NotationError, Tile, parse_tiles

from . import session, tile_profiles
from .editing import (
    NEW_MELD, RACK_ROW, Chip, EditError, Offer, Place, TableAndRack, add_offered, add_tiles, change_tile, move_tile, remove_tile,
)

T = TypeVar("T")

PHOTO_TYPES = ["jpg", "jpeg", "png", "heic", "heif", "webp"]
#: The picture the camera widget is asked for. Without it, ``st.camera_input`` hands over the
#: picture at the size it shows it (358 x 269 on a phone page, tests/test_browser.py), where a table's tiles are
#: 10-25 pixels long: F1 0.797 on the held-out editions' phone photos so shrunk, 0.973 at 1080p, the
#: camera's own frame, 1080 pixels on its shorter side (``python -m training.camera_captures``;
#: figures in ``docs/reading-history.md``, "Other people's tiles, round by round").
CAMERA_RESOLUTION = "1080p"
ALL_TILES: tuple[Tile, ...] = ALL_NUMBERED + (JOKER,)
#: Every ASCII punctuation character: CommonMark lets each be backslash-escaped, and together
#: they start every Markdown construct (links, images, emphasis, code, HTML, tables, lists),
#: Streamlit's directives (``:red[...]``) and its LaTeX (``$...$``).
_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
#: Where GitHub-flavoured Markdown would turn plain text into a link even when escaped (it
#: finds web and e-mail addresses in the text itself): before "http:", "https:", "www." and
#: after "@". An invisible word joiner there leaves the text looking the same, but no link.
_AUTOLINK_AT = re.compile(r"(?i)(?=https?:|www\.)|(?<=@)")
WORD_JOINER = "\u2060"
#: Characters that start Markdown inline syntax (links, images, emphasis, code, directives,
#: LaTeX), written as character references in HTML: :func:`show_html` fragments are HTML
#: blocks, which Markdown leaves alone, and these make text in them inert even if not.
_HTML_TEXT = str.maketrans({c: f"&#{ord(c)};" for c in "&<>\"'[]()!*_`~$\\|{}#"})

_CSS = """
<style>
/* Phones: less empty space above the page, a title that fits, the page links on one row. */
@media (max-width: 640px){
 [data-testid="stMainBlockContainer"]{padding-top:4.25rem}
 h1{font-size:1.9rem !important}
}
.st-key-rk_pages{border-bottom:1px solid #e6e2d6;padding-bottom:.2rem}
.rk-row{display:flex;flex-wrap:wrap;align-items:center;gap:.3rem;margin:.25rem 0 .6rem 0}
.rk-label{min-width:4.2rem;font-size:.85rem;color:#666}
.rk-tile{position:relative;display:inline-flex;flex-direction:column;align-items:center;justify-content:center;
 width:2.3rem;height:3.1rem;border-radius:.4rem;background:#fbf6e9;border:1px solid #cbbf9f;
 box-shadow:0 2px 0 #b9ab86;font:700 1.35rem/1 system-ui,sans-serif}
.rk-tile small{font-size:.55rem;font-weight:600;color:#555}
.rk-black{color:#1b1b1b}.rk-blue{color:#1460c8}.rk-orange{color:#e27100}.rk-red{color:#d0182b}
.rk-joker{color:#d0182b}
.rk-uncertain{outline:3px dashed #f2a100;outline-offset:1px}
.rk-uncertain::after{content:"?";position:absolute;top:-.45rem;right:-.4rem;background:#f2a100;color:#fff;
 border-radius:50%;width:1rem;height:1rem;font-size:.7rem;line-height:1rem;text-align:center}
.rk-corrected{outline:3px solid #4b7bec;outline-offset:1px}
.rk-edited::after{content:"✎";position:absolute;top:-.45rem;right:-.4rem;background:#2e7d32;color:#fff;
 border-radius:50%;width:1rem;height:1rem;font-size:.65rem;line-height:1rem;text-align:center}
.rk-played{background:#dff5e1;outline:3px solid #2e9d44;outline-offset:1px}
.rk-moved{outline:3px dashed #8e44ad;outline-offset:1px}
.rk-same{opacity:.55}
.rk-bad{border-left:4px solid #d0182b;padding-left:.4rem}
/* The legend's keys: a small blank swatch with the highlight, never a tile with a number. */
.rk-key{position:relative;display:inline-block;width:.9rem;height:1.2rem;border-radius:.2rem;
 background:#fbf6e9;border:1px solid #cbbf9f;margin-left:.35rem;vertical-align:middle}
.rk-key::after{transform:scale(.7)}
.rk-legend{gap:.15rem .5rem}
.rk-legend .rk-label{min-width:0}
/* The turn timer: one line at any width, as big as the screen allows. */
.rk-timer{border-radius:1rem;padding:.6rem 1rem;text-align:center;background:#f4f1e8;color:#1b1b1b}
.rk-timer-player{font:600 clamp(1.4rem,7vw,2.2rem)/1.2 system-ui,sans-serif;overflow-wrap:anywhere}
.rk-clock{font:800 min(9rem,28vw)/1 system-ui,sans-serif;font-variant-numeric:tabular-nums;white-space:nowrap}
.rk-timer-paused .rk-clock{opacity:.45}
.rk-timer-up{background:#d0182b;color:#fff;animation:rk-flash 1s step-start infinite}
@keyframes rk-flash{50%{background:#fff;color:#d0182b}}
</style>
"""


def inject_css() -> None:
    """The app's one stylesheet (drawn once per run, before the page; it takes no space)."""
    st.html(_CSS)


def plain(text: object) -> str:
    """``text`` as Markdown that Streamlit shows exactly as typed: every ASCII punctuation
    character backslash-escaped, and a word joiner where an address would be linked. For
    everything a player typed that reaches a Markdown element (labels, radio options,
    alerts, captions, metrics) -- so a name like ``![p](http://…)`` is shown, never
    fetched, and neither ``[click](…)`` nor a bare address is ever a link."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", _AUTOLINK_AT.sub(WORD_JOINER, str(text)))


def html_text(text: object) -> str:
    """``text`` escaped for a :func:`show_html` fragment: HTML-escaped, and no character of
    it can start Markdown syntax. For labels that hold what a player typed (names)."""
    return str(text).translate(_HTML_TEXT)


@dataclass(frozen=True)
class ChipStyle:
    """How one tile is highlighted; ``stands_for`` is what a joker represents."""

    uncertain: bool = False
    corrected: bool = False
    edited: bool = False
    played: bool = False
    moved: bool = False
    stands_for: Tile | None = None


def chip_html(tile: Tile, lang: str, style: ChipStyle = ChipStyle(), note: str = "") -> str:
    colour = "joker" if tile.is_joker else tile.colour.value  # type: ignore[union-attr]
    classes = ["rk-tile", f"rk-{colour}"]
    for flag in ("uncertain", "corrected", "edited", "played", "moved"):
        if getattr(style, flag):
            classes.append(f"rk-{flag}")
    face = "☺" if tile.is_joker else str(tile.number)
    title = tile_label(tile, lang)
    sub = ""
    if style.stands_for is not None:
        sub = f"<small>={html.escape(style.stands_for.short)}</small>"
        title = joker_label(style.stands_for, lang)
    if note:
        title = f"{title} — {note}"
    return (
        f'<span class="{" ".join(classes)}" title="{html.escape(title)}" role="img" '
        f'aria-label="{html.escape(title)}">{face}{sub}</span>'
    )


def row_html(label: str, chips: Sequence[str], bad: bool = False, dim: bool = False) -> str:
    klass = "rk-row" + (" rk-bad" if bad else "") + (" rk-same" if dim else "")
    return f'<div class="{klass}"><span class="rk-label">{html_text(label)}</span>{"".join(chips)}</div>'


def show_html(fragment: str) -> None:
    """Show HTML built here; every text in it is escaped (one line, starting with a block
    tag, so that Markdown reads it as one HTML block)."""
    st.markdown(fragment, unsafe_allow_html=True)


def chip_note(chip: Chip, lang: str) -> str:
    """Why a chip is highlighted, for its tooltip and the list of doubts."""
    notes = []
    if chip.uncertain:
        notes.append(tr("unsure", lang))
    if chip.corrected:
        notes.append(tr("corrected by the rules", lang))
    if chip.edited:
        notes.append(tr("set by you", lang))
    if chip.remembered and not chip.edited:
        notes.append(tr("read as you changed a tile like it earlier", lang))
    if chip.followed and not chip.edited:
        notes.append(tr("changed with a tile of this photo whose colour you changed", lang))
    if chip.like_removed and not chip.edited:
        notes.append(tr("looks like one you removed earlier: remove it too if it is no tile", lang))
    if chip.ink_doubt and not chip.edited:
        notes.append(tr("its colour was read from the ink of your set's tiles", lang))
    if chip.blurred and not chip.edited:
        notes.append(tr("blurred in the photo: check it, or take the photo again", lang))
    if chip.offered is not None and not chip.edited:
        notes.append(tr("added by you from a box the camera left out", lang))
    if chip.alternatives and (chip.uncertain or chip.corrected):
        notes.append(tr("maybe: {tiles}", lang, tiles=", ".join(tile_label(t, lang) for t in chip.alternatives)))
    return "; ".join(notes)


def reading_chip_html(chip: Chip, lang: str) -> str:
    style = ChipStyle(uncertain=chip.uncertain, corrected=chip.corrected, edited=chip.edited)
    return chip_html(chip.tile, lang, style, chip_note(chip, lang))


def reading_legend(chips: Sequence[Chip], lang: str) -> None:
    """The key to the marks a reading's ``chips`` carry (unsure, corrected, set by the player)."""
    legend(lang, [k for k in ("uncertain", "corrected", "edited") if any(getattr(c, k) for c in chips)])


def legend(lang: str, kinds: Sequence[str]) -> None:
    """A one-line key to the highlights used on this screen: blank swatches, so the key is
    never mistaken for tiles of the table."""
    samples = {
        "uncertain": (ChipStyle(uncertain=True), tr("unsure: check it", lang)),
        "corrected": (ChipStyle(corrected=True), tr("corrected by the rules", lang)),
        "edited": (ChipStyle(edited=True), tr("set by you", lang)),
        "played": (ChipStyle(played=True), tr("from your rack", lang)),
        "moved": (ChipStyle(moved=True), tr("moved on the table", lang)),
    }
    if not kinds:
        return
    parts = []
    for kind in kinds:
        style, text = samples[kind]
        flags = " ".join(f"rk-{flag}" for flag in samples if getattr(style, flag))
        parts.append(f'<span class="rk-key {flags}"></span><span class="rk-label">{html.escape(text)}</span>')
    show_html(f'<div class="rk-row rk-legend">{"".join(parts)}</div>')


# --- inputs ----------------------------------------------------------------------------------


def photo_input(label: str, key: str, lang: str) -> bytes | None:
    """A photo from the camera (when switched on) or an uploaded file; the camera wins."""
    upload = st.file_uploader(
        label, type=PHOTO_TYPES, key=f"{key}_upload",
        help=tr("A photo from the phone's camera or gallery, or a screenshot, up to 25 MB.", lang),
    )
    shot = None
    camera_help = tr(
        "Takes a picture 1080 pixels high. A photo from the phone's own camera app, uploaded above, "
        "shows the tiles in more detail and is read best.", lang,
    )
    if st.toggle(tr("Use the camera", lang), key=f"{key}_camera_on", help=camera_help):
        shot = st.camera_input(label, key=f"{key}_camera", label_visibility="collapsed", resolution=CAMERA_RESOLUTION)
    chosen = shot if shot is not None else upload
    return chosen.getvalue() if chosen is not None else None


def tile_picker_options(chip: Chip) -> list[Tile]:
    """The current tile, then what the reader suggested, then every tile."""
    first = [chip.tile] + [t for t in chip.alternatives if t != chip.tile]
    return first + [t for t in ALL_TILES if t not in first]


# --- the reading editor ----------------------------------------------------------------------


def place_label(table_rack: TableAndRack, place: Place, lang: str) -> str:
    row, index = place
    chip = table_rack.chip(place)
    where = tr("Rack", lang) if row == RACK_ROW else tr("Meld {n}", lang, n=row + 1)
    flag = " ⚠" if chip.uncertain else ""
    return f"{where} · {index + 1}: {tile_label(chip.tile, lang)}{flag}"


def destination_label(table_rack: TableAndRack, destination: int, lang: str) -> str:
    if destination == RACK_ROW:
        return tr("the rack", lang)
    if destination == NEW_MELD:
        return tr("a new meld", lang)
    return tr("meld {n}", lang, n=destination + 1)


def in_rows(items: Sequence[T], per_row: int = 3) -> list[tuple[T, object]]:
    """Each item with a column to draw it in, ``per_row`` to a row: a phone stacks each row's
    columns, so the items keep their order there too (columns filled across one row would not)."""
    placed: list[tuple[T, object]] = []
    for start in range(0, len(items), per_row):
        row = items[start : start + per_row]
        placed += list(zip(row, st.columns(per_row)))
    return placed


def offer_label(offer: Offer, lang: str, photos: int = 1) -> str:
    """A button's words for adding a tile the camera left out: its number on the photo (and which
    photo, when both were read) and the reader's tile for it."""
    tile = tile_label(offer.tile, lang)
    if photos < 2:
        return tr("Add {number}: {tile}?", lang, number=offer.number, tile=tile)
    if offer.kind == "table":
        return tr("Add table {number}: {tile}?", lang, number=offer.number, tile=tile)
    return tr("Add rack {number}: {tile}?", lang, number=offer.number, tile=tile)


def fix_memory(key: str, lang: str) -> None:
    """Above a page's fix editor: the switch that lets fixes teach the chosen tile profile, what the
    session remembers of the player's fixes (with a button to forget it), and, once, what the last
    fix taught the profile (:func:`app.tile_profiles.learn_from_fix`). ``key`` prefixes the page's buttons."""
    if tile_profiles.active_name():
        st.toggle(
            plain(tr("Teach the tile profile {name!r} each tile I change or remove", lang, name=tile_profiles.active_name())),
            key=tile_profiles.TEACH,
        )
    memory = tile_profiles.remembered()
    if memory is not None:
        if memory.changed_count:
            st.caption(tr(
                "Tiles you changed or added this session: {count}. In later photos a tile that looks the same is read as you set it.",
                lang, count=memory.changed_count,
            ))
        if memory.removed_count:
            st.caption(tr(
                "Tiles you removed this session: {count}. In later photos anything that looks the same is marked for you to check.",
                lang, count=memory.removed_count,
            ))
        st.button(tr("Forget the tiles I changed or removed", lang), key=f"{key}_forget_changes", on_click=tile_profiles.forget_session)
    taught: tile_profiles.Taught | None = st.session_state.pop(tile_profiles.TAUGHT, None)
    if taught is not None:
        (st.success if taught.ok else st.warning)(plain(taught.text))


class EditorRows(Enum):
    """What a fix editor edits: a turn's table and rack (the Play page), a table, or a rack."""

    TABLE_AND_RACK = "table and rack"
    TABLE = "table"
    RACK = "rack"


def fix_editor(key: str, table_rack: TableAndRack, on_change: Callable[[TableAndRack], None], lang: str,
               rows: EditorRows = EditorRows.TABLE_AND_RACK, open_on: Place | None = None, offers: Sequence[Offer] = ()) -> None:
    """Fix a reading in a few taps: pick a tile, then change, move or remove it; or add one, typed
    or, with one tap, one of the ``offers`` (boxes the camera left out that may be tiles).

    The tile picker opens on ``open_on`` when given, else on the first tile marked unsure.
    ``on_change`` receives the new table and rack. Fixes run as button callbacks that read the
    widgets' current values from session state, so the page redraws once, already fixed.
    ``key`` names this table and rack: a caller gives each reading, and each fix of it, its own key,
    so that no selector ever offers a tile of an earlier reading.
    """
    table, rack = rows is not EditorRows.RACK, rows is not EditorRows.TABLE
    places = [p for p in table_rack.places() if (p[0] == RACK_ROW and rack) or (p[0] != RACK_ROW and table)]
    destinations = ([*range(len(table_rack.melds)), NEW_MELD] if table else []) + ([RACK_ROW] if rack else [])
    error_key = f"{key}_error"
    place_key = f"{key}_place"

    def value(name: str) -> object:
        return st.session_state.get(f"{key}_{name}")

    def apply(edit: Callable[[], TableAndRack]) -> None:
        try:
            on_change(edit())
            st.session_state.pop(error_key, None)
            st.session_state.pop(place_key, None)
        except NotationError as err:
            st.session_state[error_key] = notation_error_text(err, lang)
        except EditError as err:
            st.session_state[error_key] = tr(str(err), lang)

    def selected() -> Place:
        place = st.session_state.get(place_key)
        if place not in places:
            raise EditError("choose a tile first")
        return place  # type: ignore[return-value]

    def change() -> TableAndRack:
        place = selected()
        tile = st.session_state.get(f"{key}_new_tile_{place[0]}_{place[1]}")
        if not isinstance(tile, Tile):
            raise EditError("choose the tile it really is")
        return change_tile(table_rack, place, tile)

    def move() -> TableAndRack:
        return move_tile(table_rack, selected(), int(value("move_to")))  # type: ignore[arg-type]

    def add() -> TableAndRack:
        tiles = parse_tiles(str(value("add_tiles") or ""))
        st.session_state[f"{key}_add_tiles"] = ""
        return add_tiles(table_rack, int(value("add_to")), tiles)  # type: ignore[arg-type]

    if places:
        if st.session_state.get(place_key) not in places:  # first draw: open on the tile most worth a look
            doubtful = [p for p in table_rack.uncertain_places if p in places]
            st.session_state[place_key] = open_on if open_on in places else doubtful[0] if doubtful else places[0]
        place = st.selectbox(
            tr("Tile to fix", lang), places, key=session.keep(place_key),
            format_func=lambda p: place_label(table_rack, p, lang),
        )
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        with c1:
            st.selectbox(
                tr("It is really", lang), tile_picker_options(table_rack.chip(place)),
                key=session.keep(f"{key}_new_tile_{place[0]}_{place[1]}"), format_func=lambda t: tile_label(t, lang),
            )
        with c2:
            st.button(tr("Change", lang), key=f"{key}_change", width="stretch", on_click=apply, args=(change,))
        if table:
            c3, c4 = st.columns([3, 1], vertical_alignment="bottom")
            with c3:
                st.selectbox(
                    tr("Move it to", lang), destinations, key=session.keep(f"{key}_move_to"),
                    format_func=lambda d: destination_label(table_rack, d, lang),
                )
            with c4:
                st.button(tr("Move", lang), key=f"{key}_move", width="stretch", on_click=apply, args=(move,))
        st.button(
            tr("Remove this tile", lang), key=f"{key}_remove", on_click=apply,
            args=(lambda: remove_tile(table_rack, selected()),),
        )
    if offers:
        st.caption(tr(
            "Numbered dashed boxes on the photo: the camera left them out as probably not tiles. "
            "If one is a tile, add it; it goes where it lies, marked for you to check.", lang,
        ))
        photos = len({o.kind for o in offers})
        for offer, column in in_rows(offers):
            column.button(
                offer_label(offer, lang, photos), key=f"{key}_offer_{offer.kind}_{offer.number}", width="stretch",
                on_click=apply, args=(lambda o=offer: add_offered(table_rack, o),),
            )
    c5, c6, c7 = st.columns([2, 2, 1], vertical_alignment="bottom")
    with c5:
        st.text_input(tr("Add missed tiles", lang), key=f"{key}_add_tiles", placeholder="r7 j")
    with c6:
        st.session_state.setdefault(f"{key}_add_to", destinations[-1])
        st.selectbox(
            tr("to", lang), destinations, key=session.keep(f"{key}_add_to"),
            format_func=lambda d: destination_label(table_rack, d, lang),
        )
    with c7:
        st.button(tr("Add", lang), key=f"{key}_add", width="stretch", on_click=apply, args=(add,))
    if st.session_state.get(error_key):
        st.error(plain(st.session_state[error_key]))
