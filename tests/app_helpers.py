"""Shared set-up for the Streamlit AppTest tests: a fresh app on a private database."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

MAIN = Path(__file__).resolve().parents[1] / "app" / "main.py"
#: Generous: the first solve imports OR-Tools, the first photo loads the models.
TIMEOUT_S = 120


def start_app(page: str | None = None) -> AppTest:
    """Run the app once (optionally switched to ``views/<page>.py``) and return it."""
    at = AppTest.from_file(str(MAIN), default_timeout=TIMEOUT_S).run()
    if page is not None:
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, at.exception
    return at


#: A CommonMark backslash escape: a backslash before ASCII punctuation shows that character.
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown(markdown: str) -> str:
    """What a player reads in a Markdown element whose source is ``markdown``: the escapes
    and invisible word joiners the app adds to typed text (``app.components.plain``) gone."""
    return _ESCAPED.sub(r"\1", markdown).replace("\u2060", "")


def texts(elements) -> list[str]:
    """The text of each element as shown (Markdown escapes resolved)."""
    return [shown(e.value) for e in elements]


def all_markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def error_lines(at: AppTest) -> list[str]:
    """Every line of every error box, without list bullets."""
    return [line.removeprefix("- ") for e in texts(at.error) for line in e.splitlines() if line.strip()]
