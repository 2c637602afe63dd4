"""The language: chosen in the sidebar, kept in the URL (``?lang=uk``), and every choice on
the page still chosen after a switch."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from solver.i18n import tr
from tests.app_helpers import MAIN, TIMEOUT_S, shown, start_app

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py


def opened_at(query: dict[str, str]) -> AppTest:
    """A new session opened on a URL with ``query`` (a reload, or a shared link)."""
    at = AppTest.from_file(str(MAIN), default_timeout=TIMEOUT_S)
    at.query_params.update(query)
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_language_in_the_url_is_used_on_a_new_session():
    at = opened_at({"lang": "uk"})
    assert at.selectbox(key="lang").value == "uk"
    assert at.title[0].value == tr("What should I play?", "uk")


def test_choosing_a_language_writes_it_into_the_url():
    at = start_app()
    assert at.query_params["lang"] == "en"
    at.selectbox(key="lang").set_value("ro").run()
    assert at.query_params["lang"] == "ro"
    assert opened_at(dict(at.query_params)).title[0].value == tr("What should I play?", "ro")  # the reload


def test_an_unknown_language_in_the_url_falls_back_and_is_corrected():
    at = opened_at({"lang": "xx"})
    assert at.selectbox(key="lang").value == "en"
    assert at.query_params["lang"] == "en"


def test_the_page_links_keep_the_language():
    at = opened_at({"lang": "ru"})
    links = at.get("page_link")
    pages = [tr("Play", "ru"), tr("Score", "ru"), tr("Timer", "ru"), tr("Check a turn", "ru"), tr("My tiles", "ru")]
    assert [link.proto.label for link in links] == pages
    assert [link.proto.query_string for link in links] == ["lang=ru"] * len(pages)


def test_the_uploaders_own_label_and_help_are_translated():
    at = opened_at({"lang": "uk"})
    upload = at.get("file_uploader")[0]
    assert upload.proto.label == tr("Photo of the table", "uk")
    assert upload.proto.help == tr("A photo from the phone's camera or gallery, or a screenshot, up to 25 MB.", "uk")


def test_who_went_out_stays_chosen_after_switching_language():
    at = start_app("score")
    for i, name in enumerate(("Ann", "Bob")):
        at.text_input(key=f"score_new_player_{i}").input(name)
    next(b for b in at.button if b.label == "Start the game").click().run()
    ending = next(r for r in at.radio if r.key.endswith("_end"))
    ending.set_value("Bob").run()
    at.selectbox(key="lang").set_value("uk").run()
    ending = next(r for r in at.radio if r.key.endswith("_end"))
    assert ending.value == "Bob"
    assert ending.proto.set_value and shown(ending.proto.raw_value) == tr("{player} went out", "uk", player="Bob")
