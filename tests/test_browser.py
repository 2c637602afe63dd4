"""A real browser against a real server: type a position (and upload a photo), get a move.

Starts ``streamlit run app/main.py`` on a free localhost port and drives Debian's headless
Chromium with Playwright (no browser download: ``executable_path=/usr/bin/chromium``).
Skipped, with the reason, where Chromium or Playwright is missing. Screenshots go to the
test's tmp dir and, when ``$SCREENSHOT_DIR`` is set, there too.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
START_TIMEOUT_S = 90
STEP_TIMEOUT_MS = 120_000

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed (/usr/bin/chromium)"),
]
playwright_sync = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(tmp_path):
    """The app served on localhost with a private database; yields its URL."""
    port = free_port()
    env = os.environ | {"RUMMIKUB_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    log = (tmp_path / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "app/main.py",
            "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
        ],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"streamlit exited early:\n{(tmp_path / 'server.log').read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("streamlit did not become healthy in time")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture
def page(tmp_path):
    with playwright_sync.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=str(CHROMIUM), headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 900, "height": 1400},
        )
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def wait_idle(page) -> None:
    """Wait until Streamlit has finished rerunning the script."""
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=STEP_TIMEOUT_MS)


def save_screenshot(page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    target = os.environ.get("SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / path.name)
    return path


def test_type_a_position_and_get_a_move_in_chromium(server, page, tmp_path):
    page.goto(server, wait_until="networkidle")
    page.get_by_text("What should I play?").wait_for(timeout=STEP_TIMEOUT_MS)
    page.get_by_label("Table, typed (melds separated by |)").fill("r4 r5 r6 | k5 b5 o5")
    page.get_by_label("Rack, typed").fill("r7 k13 b2")
    page.get_by_label("Rack, typed").press("Tab")
    wait_idle(page)
    page.get_by_role("button", name="Read the tiles").click()
    page.get_by_text("Check the reading", exact=True).wait_for(timeout=STEP_TIMEOUT_MS)
    wait_idle(page)
    page.get_by_role("button", name="Find my best move").click()
    page.get_by_text("Play 1 tile(s) worth 7 points: red 7").wait_for(timeout=STEP_TIMEOUT_MS)
    page.get_by_text("Add your red 7 to [red 4 5 6]: [red 4 5 6 7].").wait_for(timeout=STEP_TIMEOUT_MS)
    assert page.locator(".rk-played").count() >= 2  # the played tile, and its legend sample
    shot = save_screenshot(page, tmp_path, "browser-play-typed")
    assert shot.stat().st_size > 10_000


def test_upload_a_photo_and_get_a_move_in_chromium(server, page, tmp_path):
    vision = pytest.importorskip("vision")
    if not callable(getattr(vision, "read", None)):
        pytest.skip("vision.read is not available yet: photo reading cannot be exercised")
    from tests.synthetic_photos import table_photo_png

    photo = tmp_path / "table.png"
    photo.write_bytes(table_photo_png())
    page.goto(server, wait_until="networkidle")
    page.get_by_text("What should I play?").wait_for(timeout=STEP_TIMEOUT_MS)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(photo))
    page.get_by_label("Rack, typed").fill("r7 k13")
    page.get_by_label("Rack, typed").press("Tab")
    wait_idle(page)
    page.get_by_role("button", name="Read the tiles").click()
    page.get_by_text("Table as read", exact=True).wait_for(timeout=STEP_TIMEOUT_MS)
    wait_idle(page)
    page.get_by_role("button", name="Find my best move").click()
    page.get_by_text("Your move", exact=True).wait_for(timeout=STEP_TIMEOUT_MS)
    save_screenshot(page, tmp_path, "browser-play-photo")
