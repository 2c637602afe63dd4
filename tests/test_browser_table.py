"""At the table in a real browser: the sidebar's QR code decodes to the server's home-network
address, and a turn that takes a tile back to the rack is reported (Chromium, as tests/test_browser.py)."""

from __future__ import annotations

import base64
from urllib.parse import urlsplit

from app import network
from tests.test_browser import (  # noqa: F401 - the fixtures and the skip conditions
    STEP_TIMEOUT_MS,
    click_until,
    page,
    pytestmark,
    server,
    wait_idle,
)
from tests.test_network import decode_qr


def test_the_qr_code_in_the_sidebar_decodes_to_the_apps_address_in_chromium(server, page):
    page.goto(server, wait_until="networkidle")
    page.get_by_text("What should I play?").wait_for(timeout=STEP_TIMEOUT_MS)
    page.get_by_text("Join from a phone").click()
    image = page.locator("img.rk-join-qr")
    image.wait_for(timeout=STEP_TIMEOUT_MS)
    source = image.get_attribute("src")
    assert source.startswith("data:image/png;base64,")
    port = urlsplit(server).port
    assert decode_qr(base64.b64decode(source.split(",", 1)[1])) == network.app_url(network.lan_address(), port)


def test_a_turn_that_takes_a_tile_back_is_reported_in_chromium(server, page):
    page.goto(f"{server}/turn", wait_until="networkidle")
    page.get_by_role("heading", name="Check a turn").wait_for(timeout=STEP_TIMEOUT_MS)
    page.get_by_label("Table, typed (melds separated by |)").first.fill("r4 r5 r6 | k5 b5 o5 | b9 b10 b11")
    page.get_by_label("Table, typed (melds separated by |)").first.press("Tab")
    click_until(page, "Record the start of the turn", page.get_by_text("2. The table at the end of the turn"))
    wait_idle(page)
    page.get_by_label("Table, typed (melds separated by |)").nth(1).fill("r4 r5 r6 r7 | k5 o5 | b9 b10 b11")
    page.get_by_label("Table, typed (melds separated by |)").nth(1).press("Tab")
    click_until(page, "Check the turn", page.get_by_text("Taken off the table: blue 5.", exact=False))
    assert page.get_by_text("The turn is not legal:").count() == 1
    assert page.locator(".rk-bad").count() >= 2
