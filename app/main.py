"""Entry point: ``streamlit run app/main.py``. The sidebar (language, rules) and the pages."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import state  # noqa: E402
from solver.i18n import LANGUAGES, tr  # noqa: E402
from solver.rules import PRESETS  # noqa: E402

state.keep_widget_state()
lang = state.lang()
st.set_page_config(page_title=tr("Rummikub assistant", lang), page_icon="🀄", layout="centered")

with st.sidebar:
    st.selectbox(
        tr("Language", lang), LANGUAGES, key=state.LANG,
        format_func=lambda code: state.LANGUAGE_NAMES.get(code, code),
    )
    lang = state.lang()
    st.selectbox(
        tr("Rules", lang), list(PRESETS), key=state.RULES_PRESET,
        format_func=lambda name: state.preset_label(name, lang),
        help=tr("The rulebook variant used for moves and for new games' scores.", lang),
    )

pages = [
    st.Page("views/play.py", title=tr("Play", lang), icon=":material/casino:", default=True),
    st.Page("views/score.py", title=tr("Score", lang), icon=":material/scoreboard:"),
    st.Page("views/timer.py", title=tr("Timer", lang), icon=":material/timer:"),
]
st.navigation(pages, position="top").run()
