"""The kiosk in a real browser (Debian's Chromium through Playwright), on the real server, with the
arcade buttons pressed on gpiozero's MockFactory pins: the attract loop runs, a press starts a game,
an idle visitor is asked "Still playing?" and the kiosk goes back to the attract loop. One test also
plays to the first purchase and saves docs/screenshots/kiosk.png (1920x1080) for the README."""

from __future__ import annotations

import struct
import threading
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "kiosk.png"
GO_PIN, NEXT_PIN, UNDO_PIN = 5, 21, 20


def serve(server):
    try:
        server.run()
    except OSError:  # server.close() from the test's thread pulls the socket from under select()
        pass


def shut(server, thread):
    """Stop a waitress server as the kiosk process's end would: no more listening, and every open
    connection closed (waitress's ``close()`` alone leaves accepted connections open, which a real
    restart never does: the kernel closes a dead process's sockets)."""
    from waitress import wasyncore

    server.close()
    thread.join(timeout=5)
    wasyncore.close_all(server._map)
    server.task_dispatcher.shutdown(cancel_pending=True, timeout=2)


def unavailable_server(port):
    """Something on the kiosk's port that answers every request 503 (a proxy or a half-started
    service mid-restart); returns (the paths it was asked for, stop)."""
    import waitress

    asked = []

    def app(environ, start_response):
        asked.append(environ["PATH_INFO"])
        start_response("503 Service Unavailable", [("Content-Type", "text/plain"), ("Retry-After", "1")])
        return [b"restarting"]

    server = waitress.create_server(app, host="127.0.0.1", port=port, threads=2)
    thread = threading.Thread(target=serve, args=(server,), daemon=True)
    thread.start()
    return asked, lambda: shut(server, thread)


@pytest.fixture
def kiosk_server(tmp_path):
    """``nessie-companion kiosk`` as the command builds it, served by waitress on a free port."""
    from companion.commands.kiosk import build
    from companion.kiosk_config import load_kiosk_config
    from companion.web.kiosk import create_kiosk_app, create_server

    def start(port=0, **kiosk):
        lines = "".join(f"{k} = {v}\n" for k, v in {"database": '"kiosk.sqlite"', **kiosk}.items())
        path = tmp_path / "kiosk.toml"
        path.write_text(f"[kiosk]\n{lines}[inputs]\ngpio_board = true\n"
                        f'gpio_buttons = {{ "1" = {GO_PIN}, "next" = {NEXT_PIN}, "undo" = {UNDO_PIN} }}\n'
                        'gpio_leds = {}\n')
        factory = MockFactory()
        service, controller, voice, board = build(load_kiosk_config(path), pin_factory=factory, seed=4)
        app = create_kiosk_app(controller, {"SSE_KEEPALIVE_S": 0.5})
        server = create_server(app, "127.0.0.1", port, threads=8)
        thread = threading.Thread(target=serve, args=(server,), daemon=True)
        thread.start()
        controller.start(period_s=0.05)
        made.append((service, controller, voice, server, thread))
        return f"http://127.0.0.1:{server.effective_port}", controller, factory

    def stop(controller):
        for parts in [p for p in made if p[1] is controller]:
            made.remove(parts)
            service, controller, voice, server, thread = parts
            controller.close()
            shut(server, thread)
            voice.close()
            service.close()

    made = []
    start.stop = stop
    yield start
    for parts in list(made):
        stop(parts[1])


def tap(factory, pin):
    """Press and release; the board ends a press only once the contact has been open 25 ms."""
    factory.pin(pin).drive_low()
    time.sleep(0.03)
    factory.pin(pin).drive_high()
    time.sleep(0.06)


def version(page) -> int:
    return int(page.get_attribute("body", "data-version") or 0)


def save_screenshot(png: bytes) -> None:
    """Write docs/screenshots/kiosk.png, unless the one there differs only by a few anti-aliased
    pixels (Chromium's rasteriser is not bit-exact run to run), so a test run leaves git clean."""
    import cv2
    import numpy as np

    new = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert new.shape == (1080, 1920, 3)
    if SCREENSHOT.exists():
        old = cv2.imread(str(SCREENSHOT), cv2.IMREAD_COLOR)
        if old is not None and old.shape == new.shape and np.any(old != new, axis=2).sum() < 2000:
            return
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.write_bytes(png)


