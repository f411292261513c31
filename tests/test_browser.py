"""Real-browser tests: Debian's Chromium, driven by Playwright, against the dashboard served by waitress."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def leader_space(page, expedition):
    return page.get_attribute(f'#leader-layer [data-expedition="{expedition}"]', "data-space")


def test_a_die_button_in_one_page_moves_the_leader_in_another(chromium, live_server):
    context = chromium.new_context(viewport={"width": 1920, "height": 1080})
    try:
        one, two = context.new_page(), context.new_page()
        for page in (one, two):
            page.goto(live_server)
            page.wait_for_selector('#status[data-connected="true"]')
            page.wait_for_selector('#leader-layer [data-expedition="independent"]')
        assert leader_space(two, "independent") == "0"
        assert "INDEPENDENT: throw the die" in two.inner_text("#prompt")

        one.click('button.die[data-value="5"]')

        two.wait_for_function(
            "document.querySelector('#leader-layer [data-expedition=\"independent\"]').dataset.space === '5'",
            timeout=5000)
        assert "JAPANESE: throw the die" in two.inner_text("#prompt")
        assert "Last throw: 5 for Independent" in two.inner_text("#last-throw")
        transform = two.get_attribute('#leader-layer [data-expedition="independent"]', "transform")
        assert transform != "translate(200 364)"  # moved off the start space on the map
    finally:
        context.close()


def test_keys_play_a_round_and_the_map_shows_the_monster(chromium, live_server):
    page = chromium.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(live_server)
        page.wait_for_selector('#status[data-connected="true"]')
        version = lambda: page.evaluate("view.version")  # noqa: E731
        for key in "2345":
            v = version()
            page.keyboard.press(key)
            page.wait_for_function(f"view.version > {v}")
            if page.evaluate("view.step") == "logistics":
                v = version()
                page.click('#logistics button:has-text("Settled at the table")')
                page.wait_for_function(f"view.version > {v}")
        assert page.evaluate("view.stage") == 2
        monster = page.evaluate("view.monster")
        if monster["surface"]:
            page.wait_for_selector(f'#nessie[data-address="{monster["surface"]}"]')
            assert "surface" in page.get_attribute(f'.hex[data-address="{monster["surface"]}"]', "class")
        else:
            assert "No monster" in page.inner_text("#monster")
        v = version()
        page.keyboard.press("u")
        page.wait_for_function(f"view.version > {v}")
        assert page.evaluate("view.stage") == 1
    finally:
        page.close()


def test_an_illegal_click_shows_the_reason(chromium, live_server):
    page = chromium.new_page()
    try:
        page.goto(live_server)
        page.wait_for_selector('#status[data-connected="true"]')
        page.evaluate("post('/api/actions', {type: 'advance'})")
        page.wait_for_selector("#message:not([hidden])")
        assert "not yet" in page.inner_text("#message")
    finally:
        page.close()
