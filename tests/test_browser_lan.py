"""LAN mode in a real browser (Debian's Chromium through Playwright): a die button without the PIN is
refused and offers the PIN page; after the table PIN it plays; setup still needs the admin PIN.

The server runs in LAN mode but listens on loopback only (tests send no traffic off this machine):
the PIN rules do not depend on the address the server listens on.
"""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.browser

TABLE_PIN, ADMIN_PIN = "2468", "13579"


@pytest.fixture
def lan_server(service, serve):
    return serve(service, {"SSE_KEEPALIVE_S": 0.5, "LAN_MODE": True, "TABLE_PIN": TABLE_PIN, "ADMIN_PIN": ADMIN_PIN},
                 threads=8)


def leader_space(page, expedition="independent"):
    return page.get_attribute(f'#leader-layer [data-expedition="{expedition}"]', "data-space")


def test_a_die_button_without_the_pin_is_refused_and_works_after_the_table_pin(chromium, lan_server, service):
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(lan_server)
        page.wait_for_selector('#status[data-connected="true"]')
        page.wait_for_selector('#leader-layer [data-expedition="independent"]')
        version = service.table.view()["version"]

        page.click('button.die[data-value="5"]')
        page.wait_for_selector("#message:not([hidden]) #login-link")
        assert "enter the table PIN" in page.inner_text("#message")
        assert service.table.view()["version"] == version and leader_space(page) == "0"

        page.click("#login-link")
        page.wait_for_url("**/login?next=%2F")
        page.fill("#pin", "0000")
        page.click('#login-form button[type="submit"]')
        page.wait_for_selector("#message:not([hidden])")
        assert "wrong PIN" in page.inner_text("#message")

        page.fill("#pin", TABLE_PIN)
        page.click('#login-form button[type="submit"]')
        page.wait_for_url(lan_server + "/")
        page.wait_for_selector('#status[data-connected="true"]')
        cookie = next(c for c in context.cookies() if c["name"] == "nessie_session")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert page.evaluate("document.cookie") == ""  # scripts cannot read it

        page.click('button.die[data-value="5"]')
        page.wait_for_function(
            "document.querySelector('#leader-layer [data-expedition=\"independent\"]').dataset.space === '5'",
            timeout=5000)
        assert service.table.view()["version"] == version + 1

        # The table PIN plays but does not set up a game: that asks for the admin PIN.
        page.evaluate("post('/api/actions', {type: 'new-game', players: 2, expeditions: ['japanese', 'british']})")
        page.wait_for_selector("#message:not([hidden]) #login-link")
        assert "admin PIN" in page.inner_text("#message")
        assert service.table.view()["version"] == version + 1
    finally:
        context.close()


def test_a_page_from_another_site_cannot_change_the_game(chromium, lan_server, service):
    """A cross-site form post, even from a browser that entered the admin PIN, changes nothing."""
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.goto(lan_server + "/login")
        page.fill("#pin", ADMIN_PIN)
        page.click('#login-form button[type="submit"]')
        page.wait_for_url(lan_server + "/")
        version = service.table.view()["version"]
        # The attacking page is served from another origin (localhost vs 127.0.0.1) on the same server.
        other = lan_server.replace("127.0.0.1", "localhost")
        page.goto(other + "/login")
        page.set_content(f"""<form id="f" method="post" action="{lan_server}/api/actions" enctype="text/plain">
            <input name='{{"type":"throw","value":3,"x":"' value='"}}'></form>""")
        with page.expect_navigation():
            page.evaluate("document.getElementById('f').submit()")
        assert "cross-site request refused" in page.inner_text("body")
        assert service.table.view()["version"] == version
        status = page.evaluate(f"""fetch("{lan_server}/api/roll", {{method: "POST", mode: "no-cors", credentials: "include"}})
                                     .then(() => "sent", (e) => String(e))""")
        assert status == "sent"
        time.sleep(0.3)
        assert service.table.view()["version"] == version
    finally:
        context.close()