def wait_until(predicate, timeout=5.0):
    """Poll from Python: the kiosk's Content-Security-Policy forbids wait_for_function's eval."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_attract_loop_a_press_starts_a_game_idle_asks_then_resets(chromium, kiosk_server):
    url, kiosk, factory = kiosk_server(still_playing_s=1.5, reset_s=2.5, attract_step_s=0.1, auto_step_s=0.1)
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-mode=attract][data-version]")
        assert page.is_visible(".demo-ribbon") and page.is_visible("#scores")
        assert "Press GO to play" in page.text_content("#headline")
        seen = version(page)
        assert wait_until(lambda: version(page) > seen + 5)  # the demo plays on
        assert page.is_hidden("#asking")

        tap(factory, GO_PIN)  # the big arcade button
        page.wait_for_selector("body[data-mode=playing]", timeout=5000)
        assert page.is_hidden(".demo-ribbon") and page.text_content("#round") == "Round 1"
        assert "Throw the die" in page.text_content("#headline") and page.text_content("#label-go") == "Throw"
        tap(factory, GO_PIN)
        page.wait_for_selector("#last-throw:has-text('Die:')", timeout=5000)
        assert kiosk.table.view()["last_throw"]["source"] == "virtual-die"

        # Walk away: "Still playing?" after 1.5 s without a press, with its countdown ...
        page.wait_for_selector("#asking:not([hidden])", timeout=5000)
        assert page.is_visible("text=Still playing?")
        assert int(page.text_content("#countdown")) in (1, 2, 3)
        # ... a press answers it ...
        tap(factory, NEXT_PIN)
        page.wait_for_selector("#asking[hidden]", state="attached", timeout=5000)
        assert page.get_attribute("body", "data-mode") == "playing"
        # ... and nobody answering the second time: back to the attract loop.
        page.wait_for_selector("#asking:not([hidden])", timeout=5000)
        page.wait_for_selector("body[data-mode=attract]", timeout=5000)
        assert page.is_hidden("#asking") and page.is_visible(".demo-ribbon")
        assert kiosk.mode == "attract"
    finally:
        page.close()


def test_play_to_a_purchase_on_the_keyboard_encoder_and_save_the_screenshot(chromium, kiosk_server):
    url, kiosk, factory = kiosk_server(still_playing_s=60, reset_s=30, attract_step_s=0.1, auto_step_s=0.05)
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(url + "/")
        page.wait_for_selector("body[data-mode=attract][data-version]")
        page.keyboard.press("Space")  # a USB arcade encoder types keys: Space is GO
        page.wait_for_selector("body[data-mode=playing]")
        for _ in range(40):
            if page.locator("#choices li").count():
                break
            if page.text_content("#label-go") == "Throw":
                page.keyboard.press("Space")
            time.sleep(0.15)
        choices = page.locator("#choices li")
        assert choices.count() >= 2 and choices.last.text_content() == "Save your money"
        assert page.get_attribute("#choices li:first-child", "class") == "selected"
        page.keyboard.press("n")  # NEXT moves the highlight
        page.wait_for_selector("#choices li:nth-child(2).selected")
        while page.get_attribute("#choices li:first-child", "class") != "selected":
            page.keyboard.press("n")
            time.sleep(0.1)
        assert page.text_content("#label-go") == "Choose" and page.text_content("#label-next") == "Next choice"
        save_screenshot(page.screenshot(animations="disabled"))
        page.keyboard.press("Space")  # buy the suggested piece
        page.wait_for_selector("#label-undo:has-text('Take back')")
        assert "You bought" in page.text_content("#message")
        page.wait_for_selector(".hex.covered", state="attached")  # the transparency lies on the loch
    finally:
        page.close()
    head = SCREENSHOT.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (1920, 1080)


def open_kiosk(chromium, kiosk_server):
    """A quick-stepping kiosk and a page on its attract loop: (the kiosk's controller, its port, the page)."""
    url, controller, _ = kiosk_server(attract_step_s=0.2, auto_step_s=0.2)
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(url + "/")
    page.wait_for_selector("body[data-mode=attract][data-version]")
    return controller, int(url.rsplit(":", 1)[1]), page


def test_the_page_follows_a_restarted_kiosk(chromium, kiosk_server):
    """systemd's watchdog restarts the kiosk: the open page reconnects and reloads by itself."""
    first, port, page = open_kiosk(chromium, kiosk_server)
    try:
        page.keyboard.press("Space")
        page.wait_for_selector("body[data-mode=playing]")
        boot = first.boot
        # Generous timeouts: this is about what happens, not how fast (a loaded CI machine once
        # took over 10 s here).
        with page.expect_event("load", timeout=30000):  # the page reloads itself
            kiosk_server.stop(first)
            _, second, _ = kiosk_server(port=port, attract_step_s=0.2, auto_step_s=0.2)
            assert second.boot != boot
        page.wait_for_selector("body[data-mode=attract][data-version]", timeout=30000)
        assert page.text_content("#label-go") == "Play"
    finally:
        page.close()


def test_the_page_outlasts_a_503_while_the_kiosk_restarts(chromium, kiosk_server):
    """A 503 makes the browser close an event stream for good; the page must keep trying anyway."""
    first, port, page = open_kiosk(chromium, kiosk_server)
    try:
        kiosk_server.stop(first)
        asked, stop_unavailable = unavailable_server(port)

        def screen_asked_after_refused_stream():
            return "/kiosk/events" in asked and "/kiosk/state" in asked[asked.index("/kiosk/events") + 1:]

        try:
            deadline = time.monotonic() + 30
            while not screen_asked_after_refused_stream():  # the page went on by itself
                assert time.monotonic() < deadline, asked
                time.sleep(0.1)
        finally:
            stop_unavailable()
        with page.expect_event("load", timeout=30000):  # the page finds the new kiosk and reloads
            _, second, _ = kiosk_server(port=port, attract_step_s=0.2, auto_step_s=0.2)
        page.wait_for_selector("body[data-mode=attract][data-version]", timeout=30000)
        assert second.boot != first.boot and page.text_content("#label-go") == "Play"
    finally:
        page.close()
