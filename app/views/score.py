"""Score: end a round (who went out, what is left on each rack), keep the game's score sheet."""

from __future__ import annotations

import html
import logging
from collections import Counter
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app import components as ui
from app import session, tile_profiles
from app.codec import describe_outcome, score_sheet_csv
from app.photo_reading import PhotoError
from app.editing import Offer
from app.photos import PhotoReading, photo_notes, read_ahead, read_together, read_upload, unsure_rack_note
from app.rules_text import rules_summary
from app.storage import Game, NotFoundError, SavedRound, StorageError
from solver.explain import notation_error_text
from solver.i18n import error_text, tr
from solver.players import MAX_PLAYERS
from solver.rules import UnmeldedScoring
from solver.scoring import PlayerRack, PoolExhausted, RoundResult, ScoringError, WentOut, score_round
from solver.tiles import NotationError, Tile, format_tiles, parse_tiles
from vision.reading import ReadingKind

log = logging.getLogger(__name__)

GAME = "score_game_id"
GAME_PICKER = "score_game"
PREVIEW = "score_preview"
EDITING = "score_editing_round"
CONFIRM_DELETE = "score_confirm_delete"
FLASH = "score_flash"
FORM_NONCE = "score_form_nonce"
WINNER = " ★"
POOL = "__pool__"


@dataclass(frozen=True)
class Preview:
    """A scored round waiting for the player's "save", and what it was scored from."""

    game_id: int
    racks: tuple[PlayerRack, ...]
    result: RoundResult
    replaces: int | None


lang = session.lang()
st.title(tr("Score sheet", lang))

try:
    store = session.store()
    games = store.games()
except StorageError as err:
    st.error(ui.plain(tr("The score database cannot be opened: {reason}", lang, reason=error_text(err, lang))))
    st.stop()
if store.read_only is not None:  # e.g. a read-only data folder: the sheet is shown, saving fails
    st.warning(error_text(store.read_only, lang))

if session.get(FLASH):
    st.success(session.get(FLASH))
    session.drop(FLASH)

# --- the game ---------------------------------------------------------------------------------


def game_label(game: Game) -> str:
    return tr("Game {id} · {players} · {date}", lang, id=game.id, players=", ".join(game.players), date=game.created[:10])


with st.expander(tr("New game", lang), expanded=not games):
    with st.form("score_new_game", clear_on_submit=True):
        st.caption(tr("2 to 4 players, in seating order. The rules chosen in the sidebar are kept with the game.", lang))
        names = [st.text_input(tr("Player {n}", lang, n=i + 1), key=f"score_new_player_{i}") for i in range(MAX_PLAYERS)]
        if st.form_submit_button(tr("Start the game", lang), type="primary"):
            players = [n.strip() for n in names if n.strip()]
            try:
                game = store.create_game(players, session.rules())
            except ScoringError as err:
                st.error(ui.plain(tr("Cannot start this game: {reason}", lang, reason=error_text(err, lang))))
            except StorageError as err:
                st.error(ui.plain(tr("The game could not be saved: {reason}", lang, reason=error_text(err, lang))))
            else:
                session.put(GAME_PICKER, game.id)
                st.rerun()

if not games:
    st.info(tr("Start a game to keep its score.", lang))
    st.stop()

ids = [g.id for g in games]
if session.get(GAME_PICKER) not in ids:
    session.put(GAME_PICKER, ids[0])
by_id = {g.id: g for g in games}
game_id = st.selectbox(tr("Game", lang), ids, key=GAME_PICKER, format_func=lambda i: game_label(by_id[i]))
if game_id != session.get(GAME):  # another game opened: forget the half-done round of the last one
    session.put(GAME, game_id)
    session.drop(PREVIEW, EDITING, CONFIRM_DELETE)
game = by_id[game_id]
st.caption(rules_summary(game.rules, lang))
#: Whether this game's rules score a player who never melded differently (then each rack asks).
ASK_UNMELDED = game.rules.unmelded_scoring is not UnmeldedScoring.LIKE_OTHERS

try:
    saved = store.rounds(game.id)
    sheet = store.sheet(game.id)
except (StorageError, NotFoundError) as err:
    st.error(ui.plain(tr("This game cannot be read: {reason}", lang, reason=error_text(err, lang))))
    st.stop()

# --- a round ----------------------------------------------------------------------------------

