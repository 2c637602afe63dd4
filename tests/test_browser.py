"""A real browser against a real server: type a position (and upload a photo), get a move.

Starts ``streamlit run app/main.py`` on a free localhost port and drives Debian's headless
Chromium with Playwright (no browser download: ``executable_path=/usr/bin/chromium``).
Skipped, with the reason, where Chromium or Playwright is missing. Screenshots go to the
test's tmp dir and, when ``$SCREENSHOT_DIR`` is set, there too (``docs/screenshots/``: the
desktop pages whole, the phone ones as the first 390 x 844 screen shows them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.served_app import free_port

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
DESKTOP = {"width": 900, "height": 1400}
#: A common phone screen (iPhone 12-15) in CSS pixels.
PHONE = {"width": 390, "height": 844}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed (/usr/bin/chromium)"),
]
playwright_sync = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@pytest.fixture
def server(tmp_path):
    """The app served on localhost with a private database; yields its URL."""
    port = free_port()
    python_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = os.environ | {"RUMMIKUB_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": python_path}
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
        # Captured, so shown only when the test failed: the app's warnings and tracebacks.
        print("server log, last lines:", *(tmp_path / "server.log").read_text(errors="replace").splitlines()[-40:], sep="\n")


#: Chromium's own test camera (a green frame of up to 4K), allowed without asking.
FAKE_CAMERA_ARGS = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]


@contextmanager
def chromium_page(tmp_path: Path, viewport: dict[str, int], extra_args: tuple[str, ...] = (), **options):
    """A fresh headless Chromium page with its own profile directory."""
    with playwright_sync.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=str(CHROMIUM), headless=True,
            args=CHROMIUM_ARGS + list(extra_args), viewport=viewport, **options,
        )
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


@pytest.fixture
def page(tmp_path):
    with chromium_page(tmp_path, DESKTOP) as desktop:
        yield desktop


@pytest.fixture
def phone(tmp_path):
    """A page as a phone shows it: 390 x 844, touch, the mobile viewport rules."""
    with chromium_page(tmp_path, PHONE, is_mobile=True, has_touch=True) as handheld:
        yield handheld


def wait_idle(page) -> None:
    """Wait until Streamlit has finished rerunning: no status widget and no stale elements,
    twice in a row (a rerun can start a moment after the event that caused it)."""
    quiet = 0
    deadline = time.monotonic() + STEP_TIMEOUT_MS / 1000
    while quiet < 2:
        if time.monotonic() > deadline:
            pytest.fail("the app did not settle")
        page.wait_for_timeout(250)
        busy = page.locator('[data-testid="stStatusWidget"], [data-stale="true"]').count()
        quiet = quiet + 1 if busy == 0 else 0


def click_until(page, button: str, expected, attempts: int = 3) -> float:
    """Click ``button`` until ``expected`` (a locator) shows; a click that lands while the
    script is still rerunning can be dropped by the page, so it is repeated (idempotent).

    Returns the seconds from the last click to ``expected`` showing (the wait for the app to
    settle before a click is not counted)."""
    for attempt in range(attempts):
        wait_idle(page)
        start = time.perf_counter()
        page.get_by_role("button", name=button).click()
        try:
            expected.wait_for(timeout=STEP_TIMEOUT_MS // attempts)
            return time.perf_counter() - start
        except playwright_sync.TimeoutError:
            if attempt == attempts - 1:
                pytest.fail(f"{expected} did not show after pressing {button!r} {attempts} times; the page says:\n{page_messages(page)}")
    raise ValueError(f"attempts must be at least 1, got {attempts}")


def page_messages(page) -> str:
    """The alerts and exceptions the page shows now, for a failure's message (CI keeps only text)."""
    boxes = page.locator('[data-testid="stAlert"], [data-testid="stException"], [data-testid="stSpinner"]')
    return "\n".join(boxes.all_inner_texts()) or "(no alert, exception or spinner on the page)"


