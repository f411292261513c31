"""A whole shortened game played through the dashboard in a real browser: setup wizard to winner."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def act(page):
    """One move through the page's own controls, as a person would make it."""
    view = page.evaluate("view")
    step = view["step"]
    before = view["version"]
    if step == "throw":
        page.click('button.die[data-value="3"]')
    elif step in ("logistics-throw", "trump-die-off"):
        page.click('button.die[data-value="4"]')
    elif step == "logistics":
        page.click('#logistics button:has-text("Settled at the table")')
    elif step == "coverage":
        # The British player sees an eye witness over the head-and-neck; the others see nothing.
        if view["turn"] == "british":
            page.locator('#coverage input[data-monster="surface"]').first.check()
        page.click('#coverage button:has-text("Confirm coverage")')
    elif step in ("draw", "card-evidence"):
        page.locator("#evidence button.points").last.click()
    elif step == "play-trump":
        page.locator("#play-trump button").first.click()
    else:
        page.click("#next")
    page.wait_for_function(f"view.version > {before} || view.game_id !== {view['game_id']}", timeout=5000)


def test_setup_wizard_to_winner(chromium, live_server):
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(live_server + "/setup")
        page.select_option("#players", "2")
        page.uncheck('input[value="japanese"]')
        page.check('input[value="british"]')
        page.check('input[value="american"]')
        page.fill("#rounds", "1")
        page.click("#start")
        page.wait_for_url(live_server + "/")
        page.wait_for_selector('#status[data-connected="true"]')
        page.wait_for_function("view && view.seating && view.seating.players === 2")
        assert page.evaluate("view.seating.expeditions") == ["british", "american"]
        for _ in range(400):
            if page.evaluate("view.outcome"):
                break
            act(page)
        outcome = page.evaluate("view.outcome")
        assert outcome and outcome["winner"] == "british"
        assert "British wins" in page.inner_text("#outcome")
        assert "Recount" in page.inner_text("#recount")
        page.goto(live_server + "/tally")
        page.wait_for_selector("#sheet tbody tr")
        assert page.locator("#chart polyline").count() == 4  # points and cash for two expeditions
    finally:
        page.close()