editing: SavedRound | None = next((r for r in saved if r.id == session.get(EDITING)), None)
st.subheader(tr("Edit round {n}", lang, n=editing.number) if editing else tr("Round {n}", lang, n=len(saved) + 1))
# Each round form gets fresh widget keys (the browser keeps a widget's last value per key).
form = f"score_round_{game.id}_{editing.id if editing else 'new'}_{session.get(FORM_NONCE, 0)}"
if editing and f"{form}_end" not in st.session_state:  # load the round being edited, once
    outcome = editing.result.outcome
    st.session_state[f"{form}_end"] = outcome.player if isinstance(outcome, WentOut) else POOL
    for i, rack in enumerate(editing.racks):
        st.session_state[f"{form}_rack_{i}"] = format_tiles(rack.tiles, short=True)
        st.session_state[f"{form}_unmelded_{i}"] = not rack.made_initial_meld
        st.session_state[f"{form}_could_meld_{i}"] = rack.could_have_melded

ending = st.radio(
    tr("How did the round end?", lang), [*game.players, POOL], key=session.keep(f"{form}_end"),
    format_func=lambda v: tr("pool exhausted", lang) if v == POOL else ui.plain(tr("{player} went out", lang, player=v)),
)

def remember_rack_fixes() -> None:
    """Remember for the session what the scorekeeper fixed in the typed line of a rack read from a
    photo, as the Play page remembers a fix: a read tile taken out of it (a phantom joker deleted)
    as no tile, so a later photo (another player's rack, the next round's) marks a near copy for
    checking; a tile added with a left-out box's button and still in the line as that tile, so a
    later photo keeps a near copy where the camera leaves it out again. Each once."""
    for i, player in enumerate(game.players):
        read = st.session_state.get(f"{form}_read_{i}_result")
        if player == ending or not read:
            continue
        try:
            typed = parse_tiles(st.session_state.get(f"{form}_rack_{i}", ""))
        except NotationError:
            continue
        chips = read.chips
        offered = st.session_state.get(f"{form}_read_{i}_added", frozenset())
        kept = tile_profiles.kept_additions(chips, [o for o in read.offers if o.number in offered], typed)
        without_added = list((Counter(typed) - Counter(tile for _, tile in kept)).elements())
        done = st.session_state.get(f"{form}_read_{i}_taken", frozenset())
        done_added = st.session_state.get(f"{form}_read_{i}_kept_added", frozenset())
        taken = [key for key in tile_profiles.taken_out(chips, without_added) if key not in done]
        added = [(o, tile) for o, tile in kept if o.number not in done_added]
        if not taken and not added:
            continue
        try:
            tile_profiles.remember_in_session({ReadingKind.RACK.value: read.samples}, [], taken, added)
        except Exception:  # noqa: BLE001 - scoring must go on; the log keeps the reason
            log.warning("remembering the fixes of a rack's typed line failed", exc_info=True)
        st.session_state[f"{form}_read_{i}_taken"] = done | set(taken)
        st.session_state[f"{form}_read_{i}_kept_added"] = done_added | {o.number for o, _ in added}


def add_to_line(key: str, offer: Offer, added_key: str) -> None:
    """Add a tile the camera left out (one of the photo's offers) to the end of a rack's typed line."""
    st.session_state[key] = f"{st.session_state.get(key) or ''} {offer.tile.short}".strip()
    st.session_state[added_key] = st.session_state.get(added_key, frozenset()) | {offer.number}


def typed_rack(key: str) -> tuple[Tile, ...]:
    """The tiles typed under ``key`` (none while the line is not valid notation)."""
    try:
        return parse_tiles(st.session_state.get(key) or "")
    except NotationError:
        return ()