def read_table_photo(page, server: str, photo: Path, scene, delay_s: float = 0.0) -> tuple[float, float]:
    """Open the Play page, upload ``photo`` of ``scene`` as the table, type a rack of three tiles
    the scene lacks, and read; returns the seconds to the reading shown from the upload's end and
    from *Read the tiles* (the app starts reading at the upload: app/photo_prefetch.py), pressed
    ``delay_s`` after the rack is typed (a player taking that long over the rack)."""
    from tests.synthetic_photos import tiles_absent_from

    page.goto(server, wait_until="networkidle")
    page.get_by_text("What should I play?").wait_for(timeout=STEP_TIMEOUT_MS)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(photo))
    # The upload is done when the uploader lists the file without its spinner (a read pressed
    # before then reads no photo).
    page.get_by_text(photo.name, exact=True).wait_for(timeout=STEP_TIMEOUT_MS)
    playwright_sync.expect(page.locator('[data-testid="stFileChipIconSpinner"]')).to_have_count(0, timeout=STEP_TIMEOUT_MS)
    uploaded = time.perf_counter()
    page.get_by_label("Rack, typed").fill(" ".join(t.short for t in tiles_absent_from(scene, 3)))
    page.get_by_label("Rack, typed").press("Tab")
    wait_idle(page)
    page.wait_for_timeout(delay_s * 1000)
    since_click = click_until(page, "Read the tiles", page.get_by_text("Table as read", exact=True))
    return time.perf_counter() - uploaded, since_click


def save_screenshot(page, tmp_path: Path, name: str, whole_page: bool = True) -> Path:
    """The whole page (the viewport is grown to the app's height: Streamlit scrolls inside),
    or with ``whole_page=False`` just the screen as it is now."""
    if whole_page:
        height = page.evaluate(
            "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').scrollHeight"
        )
        page.set_viewport_size({"width": page.viewport_size["width"], "height": int(height) + 140})
    wait_idle(page)
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=whole_page)
    target = os.environ.get("SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / path.name)
    return path


def type_position(page, table: str, rack: str) -> None:
    page.get_by_text("What should I play?").wait_for(timeout=STEP_TIMEOUT_MS)
    page.get_by_label("Table, typed (melds separated by |)").fill(table)
    page.get_by_label("Rack, typed").fill(rack)
    page.get_by_label("Rack, typed").press("Tab")
    click_until(page, "Read the tiles", page.get_by_text("Check the reading", exact=True))


def test_type_a_position_and_get_a_move_in_chromium(server, page, tmp_path):
    page.goto(server, wait_until="networkidle")
    type_position(page, "k5 b5 o5 r5 | r9 r10 r11", "k6 k7 o1")
    click_until(page, "Find my best move", page.get_by_text("Play 2 tile(s) worth 13 points: black 6, black 7"))
    page.get_by_text("Steps", exact=True).wait_for(timeout=STEP_TIMEOUT_MS)
    assert page.locator(".rk-tile.rk-played").count() == 2  # the black 6 and 7
    assert page.locator(".rk-tile.rk-moved").count() == 1  # the black 5 taken from the group
    assert page.locator(".rk-key.rk-played").count() == page.locator(".rk-key.rk-moved").count() == 1  # the legend
    shot = save_screenshot(page, tmp_path, "play-move")
    assert shot.stat().st_size > 10_000


def test_fix_a_misread_tile_then_get_a_move_in_chromium(server, page, tmp_path):
    page.goto(server, wait_until="networkidle")
    type_position(page, "r4 r5 k6 | k5 b5 o5", "r7")
    page.get_by_text("Meld 1 is not valid: neither a run (one colour) nor a group (one number)").wait_for(
        timeout=STEP_TIMEOUT_MS
    )
    page.get_by_label("Tile to fix").click()
    page.get_by_role("option", name="Meld 1 · 3: black 6").click()
    wait_idle(page)
    page.get_by_label("It is really").click()
    page.keyboard.type("red 6")
    page.get_by_role("option", name="red 6", exact=True).click()
    wait_idle(page)
    save_screenshot(page, tmp_path, "play-fix")
    click_until(page, "Change", page.locator(".rk-edited").first)
    expect = playwright_sync.expect
    expect(page.get_by_text("Meld 1 is not valid", exact=False)).to_have_count(0, timeout=STEP_TIMEOUT_MS)
    click_until(page, "Find my best move", page.get_by_text("Play 1 tile(s) worth 7 points: red 7"))


def take_off_rejected_tiles(page, limit: int = 150) -> int:
    """Fix a reading as a player would: remove tiles of rejected melds and extra copies."""
    for removed in range(limit):
        wait_idle(page)
        errors = [line for box in page.locator('[data-testid="stAlert"]').all_inner_texts() for line in box.splitlines()]
        target = None
        for text in errors:
            bad = re.match(r"Meld (\d+) is not valid", text.strip())
            if bad:
                target = f"Meld {bad[1]} · 1:"
                break
            if text.strip().startswith("More copies than the game has: "):
                target = ": " + text.strip().split(": ", 1)[1].split(" — ")[0]
                break
        if target is None:
            return removed
        page.get_by_label("Tile to fix").click()
        page.keyboard.type(target)
        page.keyboard.press("Enter")
        wait_idle(page)
        page.get_by_role("button", name="Remove this tile").click()
    pytest.fail(f"the reading still has rejected melds after {limit} removals")


def test_upload_a_photo_and_get_a_move_in_chromium(server, page, tmp_path):
    from tests.synthetic_photos import png_bytes, table_scene, vision_missing

    if vision_missing():
        pytest.skip(f"real photo reading cannot run: {vision_missing()}")
    scene = table_scene()
    photo = tmp_path / "table.png"
    photo.write_bytes(png_bytes(scene.image))
    read_table_photo(page, server, photo, scene)
    assert page.locator(".rk-tile").count() >= 4  # the reading as tiles
    save_screenshot(page, tmp_path, "play-photo")
    take_off_rejected_tiles(page)
    click_until(page, "Find my best move", page.get_by_text("Your move", exact=True))


def test_score_a_round_and_see_the_sheet_in_chromium(server, page, tmp_path):
    page.goto(f"{server}/score", wait_until="networkidle")
    page.get_by_text("Start a game to keep its score.").wait_for(timeout=STEP_TIMEOUT_MS)
    for i, name in enumerate(["Ann", "Bob", "Cy"]):
        page.get_by_label(f"Player {i + 1}").fill(name)
    click_until(page, "Start the game", page.get_by_text("Round 1", exact=True))
    rounds = [("Ann went out", {1: "r7 j", 2: "k3 k4"}), ("Cy went out", {0: "o5", 1: "b10 b11"})]
    for number, (ending, racks) in enumerate(rounds, start=1):
        page.get_by_text(f"Round {number}", exact=True).wait_for(timeout=STEP_TIMEOUT_MS)
        wait_idle(page)
        page.get_by_role("radiogroup", name="How did the round end?").get_by_text(ending, exact=True).click()
        wait_idle(page)
        for seat, tiles in racks.items():
            field = page.locator(f".st-key-score_player_{seat}").get_by_label("Tiles left (typed)")
            field.fill(tiles)
            field.press("Enter")
            wait_idle(page)
        click_until(page, "Score the round", page.get_by_role("button", name="Save the round"))
        click_until(page, "Save the round", page.get_by_text("Round saved."))
    wait_idle(page)
    page.get_by_text("Score sheet as text (CSV)").click()
    page.get_by_text("2,Cy went out,-5,-21,26,39,-58,19").wait_for(timeout=STEP_TIMEOUT_MS)
    save_screenshot(page, tmp_path, "score-sheet")


# --- on a phone (390 x 844) ----------------------------------------------------------------------


def line_boxes(locator) -> int:
    """How many lines the element's text takes on screen."""
    return locator.evaluate(
        "el => { const r = document.createRange(); r.selectNodeContents(el); "
        "return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"
    )


def in_first_screen(locator) -> bool:
    """Wholly inside the first 390 x 844 screen (the page not scrolled)."""
    box = locator.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] \
        and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


