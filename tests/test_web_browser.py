"""A real browser plays Brag, Put and Seven-card Brag by clicking (headless Debian chromium).

The app runs in this process (uvicorn in a thread, bot delay 0), so after every click the test
compares the page the browser holds with the engine: no card the human may not see is on it
(``tests.web_client.Witness``). A screenshot of the Brag hand in play is saved beside the test's
files; with ``BRAG_WEB_SCREENSHOT=PATH`` also at PATH (docs/img/web_brag.png is made so).

Chromium cannot be downloaded on these machines: the test drives the system's ``chromium`` and
``chromedriver`` (Debian's ``chromium`` and ``chromium-driver``, which ``.ci/run`` installs).
Without them it is skipped, except under CI (``CI=true``), where it fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.web_client import Witness

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

pytestmark = pytest.mark.slow


def _need_browser() -> None:
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    missing = " and ".join(str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists())
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {missing} is missing: .ci/run must install chromium-driver")
    pytest.skip(f"{missing} not found: apt-get install chromium chromium-driver to run it")


@pytest.fixture(scope="module")
def server():
    _need_browser()
    import uvicorn

    from brag_env.web.app import Settings, create_app

    app = create_app(Settings(bot_delay=0))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    web = uvicorn.Server(config)
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web app did not start")
        time.sleep(0.02)
    yield app, f"http://127.0.0.1:{port}"
    web.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(server):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    options.add_argument("--window-size=1200,900")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _settled(driver, old_turn):
    """The table element once the page shows a turn after ``old_turn`` and no agent is
    still to move (the page asks for each agent's move on its own)."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        state = driver.find_element("css selector", "[data-phase]")
        turn, phase = int(state.get_attribute("data-turn")), state.get_attribute("data-phase")
    except (StaleElementReferenceException, ValueError, TypeError):
        return False
    except Exception:  # not on the page yet
        return False
    if turn == old_turn or phase == "bot_turn":
        return False
    return phase, turn


def _wait(driver, old_turn):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 20, poll_frequency=0.02).until(lambda d: _settled(d, old_turn))


def _new_game(driver, base, form_id, opponents, extra):
    driver.get(f"{base}/")
    form = driver.find_element("id", form_id)
    boxes = form.find_elements("css selector", "input[list]")
    for box, spec in zip(boxes, opponents + [""] * len(boxes), strict=False):
        box.clear()
        if spec:
            box.send_keys(spec)
    for name, value in extra.items():
        field = form.find_element("name", name)
        field.clear()
        field.send_keys(value)
    form.find_element("css selector", "button[type=submit]").click()
    from selenium.webdriver.support.ui import WebDriverWait

    # The click returns before the redirect to /play/<id> lands (a loaded machine showed it).
    WebDriverWait(driver, 20, poll_frequency=0.02).until(lambda d: "/play/" in d.current_url)
    return driver.current_url.rsplit("/", 1)[1]


def _click(driver, preferred):
    buttons = driver.find_elements("css selector", "button[data-action]")
    names = [b.get_attribute("data-action") for b in buttons]
    for name in preferred:
        if name in names:
            buttons[names.index(name)].click()
            return name
    buttons[0].click()
    return names[0]


def _play_hand(driver, app, game_id, preferred, shot=None):
    """Click until the hand's result shows; check the page at every step."""
    witness = Witness(app.state.games.get(game_id))
    phase, turn = _wait(driver, -1)
    for _ in range(60):
        witness.check(driver.page_source)
        if phase in ("hand_over", "over"):
            assert driver.find_elements("css selector", ".result")
            return
        faces = driver.find_elements("css selector", ".hand .card.red, .hand .card.black")
        if shot is not None and faces:  # the latest decision with the cards face up
            driver.save_screenshot(str(shot))
        _click(driver, preferred)
        phase, turn = _wait(driver, turn)
    raise AssertionError("the hand did not end")


def test_a_brag_hand_and_a_put_hand_by_clicking(server, browser, tmp_path):
    app, base = server
    game_id = _new_game(
        browser,
        base,
        "new-brag",
        ["brag:tight", "brag:bluffer", "random"],
        {"hands": "1", "seed": "12"},
    )
    _wait(browser, -1)
    assert browser.find_elements("css selector", ".card.back")  # blind: backs, not cards
    shot = tmp_path / "web_brag.png"
    _play_hand(browser, app, game_id, ["take_new_hand", "look", "stay", "see"], shot)
    assert shot.stat().st_size > 10_000
    wanted = os.environ.get("BRAG_WEB_SCREENSHOT")
    if wanted:
        shutil.copyfile(shot, wanted)

    game_id = _new_game(browser, base, "new-put", ["put:caller"], {"seed": "3"})
    _play_hand(browser, app, game_id, ["see", "play_3", "play_2", "play_A"])


def test_a_seven_card_brag_deal_by_clicking(server, browser):
    """B24: a first hand, then a second hand, clicked; the showdown shows and nothing hidden
    is on the page at any step."""
    app, base = server
    game_id = _new_game(
        browser, base, "new-brag7", ["brag7:balanced", "random"], {"hands": "1", "seed": "6"}
    )
    _wait(browser, -1)
    assert len(browser.find_elements("css selector", "#my-hand .card")) == 7
    assert len(browser.find_elements("css selector", "button[data-action]")) == 35
    _play_hand(browser, app, game_id, [])
    assert "showdown" in browser.find_element("css selector", ".result").text