for i, player in enumerate(game.players):
    if player == ending:
        continue
    with st.container(border=True, key=f"score_player_{i}"):
        st.markdown("**" + ui.plain(tr("{player}’s rack", lang, player=player)) + "**")
        read: PhotoReading | None = st.session_state.get(f"{form}_read_{i}_result")
        if read and st.session_state.pop(f"{form}_read_{i}_fresh", False):
            # A photo was just read: its tiles become the typed line (set before the widget exists).
            st.session_state[f"{form}_rack_{i}"] = format_tiles((c.tile for c in read.chips), short=True)
        st.text_input(tr("Tiles left (typed)", lang), key=f"{form}_rack_{i}", placeholder="r7 j k13")
        photo = ui.photo_input(tr("or a photo of the rack", lang), f"{form}_photo_{i}", lang)
        read_ahead(photo, ReadingKind.RACK, game.rules, lang)  # app/photo_prefetch.py
        if photo is not None and st.button(tr("Read the photo", lang), key=f"{form}_read_{i}"):
            remember_rack_fixes()  # a phantom taken out of another rack's line is looked for in this photo
            try:
                with st.spinner(tr("Reading the rack…", lang)):
                    reading = read_upload(photo, ReadingKind.RACK, game.rules, lang)
                    # The round's racks come from one set: the copy limits hold over them all.
                    others = [t for j in range(len(game.players)) if j != i for t in typed_rack(f"{form}_rack_{j}")]
                    reading = read_together({ReadingKind.RACK: reading}, game.rules, others)[ReadingKind.RACK]
            except PhotoError as err:
                st.error(ui.plain(tr("The photo cannot be read: {reason}", lang, reason=error_text(err, lang))))
            else:
                if not reading.chips:
                    st.warning(tr("No tiles found on the photo. Type them instead.", lang))
                else:
                    st.session_state[f"{form}_read_{i}_result"] = reading
                    st.session_state.pop(f"{form}_read_{i}_taken", None)
                    st.session_state.pop(f"{form}_read_{i}_kept_added", None)
                    st.session_state.pop(f"{form}_read_{i}_added", None)
                    st.session_state[f"{form}_read_{i}_fresh"] = True
                    st.rerun()
        if read:
            chips = read.chips
            st.image(read.annotated_jpeg, width="stretch")
            ui.show_html(ui.row_html(tr("Read", lang), [ui.reading_chip_html(c, lang) for c in chips]))
            st.caption(tr("Check the tiles above against the photo and fix the typed line if needed.", lang))
            unchanged = st.session_state.get(f"{form}_rack_{i}") == format_tiles((c.tile for c in chips), short=True)
            if unchanged and (unsure := unsure_rack_note(chips, lang)) is not None:
                st.warning(ui.plain(unsure))
            for note in photo_notes(read.doubtful, read.look, lang):
                st.caption(note)
            added_key = f"{form}_read_{i}_added"
            offers = [o for o in read.offers if o.number not in st.session_state.get(added_key, frozenset())]
            if offers:
                st.caption(tr(
                    "Numbered dashed boxes on the photo: the camera left them out as probably not tiles. "
                    "If one is a tile, add it to the typed line.", lang,
                ))
                for offer, column in ui.in_rows(offers):
                    column.button(
                        ui.offer_label(offer, lang), key=f"{form}_offer_{i}_{offer.number}", width="stretch",
                        on_click=add_to_line, args=(f"{form}_rack_{i}", offer, added_key),
                    )
        if ASK_UNMELDED:
            st.session_state.setdefault(f"{form}_unmelded_{i}", False)
            unmelded = st.checkbox(
                tr("Has not made the initial meld", lang), key=f"{form}_unmelded_{i}",
                help=(
                    tr("Under these rules a player who never melded pays 100, or 200 if they could have melded.", lang)
                    if game.rules.unmelded_scoring is UnmeldedScoring.FIXED_CHARGE
                    else tr("Under these rules a player who never melded pays their rack total to each other player.", lang)
                ),
            )
            if unmelded and game.rules.unmelded_scoring is UnmeldedScoring.FIXED_CHARGE:
                st.session_state.setdefault(f"{form}_could_meld_{i}", False)
                st.checkbox(tr("Could have made it (pays 200 instead of 100)", lang), key=f"{form}_could_meld_{i}")


def racks_from_form() -> tuple[PlayerRack, ...]:
    racks = []
    for i, player in enumerate(game.players):
        text = "" if player == ending else st.session_state.get(f"{form}_rack_{i}", "")
        # Kept as stored when these rules do not ask (so editing an old round loses nothing).
        opened = player == ending or not st.session_state.get(f"{form}_unmelded_{i}", False)
        could = not opened and st.session_state.get(f"{form}_could_meld_{i}", False)
        racks.append(PlayerRack(player, parse_tiles(text), opened, could))
    return tuple(racks)


c1, c2 = st.columns(2)
if c1.button(tr("Score the round", lang), type="primary", key=f"{form}_score"):
    remember_rack_fixes()
    try:
        racks = racks_from_form()
        outcome = PoolExhausted() if ending == POOL else WentOut(ending)
        result = score_round(racks, outcome, game.rules)
    except NotationError as err:
        st.error(ui.plain(tr("A rack cannot be read: {reason}", lang, reason=notation_error_text(err, lang))))
    except ScoringError as err:
        st.error(ui.plain(tr("This round cannot be scored: {reason}", lang, reason=error_text(err, lang))))
    else:
        session.put(PREVIEW, Preview(game.id, racks, result, editing.id if editing else None))
if editing and c2.button(tr("Cancel editing", lang), key=f"{form}_cancel"):
    session.drop(EDITING, PREVIEW)
    st.rerun()