def sidebar_open(page) -> bool:
    box = page.get_by_test_id("stSidebar").bounding_box()
    return box is not None and box["width"] > 0 and box["x"] + box["width"] > 0


def choose_language(page, name: str) -> None:
    """Open the sidebar, pick the language, close the sidebar again."""
    wait_idle(page)
    page.get_by_test_id("stExpandSidebarButton").click()
    page.get_by_test_id("stSidebar").get_by_role("combobox").first.click()
    page.get_by_role("option", name=name, exact=True).click()
    wait_idle(page)
    page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    wait_idle(page)


def test_phone_page_links_are_on_the_page_and_no_sidebar_stays_open(server, phone, tmp_path):
    phone.goto(server, wait_until="networkidle")
    phone.get_by_text("What should I play?").wait_for(timeout=STEP_TIMEOUT_MS)
    header = phone.get_by_test_id("stHeader").bounding_box()
    for name in ("Play", "Score", "Timer"):
        link = phone.get_by_role("link", name=name)
        assert in_first_screen(link), name
        assert link.bounding_box()["y"] >= header["y"] + header["height"], f"{name} hides under the header"
    assert not sidebar_open(phone)
    save_screenshot(phone, tmp_path, "phone-play", whole_page=False)
    phone.get_by_role("link", name="Score").click()
    phone.get_by_text("Start a game to keep its score.").wait_for(timeout=STEP_TIMEOUT_MS)
    assert not sidebar_open(phone)
    assert urlparse(phone.evaluate("() => location.href")).path == "/score"


