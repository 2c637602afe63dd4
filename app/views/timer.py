"""Timer: whose turn it is and a big countdown the whole table can read, with the penalty rule.

The timer lives in ``st.session_state[TIMER]`` as one :class:`app.timer.TurnTimer` value; the
buttons replace it (in callbacks, before the page is drawn) and only the countdown fragment
reruns each second, reading the clock from the stored timestamps.

The clock and its buttons come first (on a phone they fill the first screen); the settings
they depend on are drawn below them, into the slots kept at the top.
"""

from __future__ import annotations

import base64
import time
from functools import cache

import streamlit as st

from app import components as ui
from app import session
from app.clock_panel import GAME_CLOCK, game_clock_panel
from app.storage import NotFoundError, StorageError
from app.turn_reading import show_turn_start
from app.timer import (
    TURN_LENGTHS,
    TurnTimer,
    beep_wav,
    clock_text,
    configure,
    expired,
    next_turn,
    pause,
    remaining,
    start,
)
from solver.i18n import tr

TIMER = "timer"
PLAYERS_TEXT = "timer_players_text"
LENGTH = "timer_length"
BEEP = "timer_beep"
MODE = "timer_mode"
#: The Score page's game picker (``GAME_PICKER`` in app/views/score.py): its players sit at the table.
SCORE_GAME = "score_game"

lang = session.lang()
st.title(tr("Turn timer", lang))
clock_slot = st.container(key="timer_clock")
buttons_slot = st.container(key="timer_buttons")


def seated_players() -> tuple[str, ...]:
    """The open score game's players, else the names typed here (seat order either way)."""
    game_id = session.get(SCORE_GAME)
    if game_id is not None:
        try:
            game = session.store().game(game_id)
        except (StorageError, NotFoundError):
            pass
        else:
            st.caption(ui.plain(tr(
                "Players of game {id}, in seat order: {players}", lang, id=game.id, players=", ".join(game.players),
            )))
            return game.players
    timer: TurnTimer | None = session.get(TIMER)
    if PLAYERS_TEXT not in st.session_state and timer is not None:  # back from another page
        st.session_state[PLAYERS_TEXT] = ", ".join(timer.players)
    text = st.text_input(
        tr("Players in seat order (separated by commas)", lang), key=PLAYERS_TEXT, placeholder="Ann, Bob, Cy",
    )
    return tuple(name.strip() for name in text.split(",") if name.strip())


def length_label(seconds: int) -> str:
    return tr("Off", lang) if seconds == 0 else tr("{seconds} s", lang, seconds=seconds)


def rule_caption() -> None:
    st.caption(tr(
        "Most rulebooks allow one minute a turn. A player who has not finished in time puts the table "
        "back as it was and draws 3 tiles.", lang,
    ))


players = seated_players()
if not players:
    st.info(tr("Type the players' names to use the timer.", lang))
    rule_caption()
    st.stop()

if MODE not in st.session_state:  # the last choice, also when coming back from another page
    st.session_state[MODE] = "clock" if session.get(GAME_CLOCK) is not None else "turn"
mode = st.radio(
    tr("Timer", lang), ["turn", "clock"], key=MODE, horizontal=True,
    format_func=lambda m: tr("Turn timer", lang) if m == "turn" else tr("Game clock (tournament)", lang),
)
if mode == "clock":
    game_clock_panel(players, lang)
    st.stop()

timer: TurnTimer | None = session.get(TIMER)
if LENGTH not in st.session_state:  # the last setting, also when coming back from another page
    st.session_state[LENGTH] = int(timer.turn_seconds or 0) if timer is not None else 60
seconds = st.radio(tr("Turn length", lang), TURN_LENGTHS, key=LENGTH, format_func=length_label, horizontal=True)
beep = st.toggle(tr("Beep when time is up", lang), value=True, key=BEEP, disabled=not seconds)
rule_caption()
timer = configure(timer, players, seconds or None)
session.put(TIMER, timer)


def act(action) -> None:
    """A button's callback: the new timer from the old one at this moment."""
    session.put(TIMER, action(session.get(TIMER), time.monotonic()))


@cache
def beep_html() -> str:
    data = base64.b64encode(beep_wav()).decode("ascii")
    return f'<audio autoplay src="data:audio/wav;base64,{data}"></audio>'


def countdown_html(timer: TurnTimer, left: float, up: bool) -> str:
    state_class = "rk-timer-up" if up else ("" if timer.running else "rk-timer-paused")
    return (
        f'<div class="rk-timer {state_class}">'
        f'<div class="rk-timer-player">{ui.html_text(timer.player)}</div>'
        f'<div class="rk-clock">{clock_text(left)}</div></div>'
    )


if timer.turn_seconds is None:
    with clock_slot:
        ui.show_html(f'<div class="rk-timer"><div class="rk-timer-player">{ui.html_text(timer.player)}</div></div>')
        st.info(tr("The timer is off: only whose turn it is is shown.", lang))
    buttons_slot.button(
        tr("Next player", lang), key="timer_next", type="primary", width="stretch", on_click=act, args=(next_turn,),
    )
    st.stop()

with buttons_slot.container(horizontal=True, gap="small"):  # one row, also on a phone
    st.button(tr("Start", lang), key="timer_start", width="stretch", disabled=timer.running, on_click=act, args=(start,))
    st.button(tr("Pause", lang), key="timer_pause", width="stretch", disabled=not timer.running, on_click=act, args=(pause,))
    st.button(tr("Next player", lang), key="timer_next", type="primary", width="stretch", on_click=act, args=(next_turn,))


@st.fragment(run_every=1 if timer.running else None)
def countdown() -> None:
    """Only this part reruns each second while the clock runs."""
    timer: TurnTimer = session.get(TIMER)
    now = time.monotonic()
    up = expired(timer, now)
    ui.show_html(countdown_html(timer, remaining(timer, now), up))
    if up:
        st.error(tr("Time is up: put the table back as it was and draw 3 tiles.", lang))
        show_turn_start(lang)
        if beep and timer.running:
            ui.show_html(beep_html())


with clock_slot:
    countdown()
