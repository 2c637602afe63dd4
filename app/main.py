"""Entry point: ``streamlit run app/main.py``. The sidebar (language, rules), the page links
and the pages.

The page links are a row at the top of the page itself, not Streamlit's navigation bar: on a
phone that bar folds into the sidebar, behind "»", and the sidebar then stays open over
the page it opened.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import components as ui  # noqa: E402
from app import photos, session  # noqa: E402
from app.join import join_panel  # noqa: E402
from app.rules_text import pool_label, preset_label, unmelded_label  # noqa: E402
from solver.i18n import LANGUAGES, tr  # noqa: E402
from solver.rules import CUSTOM, PRESETS, PoolOutScoring, UnmeldedScoring  # noqa: E402

photos.warm_up_in_background()  # once per server process: the first photo is as fast as the next
session.keep_widget_state()
session.ensure_rule_switches()
lang = session.lang()
st.set_page_config(page_title=tr("Rummikub assistant", lang), page_icon="🀄", layout="centered")


def rule_switches(lang: str) -> None:
    """Every rule setting; the preset fills them, and changing one makes the rules "custom"
    (or the preset they then match)."""
    keys, changed = session.RULE_SWITCHES, session.switch_changed
    st.number_input(
        tr("Initial meld: at least (points)", lang), min_value=0, max_value=200, step=5,
        key=keys["initial_meld_threshold"], on_change=changed,
    )
    st.radio(tr("Jokers in the game", lang), [2, 4], horizontal=True, key=keys["jokers"], on_change=changed)
    st.radio(
        tr("Starting tiles per player", lang), [14, 16], horizontal=True, key=keys["starting_tiles"],
        on_change=changed,
    )
    st.toggle(tr("Jokers allowed in the initial meld", lang), key=keys["jokers_in_initial_meld"], on_change=changed)
    st.toggle(
        tr("Groups: every tile a different colour", lang), key=keys["group_colours_distinct"], on_change=changed,
        help=tr("Off: a group may repeat a colour, as some rulebooks allow.", lang),
    )
    st.number_input(
        tr("A joker left on a rack costs (points)", lang), min_value=0, max_value=200, step=5,
        key=keys["joker_penalty"], on_change=changed,
    )
    st.selectbox(
        tr("Pool exhausted, nobody can move", lang), [v.value for v in PoolOutScoring],
        key=keys["pool_out_scoring"], on_change=changed,
        format_func=lambda value: pool_label(PoolOutScoring(value), lang),
    )
    st.selectbox(
        tr("A player who never made the initial meld", lang), [v.value for v in UnmeldedScoring],
        key=keys["unmelded_scoring"], on_change=changed,
        format_func=lambda value: unmelded_label(UnmeldedScoring(value), lang),
    )
    st.radio(
        tr("Players", lang), [0, 2], horizontal=True, key=keys["players"], on_change=changed,
        format_func=lambda count: tr("any number", lang) if count == 0 else str(count),
    )
    st.radio(
        tr("Jokers dealt to each player at the start", lang), [0, 1], horizontal=True,
        key=keys["starting_jokers"], on_change=changed,
    )


with st.sidebar:
    st.selectbox(
        tr("Language", lang), LANGUAGES, key=session.LANG,
        format_func=lambda code: session.LANGUAGE_NAMES.get(code, code),
    )
    lang = session.lang()
    session.show_language_in_url(lang)
    st.selectbox(
        tr("Rules", lang), [*PRESETS, CUSTOM], key=session.RULES_PRESET, on_change=session.preset_chosen,
        format_func=lambda name: preset_label(name, lang),
        help=tr("The rulebook variant used for moves and for new games' scores.", lang),
    )
    with st.expander(tr("Rule settings", lang)):
        rule_switches(lang)
    join_panel(lang)

pages = [
    st.Page("views/play.py", title=tr("Play", lang), icon=":material/casino:", default=True),
    st.Page("views/score.py", title=tr("Score", lang), icon=":material/scoreboard:"),
    st.Page("views/timer.py", title=tr("Timer", lang), icon=":material/timer:"),
    st.Page("views/turn.py", title=tr("Check a turn", lang), icon=":material/rule:"),
    st.Page("views/tiles.py", title=tr("My tiles", lang), icon=":material/grid_view:"),
]
navigation = st.navigation(pages, position="hidden")
ui.inject_css()
with st.container(horizontal=True, key="rk_pages", gap="small"):
    for page in pages:
        st.page_link(page, query_params={session.LANG: lang})
navigation.run()