def test_phone_answer_is_in_view_after_find_my_best_move(server, phone, tmp_path):
    phone.goto(server, wait_until="networkidle")
    type_position(phone, "k5 b5 o5 r5 | r9 r10 r11", "k6 k7 o1")
    answer = phone.get_by_text("Play 2 tile(s) worth 13 points: black 6, black 7")
    click_until(phone, "Find my best move", answer)
    wait_idle(phone)
    playwright_sync.expect(answer).to_be_in_viewport(ratio=1, timeout=10_000)
    top = phone.get_by_role("heading", name="Your move").bounding_box()["y"]
    assert 0 <= top < PHONE["height"] / 3, top  # the answer starts near the top of the screen
    # The legend's keys are blank swatches, far smaller than a tile: never read as tiles.
    keys = phone.locator(".rk-key")
    assert keys.count() == 2 and all(text == "" for text in keys.all_inner_texts())
    tile_height = phone.locator(".rk-tile").first.bounding_box()["height"]
    assert all(key.bounding_box()["height"] < tile_height / 2 for key in keys.all())
    save_screenshot(phone, tmp_path, "phone-play-move", whole_page=False)


def test_phone_timer_clock_is_one_line_in_the_first_screen_and_keeps_the_language(server, phone, tmp_path):
    from solver.i18n import tr

    phone.goto(f"{server}/timer", wait_until="networkidle")
    names = phone.get_by_label("Players in seat order (separated by commas)")
    names.fill("Ann, Bob")
    names.press("Enter")
    clock = phone.locator(".rk-clock")
    clock.wait_for(timeout=STEP_TIMEOUT_MS)
    click_until(phone, "Start", phone.get_by_role("button", name="Pause", disabled=False))
    phone.wait_for_timeout(1500)
    assert clock.inner_text().startswith("0:5")
    assert line_boxes(clock) == 1 and in_first_screen(clock)
    for button in ("Start", "Pause", "Next player"):
        assert in_first_screen(phone.get_by_role("button", name=button)), button
    save_screenshot(phone, tmp_path, "phone-timer", whole_page=False)

    choose_language(phone, "Українська")
    phone.get_by_role("heading", name=tr("Turn timer", "uk"), exact=True).wait_for(timeout=STEP_TIMEOUT_MS)
    playwright_sync.expect(phone.get_by_role("radio", name=tr("{seconds} s", "uk", seconds=60))).to_be_checked()
    assert line_boxes(clock) == 1 and in_first_screen(clock)
    assert "lang=uk" in phone.evaluate("() => location.href")
    phone.reload(wait_until="networkidle")
    phone.get_by_role("heading", name=tr("Turn timer", "uk"), exact=True).wait_for(timeout=STEP_TIMEOUT_MS)  # still Ukrainian


# --- what a player types is text -----------------------------------------------------------------

WORD_JOINER = "\u2060"
IMAGE_NAME = "![p](http://127.0.0.1:9/t.png)"
LINK_NAME = "[click](http://127.0.0.1:9/)"


def test_markdown_in_names_and_notation_is_shown_as_text_and_fetches_nothing(server, phone, tmp_path):
    asked = []
    phone.on("request", lambda request: asked.append(request.url))
    phone.goto(f"{server}/score", wait_until="networkidle")
    phone.get_by_text("Start a game to keep its score.").wait_for(timeout=STEP_TIMEOUT_MS)
    for i, name in enumerate([IMAGE_NAME, LINK_NAME, "Cy"]):
        phone.get_by_label(f"Player {i + 1}").fill(name)
    click_until(phone, "Start the game", phone.get_by_text("Round 1", exact=True))
    wait_for_text(phone, f"{LINK_NAME} went out")  # the radio option
    wait_for_text(phone, f"{LINK_NAME}’s rack")  # the heading of the rack
    for seat, tiles in {1: "r7", 2: IMAGE_NAME}.items():  # typed notation that is Markdown too
        field = phone.locator(f".st-key-score_player_{seat}").get_by_label("Tiles left (typed)")
        field.fill(tiles)
        field.press("Enter")
        wait_idle(phone)
    wait_idle(phone)
    phone.get_by_role("button", name="Score the round").click()
    wait_for_text(phone, f"A rack cannot be read: cannot read tile '{IMAGE_NAME[:20]}…'")  # long tokens are shortened
    field.fill("k3")
    field.press("Enter")
    click_until(phone, "Score the round", phone.get_by_role("button", name="Save the round"))
    click_until(phone, "Save the round", phone.get_by_text("Round saved."))
    phone.get_by_test_id("stMetric").first.wait_for(timeout=STEP_TIMEOUT_MS)
    assert IMAGE_NAME in phone.get_by_test_id("stMetric").first.inner_text().replace(WORD_JOINER, "")
    assert_no_link_or_image_of_port_9(phone)
    phone.get_by_role("link", name="Timer").click()
    phone.locator(".rk-timer-player").wait_for(timeout=STEP_TIMEOUT_MS)
    assert phone.locator(".rk-timer-player").inner_text() == IMAGE_NAME
    wait_for_text(phone, f"in seat order: {IMAGE_NAME}, {LINK_NAME}, Cy")
    assert_no_link_or_image_of_port_9(phone)
    assert [url for url in asked if urlparse(url).port == 9] == []


