"""The Timer page's game clock: each player's own time, as on a chess clock (tournament play).

The clock lives in ``st.session_state[GAME_CLOCK]`` as one :class:`app.clock.GameClock`; the
buttons replace it in callbacks and only the display fragment reruns each second.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence

import streamlit as st

from solver.i18n import error_text, tr

from . import session
from .clock import MSO_2019, ClockError, ClockSettings, GameClock, PerMove, configure, end_move, out_of_time, pause, start, time_left
from .components import show_html
from .timer import clock_text

GAME_CLOCK = "game_clock"
MAIN_MINUTES = "clock_main_minutes"
PER_MOVE = "clock_per_move_seconds"
KIND = "clock_kind"

_CSS = """
<style>
.rk-clocks{display:flex;gap:.6rem}
.rk-side{flex:1;border-radius:1rem;padding:.8rem;text-align:center;background:#f4f1e8;color:#1b1b1b;opacity:.6}
.rk-side-now{opacity:1;outline:4px solid #2e9d44}
.rk-side-out{background:#d0182b;color:#fff;opacity:1}
.rk-side-name{font:600 1.5rem/1.2 system-ui,sans-serif}
.rk-side-time{font:800 4.5rem/1 system-ui,sans-serif;font-variant-numeric:tabular-nums}
.rk-flag{margin:.6rem 0;padding:.6rem;border-radius:.5rem;background:#fde2e4;color:#8a0f1c;font-weight:600}
</style>
"""


def kind_label(kind: str, lang: str) -> str:
    labels = {
        PerMove.BRONSTEIN.value: tr("Bronstein delay (time used is given back, up to the delay)", lang),
        PerMove.FISCHER.value: tr("Fischer increment (added after every move)", lang),
    }
    return labels[kind]


def settings_from_widgets(lang: str) -> ClockSettings | None:
    """The clock the player set up (the MSO's 10 min + 10 s Bronstein to begin with); ``None``
    after a message when it cannot exist (e.g. a main time of zero)."""
    st.session_state.setdefault(MAIN_MINUTES, MSO_2019.main_seconds / 60)
    st.session_state.setdefault(PER_MOVE, MSO_2019.per_move_seconds)
    st.session_state.setdefault(KIND, MSO_2019.per_move.value)
    c1, c2 = st.columns(2)
    minutes = c1.number_input(tr("Main time per player (minutes)", lang), min_value=0.0, max_value=600.0, step=1.0, key=MAIN_MINUTES)
    seconds = c2.number_input(tr("Seconds per move", lang), min_value=0.0, max_value=600.0, step=1.0, key=PER_MOVE)
    kind = st.radio(tr("Time per move", lang), [k.value for k in PerMove], key=KIND, format_func=lambda k: kind_label(k, lang))
    try:
        return ClockSettings(minutes * 60, seconds, PerMove(kind))
    except ClockError as err:
        st.error(tr("The clock cannot be used: {reason}.", lang, reason=error_text(err, lang)))
        return None


def act(action) -> None:
    """A button's callback: the new clock from the old one at this moment. Ending a move after
    the time ran out only stops the clock: the flag has fallen."""
    clock: GameClock = session.get(GAME_CLOCK)
    now = time.monotonic()
    if action is end_move and out_of_time(clock, now):
        action = pause
    session.put(GAME_CLOCK, action(clock, now))


def clocks_html(clock: GameClock, now: float) -> str:
    sides = []
    for seat, name in enumerate(clock.players):
        left = time_left(clock, seat, now)
        klass = "rk-side"
        if seat == clock.current:
            klass += " rk-side-out" if left <= 0 else " rk-side-now"
        sides.append(
            f'<div class="{klass}"><div class="rk-side-name">{html.escape(name)}</div>'
            f'<div class="rk-side-time">{clock_text(left)}</div></div>'
        )
    return f'<div class="rk-clocks">{"".join(sides)}</div>'


def game_clock_panel(players: Sequence[str], lang: str) -> None:
    if len(players) < 2:
        st.info(tr("The game clock needs at least two players.", lang))
        return
    settings = settings_from_widgets(lang)
    if settings is None:
        return
    clock = configure(session.get(GAME_CLOCK), players, settings)
    session.put(GAME_CLOCK, clock)
    now = time.monotonic()
    c1, c2, c3 = st.columns(3)
    c1.button(tr("Start", lang), key="clock_start", width="stretch", disabled=clock.running, on_click=act, args=(start,))
    c2.button(tr("Pause", lang), key="clock_pause", width="stretch", disabled=not clock.running, on_click=act, args=(pause,))
    c3.button(
        tr("End the move", lang), key="clock_end_move", type="primary", width="stretch",
        disabled=not clock.running or out_of_time(clock, now), on_click=act, args=(end_move,),
    )
    if st.button(tr("New game: reset the clock", lang), key="clock_reset"):
        session.put(GAME_CLOCK, configure(None, players, settings))
        st.rerun()

    @st.fragment(run_every=1 if clock.running else None)
    def display() -> None:
        clock: GameClock = session.get(GAME_CLOCK)
        now = time.monotonic()
        flag = ""
        if out_of_time(clock, now):  # in HTML, escaped: a player's name is never read as Markdown
            flag = f'<p class="rk-flag" role="alert">{html.escape(tr("{player}’s time is up.", lang, player=clock.player))}</p>'
        show_html(_CSS + clocks_html(clock, now) + flag)
        st.caption(tr("Moves played: {count}", lang, count=clock.moves))

    display()