preview: Preview | None = session.get(PREVIEW)
if preview is not None and preview.game_id == game.id and preview.replaces == (editing.id if editing else None):
    rows = []
    unmelded = {r.name for r in preview.racks if not r.made_initial_meld} if ASK_UNMELDED else set()
    for s in preview.result.scores:
        chips = [ui.chip_html(t, lang) for t in s.tiles]
        label = f"{s.name}: {s.score:+d}" + (WINNER if s.winner else "")
        rows.append(ui.row_html(label, chips))
        note = tr("rack total {total}", lang, total=s.rack_total)
        if s.name in unmelded and not s.winner and game.rules.unmelded_scoring is UnmeldedScoring.FIXED_CHARGE:
            note += " · " + tr("never melded: pays {points}", lang, points=-s.score)
        elif s.name in unmelded and not s.winner:
            note += " · " + tr("never melded: pays {points} to each other player", lang, points=s.rack_total)
        rows.append(f'<p class="rk-label">{html.escape(note)}</p>')
    ui.show_html("".join(rows))
    balance = sum(s.score for s in preview.result.scores)
    gained = sum(s.score for s in preview.result.scores if s.score > 0)
    if balance == 0:
        st.caption(tr("The round balances: winners gain {points}, the others pay {points}.", lang, points=gained))
    else:  # RoundResult refuses this; kept so a scoring bug could never be saved silently
        st.error(tr("The round does not sum to zero ({balance}); it cannot be saved.", lang, balance=balance))
    if balance == 0 and st.button(tr("Save the round", lang), type="primary", key=f"{form}_save"):
        try:
            if preview.replaces is None:
                store.add_round(game.id, preview.racks, preview.result)
                session.put(FLASH, tr("Round saved.", lang))
            else:
                store.replace_round(preview.replaces, preview.racks, preview.result)
                session.put(FLASH, tr("Round updated.", lang))
        except (StorageError, NotFoundError, ScoringError) as err:
            st.error(ui.plain(tr(
                "The round could not be saved (nothing was lost): {reason}", lang, reason=error_text(err, lang),
            )))
        else:
            session.forget(form + "_")
            session.put(FORM_NONCE, session.get(FORM_NONCE, 0) + 1)
            session.drop(PREVIEW, EDITING)
            st.rerun()

# --- the sheet --------------------------------------------------------------------------------

st.divider()
st.subheader(tr("Score sheet", lang))
if not saved:
    st.info(tr("No rounds yet.", lang))
    st.stop()

running = sheet.running_totals()
round_col, end_col = tr("Round", lang), tr("Outcome", lang)
table = pd.DataFrame(
    [
        {round_col: r.number, end_col: describe_outcome(r.result.outcome, lang)}
        | {p: r.result.by_name[p].score for p in game.players}
        | {tr("{player} total", lang, player=p): totals[p] for p in game.players}
        for r, totals in zip(saved, running)
    ]
)
st.dataframe(table, hide_index=True, width="stretch")
totals = sheet.totals()
cols = st.columns(len(game.players))
leader = max(totals.values())
for col, player in zip(cols, game.players):
    col.metric(ui.plain(player + (WINNER if totals[player] == leader else "")), totals[player])
chart = pd.DataFrame(running, index=pd.Index([r.number for r in saved], name=round_col))
st.line_chart(chart, x_label=round_col, y_label=tr("Total", lang))

st.markdown("**" + tr("Change a past round", lang) + "**")
c1, c2, c3 = st.columns([2, 1, 1], vertical_alignment="bottom")
chosen = c1.selectbox(
    tr("Round", lang), [r.id for r in saved], key="score_pick_round",
    format_func=lambda rid: next(
        tr("Round {n}: {outcome}", lang, n=r.number, outcome=describe_outcome(r.result.outcome, lang))
        for r in saved if r.id == rid
    ),
)
if c2.button(tr("Edit", lang), key="score_edit", width="stretch"):
    session.put(EDITING, chosen)
    session.drop(PREVIEW, CONFIRM_DELETE)
    st.rerun()
if c3.button(tr("Delete", lang), key="score_delete", width="stretch"):
    session.put(CONFIRM_DELETE, chosen)
pending = session.get(CONFIRM_DELETE)
if pending in [r.id for r in saved]:
    number = next(r.number for r in saved if r.id == pending)
    st.warning(tr("Delete round {n}? The totals will be recomputed.", lang, n=number))
    d1, d2 = st.columns(2)
    if d1.button(tr("Yes, delete it", lang), key="score_delete_yes", type="primary"):
        try:
            store.delete_round(pending)
        except (StorageError, NotFoundError) as err:
            st.error(ui.plain(tr("The round could not be deleted: {reason}", lang, reason=error_text(err, lang))))
        else:
            session.put(FLASH, tr("Round {n} deleted.", lang, n=number))
        session.drop(CONFIRM_DELETE, EDITING, PREVIEW)
        st.rerun()
    if d2.button(tr("Keep it", lang), key="score_delete_no"):
        session.drop(CONFIRM_DELETE)
        st.rerun()

csv_text = score_sheet_csv(sheet, lang)
st.download_button(
    tr("Download the score sheet (CSV)", lang), csv_text, file_name=f"rummikub-game-{game.id}.csv",
    mime="text/csv", key="score_csv",
)
with st.expander(tr("Score sheet as text (CSV)", lang)):
    st.code(csv_text, language=None)
