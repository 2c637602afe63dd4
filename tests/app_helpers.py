"""Shared set-up for the Streamlit AppTest tests: a fresh app on a private database."""

from __future__ import annotations

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


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def all_markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def error_lines(at: AppTest) -> list[str]:
    """Every line of every error box, without list bullets."""
    return [line.removeprefix("- ") for e in at.error for line in e.value.splitlines() if line.strip()]
