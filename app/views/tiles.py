"""My tiles: teach the reader the player's own set from calibration photos, and pick the profile in use.

Photos of the tiles laid out in known rows are read, paired with the layout and shown as
labelled crops to confirm; only then is anything saved. The profile chosen here applies to every
photo read on every page (:mod:`app.tile_profiles`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import streamlit as st

from app import components as ui
from app import session
from app import tile_profiles
from app.profile_store import ProfileError, safe_name
from solver.i18n import error_text, tile_label, tr
from vision.calibration import DEFAULT_LAYOUT, CalibrationError, CalibrationLayout, parse_layout
from vision.profiles import NoTileSample, TileSample
from vision.reading import PhotoLook

PENDING = "tiles_pending"
#: Session key of the message left by a callback for the next run: ("success" | "error", text).
FLASH = "tiles_flash"
#: Crops shown per tile in the grid, in pixels.
CROP_WIDTH = 56

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class Pending:
    """Calibration photos read and paired, waiting for the player to confirm them."""

    name: str
    layout: CalibrationLayout
    samples: tuple[TileSample, ...]
    photos: int
    #: Positions in :attr:`samples` of the tiles the gate had dropped, put back where the layout has one.
    put_back: frozenset[int] = frozenset()
    #: Per photo, the boxes left out as no tile of the layout (kept in the profile as no tile).
    left_out: tuple[tuple[NoTileSample, ...], ...] = ()
    #: Per photo, how its tiles came out: a note says when they are too small or too blurred to
    #: teach the reader well (:meth:`vision.reading.PhotoLook.advice`).
    looks: tuple[PhotoLook, ...] = ()


lang = session.lang()
ui.inject_css()
st.title(tr("My tiles", lang))
st.caption(tr(
    "Teach the reader your own tile set: photograph your tiles laid out in rows, check the tiles it "
    "found, and save them as a profile. The profile you choose is used for every photo you read.", lang,
))
flash = session.get(FLASH)
if flash:
    (st.success if flash[0] == "success" else st.error)(ui.plain(flash[1]))
    session.drop(FLASH)

# --- the profile in use, and the saved profiles --------------------------------------------------

store = tile_profiles.store()
listing = store.listing()
for skipped in listing.skipped:
    st.warning(ui.plain(error_text(skipped, lang)))
names = [p.name for p in listing.profiles]
if session.get(tile_profiles.ACTIVE) not in ["", *names]:
    session.put(tile_profiles.ACTIVE, "")
st.selectbox(
    tr("Tile profile used for every photo", lang), ["", *names], key=tile_profiles.ACTIVE,
    format_func=lambda name: name or tr("none: the reader alone", lang),
)


def delete(name: str) -> None:
    try:
        store.delete(name)
    except ProfileError as err:
        session.put(FLASH, ("error", error_text(err, lang)))
        return
    if session.get(tile_profiles.ACTIVE) == name:
        session.put(tile_profiles.ACTIVE, "")
    session.put(FLASH, ("success", tr("Deleted the tile profile {name!r}.", lang, name=name)))


def forget_not_tiles(name: str) -> None:
    try:
        store.forget_not_tiles(name)
    except (ProfileError, OSError) as err:
        session.put(FLASH, ("error", error_text(err, lang)))
        return
    session.put(FLASH, ("success", tr("The tile profile {name!r} no longer holds any box as no tile.", lang, name=name)))


if listing.profiles:
    with st.expander(tr("Saved profiles ({n})", lang, n=len(listing.profiles))):
        for i, summary in enumerate(listing.profiles):
            c1, c2 = st.columns([4, 1], vertical_alignment="center")
            c1.text(tr(
                "{name}: {tiles} tile(s) of {kinds} kind(s), {corrections} from corrections", lang,
                name=summary.name, tiles=summary.tiles, kinds=summary.kinds, corrections=summary.corrections,
            ) + summary.notes(lang))
            c2.button(tr("Delete", lang), key=f"tiles_delete_{i}", on_click=delete, args=(summary.name,))
            if summary.not_tiles:
                c1.button(
                    tr("Forget the boxes it holds as no tile", lang), key=f"tiles_forget_not_tiles_{i}",
                    on_click=forget_not_tiles, args=(summary.name,),
                )

# --- calibration -------------------------------------------------------------------------------

st.divider()
st.subheader(tr("Teach it your tiles", lang))
layout_text = st.text_input(
    tr("Layout (leave empty for the one shown)", lang), key="tiles_layout",
    placeholder="r1 r2 r3 r4 r5 r6 r7 r8 r9 | o1 o2 o3 o4 o5 o6 o7 o8 o9",
    help=tr("Rows separated by |, top row first, each row left to right.", lang),
)
try:
    layout = parse_layout(layout_text)
except CalibrationError as err:
    st.error(ui.plain(error_text(err, lang)))
    st.stop()


def layout_picture(rows: CalibrationLayout) -> None:
    """The layout drawn as tiles, one line per row: what to lay out before taking the photo."""
    ui.show_html("".join(
        ui.row_html(tr("Row {n}", lang, n=r + 1), [ui.chip_html(t, lang) for t in row]) for r, row in enumerate(rows.rows)
    ))


if layout == DEFAULT_LAYOUT:
    st.caption(tr("Lay your tiles out like this: black, blue, orange and red, each 1 to 13, and the jokers below.", lang))
else:
    st.caption(tr("Lay your tiles out like this:", lang))
layout_picture(layout)
name = st.text_input(tr("Profile name", lang), key="tiles_name", max_chars=40, placeholder=tr("My set", lang))
uploads = st.file_uploader(
    tr("Photos of the layout (one or more)", lang), type=ui.PHOTO_TYPES, accept_multiple_files=True, key="tiles_photos",
)

STAGES = {
    "detect": tr("finding and reading the tiles", lang),
    "pair": tr("pairing them with the layout", lang),
    "done": tr("done", lang),
}


def read_calibration() -> None:
    """Read every photo and pair it with the layout; keep the tiles to confirm, or say what is wrong."""
    from vision.calibration import collect_samples
    from vision.images import ImageError, load_image
    from vision.model_files import ModelFileError

    try:
        profile_name = safe_name(name or "")
    except ProfileError as err:
        st.error(ui.plain(error_text(err, lang)))
        return
    if not uploads:
        st.error(tr("Add at least one photo of the layout.", lang))
        return
    bar = st.progress(0.0, text=tr("Reading photo {n} of {count}…", lang, n=1, count=len(uploads)))
    samples: list[TileSample] = []
    put_back: set[int] = set()
    left_out: list[tuple[NoTileSample, ...]] = []
    looks: list[PhotoLook] = []
    for n, upload in enumerate(uploads):
        def progress(share: float, stage: str, n: int = n) -> None:
            bar.progress(min(1.0, (n + share) / len(uploads)), text=tr(
                "Photo {n} of {count}: {stage}", lang, n=n + 1, count=len(uploads), stage=STAGES.get(stage, stage),
            ))

        try:
            paired = collect_samples(load_image(upload.getvalue()), layout, progress=progress)
        except (ImageError, CalibrationError, ModelFileError) as err:
            bar.empty()
            st.error(ui.plain(tr(
                "Photo {n} ({file}): {reason}. Nothing was saved.", lang, n=n + 1, file=upload.name,
                reason=error_text(err, lang),
            )))
            return
        except Exception:  # noqa: BLE001 - never a traceback on screen; the log keeps it
            log.exception("calibrating from a photo failed")
            bar.empty()
            st.error(tr("Photo {n} could not be read; nothing was saved. Try another photo.", lang, n=n + 1))
            return
        put_back.update(len(samples) + k for k in paired.put_back)
        samples.extend(paired.samples)
        left_out.append(paired.left_out)
        looks.append(paired.look)
    bar.empty()
    session.put(PENDING, Pending(
        profile_name, layout, tuple(samples), len(uploads), frozenset(put_back), tuple(left_out), tuple(looks),
    ))


if st.button(tr("Read the photos", lang), type="primary", key="tiles_read"):
    read_calibration()

pending: Pending | None = session.get(PENDING)
if pending is None:
    st.stop()

# --- confirm what was read ------------------------------------------------------------------------

st.divider()
st.subheader(tr("Check the tiles", lang))
st.caption(tr(
    "Each tile as found in the photo, labelled with what the layout says it is. If a label is wrong, the tiles "
    "were not laid out as shown: fix the layout or the photo and read it again.", lang,
))
if pending.put_back:
    st.caption(tr(
        "Tiles marked \"put back\" were doubted by the reader and taken because the layout has a tile there: "
        "check them.", lang,
    ))
per_photo = len(pending.layout.tiles)
for photo in range(pending.photos):
    if pending.photos > 1:
        st.markdown("**" + tr("Photo {n}", lang, n=photo + 1) + "**")
    start = photo * per_photo
    for note in pending.looks[photo].advice(lang) if photo < len(pending.looks) else ():
        st.warning(note)
    for row in pending.layout.rows:
        chunk = pending.samples[start : start + len(row)]
        captions = [
            tr("{tile} (put back)", lang, tile=tile_label(s.tile, lang)) if start + k in pending.put_back
            else tile_label(s.tile, lang)
            for k, s in enumerate(chunk)
        ]
        start += len(row)
        st.image([s.crops[len(s.crops) // 2] for s in chunk], caption=captions, width=CROP_WIDTH, channels="BGR")
    left_out = pending.left_out[photo] if photo < len(pending.left_out) else ()
    if left_out:
        st.caption(tr(
            "Left out as no tile of the layout (the end of a rack, something beside the tiles): {count}", lang,
            count=len(left_out),
        ))
        st.image([box.crops[len(box.crops) // 2] for box in left_out], width=CROP_WIDTH, channels="BGR")


def save() -> None:
    current: Pending | None = session.get(PENDING)
    if current is None:
        return
    from vision.reader import load_reader, reader_fingerprint

    try:
        stored = store.save(
            current.name, current.samples, reader_fingerprint(load_reader()),
            not_tiles=[box for photo in current.left_out for box in photo],
        )
    except (ProfileError, OSError) as err:
        session.put(FLASH, ("error", tr("The profile could not be saved: {reason}", lang, reason=error_text(err, lang))))
        return
    session.drop(PENDING)
    session.put(tile_profiles.ACTIVE, stored.name)
    session.put(FLASH, ("success", tr(
        "Saved {count} tile(s) to the profile {name!r}; it is now used for every photo.", lang,
        count=len(current.samples), name=stored.name,
    )))


c1, c2 = st.columns(2)
c1.button(
    ui.plain(tr("Save to the profile {name!r}", lang, name=pending.name)), type="primary", key="tiles_save", on_click=save,
    width="stretch",
)
c2.button(tr("Discard", lang), key="tiles_discard", on_click=session.drop, args=(PENDING,), width="stretch")
