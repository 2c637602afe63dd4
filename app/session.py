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

from solver.i18n import DEFAULT_LANGUAGE, LANGUAGES
from solver.rules import CUSTOM, PRESETS, STANDARD, PoolOutScoring, RuleSet, UnmeldedScoring

from .storage import ScoreStore, default_database_path

LANG = "lang"
RULES_PRESET = "rules_preset"
#: The sidebar's switch for each rule setting: ``RuleSet`` field -> session key. The preset
#: fills them; changing one names the rules after the preset they then match, or "custom".
RULE_SWITCHES = {
    name: f"rule_{name}"
    for name in (
        "initial_meld_threshold",
        "jokers",
        "starting_tiles",
        "jokers_in_initial_meld",
        "group_colours_distinct",
        "pool_out_scoring",
        "unmelded_scoring",
        "joker_penalty",
        "players",
        "starting_jokers",
    )
}
_ENUMS = {"pool_out_scoring": PoolOutScoring, "unmelded_scoring": UnmeldedScoring}

#: Widget values that must survive switching pages (Streamlit drops a widget's value when
#: the page holding it is not shown; re-storing it each run keeps it).
PERSISTENT_WIDGETS = (
    LANG,
    RULES_PRESET,
    *RULE_SWITCHES.values(),
    "play_table_text",
    "play_rack_text",
    "play_initial_meld_done",
    "play_objective",
    "score_game",
    "score_pick_round",
    "timer_length",
    "tiles_active_profile",  # app.tile_profiles.ACTIVE: the tile profile every photo is read with
    "play_teach_profile",  # app.tile_profiles.TEACH
)
#: Where the session keeps the keys of widgets registered with :func:`keep` (keys made per
#: form or per reading, which :data:`PERSISTENT_WIDGETS` cannot list).
_KEPT = "kept_widget_keys"

LANGUAGE_NAMES = {"en": "English", "uk": "Українська", "ru": "Русский", "ro": "Română"}


def keep(key: str) -> str:
    """Register a widget's key so its value is re-stored on every run, like
    :data:`PERSISTENT_WIDGETS`; returns the key (``key=session.keep(...)``).

    Needed by every choice whose option labels are translated: Streamlit's browser side
    remembers a radio's or selectbox's choice by its label, so after a language switch it
    would hold a label the new options no longer have and show nothing selected. A value
    re-stored from the server is sent with the new labels. Such a widget must take its
    default through ``st.session_state.setdefault`` (not ``index=``/``value=``).
    """
    kept = st.session_state.setdefault(_KEPT, set())
    kept.add(key)
    return key


def forget(prefix: str) -> None:
    """Drop the state of every widget whose key starts with ``prefix`` (a finished form, an
    old reading's editor), registered or not."""
    for key in [k for k in st.session_state if str(k).startswith(prefix)]:
        del st.session_state[key]
    st.session_state[_KEPT] = {k for k in st.session_state.get(_KEPT, set()) if not k.startswith(prefix)}


def keep_widget_state() -> None:
    """Re-store the kept widgets' values (before any widget is drawn)."""
    for key in (*PERSISTENT_WIDGETS, *sorted(st.session_state.get(_KEPT, set()))):
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
    """The language every string on the page is shown in: the one chosen in this session,
    else the URL's ``?lang=`` (so a reload or a shared link keeps it), else the browser's."""
    value = st.session_state.get(LANG)
    if value not in LANGUAGES:
        value = st.query_params.get(LANG)
        if value not in LANGUAGES:
            value = browser_language()
        st.session_state[LANG] = value
    return value


def show_language_in_url(value: str) -> None:
    """Write the language into the URL (``?lang=uk``) unless it is there already."""
    if st.query_params.get(LANG) != value:
        st.query_params[LANG] = value


def _switch_value(rules: RuleSet, name: str) -> object:
    value = getattr(rules, name)
    return value.value if name in _ENUMS else value


def fill_rule_switches(rules: RuleSet) -> None:
    """Set every rule switch to ``rules`` (before the widgets are drawn, or in a callback)."""
    for name, key in RULE_SWITCHES.items():
        st.session_state[key] = _switch_value(rules, name)


def ensure_rule_switches() -> None:
    """First run: the switches show the chosen preset (standard until one is chosen)."""
    if st.session_state.get(RULES_PRESET) not in [*PRESETS, CUSTOM]:
        st.session_state[RULES_PRESET] = "standard"
    if any(key not in st.session_state for key in RULE_SWITCHES.values()):
        fill_rule_switches(PRESETS.get(st.session_state[RULES_PRESET], STANDARD))


def preset_chosen() -> None:
    """Callback of the preset picker: the switches take the preset's values ("custom" keeps them)."""
    name = st.session_state.get(RULES_PRESET)
    if name in PRESETS:
        fill_rule_switches(PRESETS[name])


def switch_changed() -> None:
    """Callback of every rule switch: the picker shows the preset the switches now match."""
    st.session_state[RULES_PRESET] = rules().name


def rules() -> RuleSet:
    """The rule set the sidebar's switches describe, named after the preset it matches
    ("custom" when none); the standard game until anything is chosen."""
    values = {}
    for name, key in RULE_SWITCHES.items():
        if key in st.session_state:
            value = st.session_state[key]
            values[name] = _ENUMS[name](value) if name in _ENUMS else value
    base = PRESETS.get(st.session_state.get(RULES_PRESET, "standard"), STANDARD)
    return base.with_(**values)


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
