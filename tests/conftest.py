"""Shared fixtures: the house-default box, a service on a temporary database, the Flask app and
client, a live waitress server, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import threading
import time

import pytest

from companion.box_profiles import load_box
from companion.config import Config
from companion.games.nessie_hunt import NessieHunt

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
]


@pytest.fixture(scope="session")
def box():
    return load_box()


@pytest.fixture
def game(box):
    return NessieHunt(box)


@pytest.fixture
def make_service(tmp_path):
    """Build services on temporary databases; all are closed at the end of the test."""
    from companion.service import Service

    made = []

    def make(start_game: bool = True, **overrides):
        config = Config(database=str(tmp_path / f"game{len(made)}.sqlite"), **overrides)
        service = Service(config, start_game=start_game)
        made.append(service)
        return service

    yield make
    for s in made:
        s.close()


@pytest.fixture
def service(make_service):
    return make_service()


@pytest.fixture
def app(service):
    from companion.web import create_app

    return create_app(service, {"TESTING": True, "SSE_KEEPALIVE_S": 0.5})


@pytest.fixture
def client(app):
    return app.test_client()


def _run_until_closed(server) -> None:
    try:
        server.run()
    except OSError:  # server.close() from the test's thread pulls the socket from under select()
        pass


@pytest.fixture
def serve():
    """``serve(service, config=None) -> url``: the dashboard served by waitress on a free loopback
    port, as in production; each server is closed when the test ends."""
    import waitress

    from companion.web import create_app

    running = []

    def start(service, config: dict | None = None, threads: int = 16) -> str:
        server = waitress.create_server(create_app(service, config), host="127.0.0.1", port=0, threads=threads)
        thread = threading.Thread(target=_run_until_closed, args=(server,), daemon=True)
        thread.start()
        running.append((service, server, thread))
        return f"http://127.0.0.1:{server.effective_port}"

    yield start
    for service, server, thread in running:
        service.table.broadcast.close()  # ends the event streams first, so waitress can finish them
        time.sleep(0.2)
        server.close()
        thread.join(timeout=5)


@pytest.fixture
def live_server(service, serve):
    """The dashboard of ``service`` served by waitress on a free loopback port."""
    return serve(service, {"SSE_KEEPALIVE_S": 0.5})


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium through Playwright (``make test`` installs it when missing)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