def wait_for_text(page, text: str) -> None:
    """Wait until the page shows ``text`` (the invisible word joiners the app puts before
    addresses in typed text left out)."""
    page.wait_for_function(
        "([text, joiner]) => document.body.innerText.replaceAll(joiner, '').includes(text)",
        arg=[text, WORD_JOINER], timeout=STEP_TIMEOUT_MS,
    )


def assert_no_link_or_image_of_port_9(page) -> None:
    wait_idle(page)
    live = page.locator('a[href*="127.0.0.1:9/"], img[src*="127.0.0.1:9/"]')
    assert live.count() == 0, live.evaluate_all("els => els.map(e => e.outerHTML)")


def test_a_12mp_photo_is_read_and_answered_and_the_times_are_reported(server, page, tmp_path):
    """The app's photo path at phone resolution: a 4000 x 3000 JPEG uploaded, read, answered.

    The seconds from pressing *Read the tiles* to the reading on screen (the app starts reading
    at the upload, so this is what is left once the rack is typed), from the upload to the
    reading on screen, and from *Find my best move* to the answer, are printed (with
    ``$READ_DELAY_S``, *Read the tiles* is pressed that many seconds after the rack is typed)
    and, with ``$TIMINGS_FILE``, written there as JSON (the runtime figures in the README come from this test on an idle machine; nothing is asserted
    about them here, timed tests are flaky on shared machines).
    """
    import json

    import cv2
    import numpy as np

    from datasets.synth.scenes import compose_scene
    from tests.synthetic_photos import vision_missing

    if vision_missing():
        pytest.skip(f"real photo reading cannot run: {vision_missing()}")
    scene = compose_scene(np.random.default_rng(7), width=4000, height=3000, kind="table")
    photo = tmp_path / "table-12mp.jpg"
    cv2.imwrite(str(photo), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    delay_s = float(os.environ.get("READ_DELAY_S", "0"))
    upload_to_reading_s, reading_s = read_table_photo(page, server, photo, scene, delay_s)
    assert page.locator(".rk-tile").count() >= 4
    take_off_rejected_tiles(page)
    wait_idle(page)
    answer_s = click_until(page, "Find my best move", page.get_by_text("Your move", exact=True))
    timings = {
        "photo": "4000x3000 JPEG", "read_delay_s": delay_s, "read_s": round(reading_s, 2),
        "upload_to_reading_s": round(upload_to_reading_s, 2),
        "answer_s": round(answer_s, 2),
    }
    print(f"12 MP photo in the app: {timings}")
    if os.environ.get("TIMINGS_FILE"):
        Path(os.environ["TIMINGS_FILE"]).write_text(json.dumps(timings) + "\n")


def test_the_phone_camera_hands_over_its_own_frame_not_the_widget_size(server, tmp_path):
    """Without a resolution, Streamlit's camera widget hands over the picture at the size it shows
    it (358 x 269 on this phone page, whatever the camera's frame), where tiles are too small to
    read; the app asks for 1080p, so the photo it gets is the camera's frame (app.components)."""
    with chromium_page(tmp_path, PHONE, FAKE_CAMERA_ARGS, is_mobile=True, has_touch=True, permissions=["camera"]) as phone:
        phone.goto(server, wait_until="networkidle")
        phone.get_by_text("Use the camera").first.click(timeout=STEP_TIMEOUT_MS)
        phone.wait_for_function("() => { const v = document.querySelector('video'); return v && v.videoHeight > 0 }",
                                timeout=STEP_TIMEOUT_MS)
        take = phone.get_by_role("button", name="Take Photo").first
        playwright_sync.expect(take).to_be_enabled(timeout=STEP_TIMEOUT_MS)  # once the stream has started
        take.dispatch_event("click")  # the live video keeps the button from counting as stable for .click()
        snapshot = '[data-testid="stCameraInput"] img'
        phone.wait_for_function(f"() => {{ const i = document.querySelector('{snapshot}'); return i && i.naturalWidth > 0 }}",
                                timeout=STEP_TIMEOUT_MS)
        width, height = phone.evaluate(f"() => {{ const i = document.querySelector('{snapshot}'); return [i.naturalWidth, i.naturalHeight] }}")
    assert min(width, height) >= 1080, (width, height)
