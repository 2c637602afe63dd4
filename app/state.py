"""Session state in one place: the language, the rule set, the score database, page data.

Streamlit reruns a page's script on every tap; whatever must survive a rerun (the reading
being fixed, the last suggestion, the open game) lives in ``st.session_state`` under the
keys below. Language and rules are chosen once, in the sidebar, and read from here by every
page, so a page never picks its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from solver.i18n import DEFAULT_LANGUAGE, LANGUAGES, tr
from solver.rules import PRESETS, STANDARD, RuleSet

from .storage import ScoreStore, default_database_path

LANG = "lang"
RULES_PRESET = "rules_preset"

#: Widget values that must survive switching pages (Streamlit drops a widget's value when
#: the page holding it is not shown; re-storing it each run keeps it).
PERSISTENT_WIDGETS = (
    LANG,
    RULES_PRESET,
    "play_table_text",
    "play_rack_text",
    "play_initial_meld_done",
    "play_objective",
    "score_game",
)

LANGUAGE_NAMES = {"en": "English", "uk": "Українська", "ru": "Русский", "ro": "Română"}


def keep_widget_state() -> None:
    for key in PERSISTENT_WIDGETS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def browser_language() -> str:
    """The browser's language when the app speaks it, else English."""
    try:
        locale = st.context.locale or ""
    except AttributeError:  # pragma: no cover - older Streamlit without st.context.locale
        locale = ""
    code = locale.split("-")[0].lower()
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def lang() -> str:
    """The language every string on the page is shown in."""
    value = st.session_state.get(LANG)
    if value not in LANGUAGES:
        value = browser_language()
        st.session_state[LANG] = value
    return value


def rules() -> RuleSet:
    """The rule set chosen in the sidebar (standard until one is chosen)."""
    return PRESETS.get(st.session_state.get(RULES_PRESET, "standard"), STANDARD)


@st.cache_resource(show_spinner=False)
def _store_at(path: str) -> ScoreStore:
    return ScoreStore(Path(path))


def store() -> ScoreStore:
    """The score database at ``$RUMMIKUB_DATA_DIR`` (opened once per file, shared by sessions)."""
    return _store_at(str(default_database_path()))


def get(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def put(key: str, value: Any) -> None:
    st.session_state[key] = value


def drop(*keys: str) -> None:
    for key in keys:
        st.session_state.pop(key, None)


def preset_label(name: str, lang: str) -> str:
    """A rule preset's name as players read it."""
    labels = {
        "standard": tr("Standard", lang),
        "opening-50": tr("Initial meld 50", lang),
        "four-jokers": tr("Four jokers", lang),
        "sixteen-tiles": tr("Sixteen starting tiles", lang),
        "no-joker-opening": tr("No jokers in the initial meld", lang),
    }
    return labels.get(name, name)


def rules_summary(rules: RuleSet, lang: str) -> str:
    """The rules in one line, shown beside every answer and score sheet."""
    return tr(
        "Rules: {name} · initial meld {threshold} · {jokers} jokers", lang,
        name=preset_label(rules.name, lang), threshold=rules.initial_meld_threshold, jokers=rules.jokers,
    )
