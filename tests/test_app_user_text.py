"""What a player types is shown as text: names and notation never become Markdown.

Streamlit reads labels, radio options, metric labels, captions and alerts as Markdown, so a
player named ``![p](http://127.0.0.1:9/t.png)`` would make the page fetch that address. The
checks here look at the Markdown sources the app sends (AppTest sees those); the browser
test checks the rendered page makes no such request.
"""

from __future__ import annotations

import re

import pytest

from app.components import html_text, plain
from tests.app_helpers import all_markdown, shown, start_app, texts

pytestmark = pytest.mark.usefixtures("private_database")  # tests/conftest.py

IMAGE = "![p](http://127.0.0.1:9/t.png)"
LINK = "[click](http://127.0.0.1:9/)"
#: Markdown that would do something if it were read as Markdown (an image, a link, emphasis,
#: a Streamlit colour directive, LaTeX, raw HTML).
MARKDOWN_NAMES = (IMAGE, LINK, "**Bo**", ":red[Cy]", "$x^2$", "<b>Di</b>")


def markdown_sources(at) -> list[str]:
    """Every string on the page that Streamlit renders as Markdown."""
    sources = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "subheader"):
        sources += [e.value for e in at.get(kind)]
    for kind in ("radio", "selectbox", "text_input", "text_area", "checkbox", "toggle", "button", "metric", "expander"):
        sources += [e.label for e in at.get(kind)]
    sources += [option for radio in at.radio for option in radio.options]
    return sources


def assert_inert(at) -> None:
    """No source holds an unescaped link or image, emphasis, directive, LaTeX or tag, nor an
    address that GitHub-flavoured Markdown would link by itself."""
    for source in markdown_sources(at):
        for active in ("](", "![", "**Bo**", ":red[", "$x", "<b>"):
            assert active not in source, source
        if not source.startswith("<div"):  # an HTML block, where Markdown links nothing
            assert not re.search(r"(?<!\u2060)(?i:https?\\?:|www\\?\.)", source), source


def by_suffix(widgets, suffix: str):
    (match,) = [w for w in widgets if w.key and w.key.endswith(suffix)]
    return match


def test_plain_escapes_every_ascii_punctuation_and_keeps_the_text():
    everything = "".join(chr(c) for c in range(0x20, 0x7F)) + " José ★ 7"
    escaped = plain(everything)
    assert shown(escaped) == everything
    assert all(f"\\{c}" in escaped for c in "![]()*_`~$:<>#|\\{}")
    assert plain("Ann") == "Ann" and plain("Ann Lee") == "Ann Lee"  # plain names are untouched


def test_plain_keeps_addresses_from_being_linked():
    # GFM links addresses found in the text itself, escapes or not; a word joiner before
    # them (after "@") keeps them text.
    assert plain("see http://x.org, HTTPS://y, www.z.org or a@b.co") == (
        "see \u2060http\\:\\/\\/x\\.org\\, \u2060HTTPS\\:\\/\\/y\\, \u2060www\\.z\\.org or a\\@\u2060b\\.co"
    )
    assert shown(plain("a@b.co http://x")) == "a@b.co http://x"


def test_html_text_makes_markdown_and_tags_inert():
    assert html_text(LINK) == "&#91;click&#93;&#40;http://127.0.0.1:9/&#41;"
    assert html_text("<b>&'\"") == "&#60;b&#62;&#38;&#39;&#34;"


def test_player_names_are_text_on_the_score_page_and_the_timer():
    at = start_app("score")
    for i, name in enumerate(MARKDOWN_NAMES[:4]):
        at.text_input(key=f"score_new_player_{i}").input(name)
    next(b for b in at.button if b.label == "Start the game").click().run()
    assert not at.exception, at.exception
    ending = by_suffix(at.radio, "_end")
    assert [shown(o) for o in ending.options] == [f"{name} went out" for name in MARKDOWN_NAMES[:4]] + ["pool exhausted"]
    rack_headings = [shown(m.value) for m in at.markdown if m.value.startswith("**")]
    assert rack_headings == [f"**{name}’s rack**" for name in MARKDOWN_NAMES[1:4]]
    assert_inert(at)

    for seat, tiles in {1: "r7", 2: "k3", 3: "o5"}.items():
        by_suffix(at.text_input, f"_rack_{seat}").input(tiles)
    by_suffix(at.button, "_score").click().run()
    assert html_text(LINK) + ": -7" in all_markdown(at)  # the preview's rows
    assert LINK not in all_markdown(at)
    by_suffix(at.button, "_save").click().run()
    assert not at.exception, at.exception
    assert [shown(m.label) for m in at.metric] == [f"{IMAGE} ★", LINK, "**Bo**", ":red[Cy]"]
    assert_inert(at)

    at.switch_page("views/timer.py").run()  # the open game's players sit at the table
    assert not at.exception, at.exception
    assert f"in seat order: {', '.join(MARKDOWN_NAMES[:4])}" in " ".join(texts(at.caption))
    assert f'class="rk-timer-player">{html_text(IMAGE)}<' in all_markdown(at)
    assert_inert(at)


def test_names_typed_on_the_timer_are_text():
    at = start_app("timer")
    at.text_input(key="timer_players_text").input(f"{LINK}, Bob").run()
    assert not at.exception, at.exception
    assert f'class="rk-timer-player">{html_text(LINK)}<' in all_markdown(at)
    assert_inert(at)


def test_typed_notation_quoted_in_errors_is_text():
    at = start_app()
    at.text_area(key="play_rack_text").input(LINK)
    at.button(key="play_read").click().run()
    (error,) = texts(at.error)
    assert error.startswith(f"In the typed rack: cannot read tile '{LINK[:20]}…' (")  # long tokens shortened
    assert_inert(at)

    at.text_area(key="play_rack_text").input("r7")
    at.button(key="play_read").click().run()
    editor = f"play_edit_{at.session_state['play_reading'].revision}"
    at.text_input(key=f"{editor}_add_tiles").input(IMAGE)
    at.button(key=f"{editor}_add").click().run()
    (error,) = texts(at.error)
    assert error.startswith(f"cannot read tile '{IMAGE[:20]}…' (")
    assert_inert(at)


def test_notation_in_a_score_rack_is_text_in_the_error():
    at = start_app("score")
    for i, name in enumerate(("Ann", "Bob")):
        at.text_input(key=f"score_new_player_{i}").input(name)
    next(b for b in at.button if b.label == "Start the game").click().run()
    by_suffix(at.text_input, "_rack_1").input(IMAGE)
    by_suffix(at.button, "_score").click().run()
    (error,) = texts(at.error)
    assert error.startswith(f"A rack cannot be read: cannot read tile '{IMAGE[:20]}…' (")
    assert_inert(at)
