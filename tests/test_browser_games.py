"""Real-browser tests of the game pages (web/games.py): Debian's Chromium, driven by Playwright, against
the dashboard served by waitress. Each test plays a few turns of one game by clicking its page."""

from __future__ import annotations

import threading

import pytest

pytestmark = pytest.mark.browser


@pytest.fixture
def games_server(make_service):
    """The dashboard with the game pages, served by waitress on a free loopback port."""
    import waitress

    from companion.web import create_app
    from companion.web import games as game_pages

    service = make_service(start_game=False)
    app = create_app(service, {"SSE_KEEPALIVE_S": 0.5})
    if "games" not in app.blueprints:
        app.register_blueprint(game_pages.bp)
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=16)

    def serve():
        try:
            server.run()
        except OSError:  # the teardown closes the sockets under the loop's select()
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    for table in service.tables.values():
        table.broadcast.close()
    server.close()
    thread.join(timeout=5)


def version(page) -> int:
    return int(page.evaluate("document.body.dataset.version || '0'"))


def act(page, selector):
    """Click, then wait for the page to draw the next view."""
    v = version(page)
    page.click(selector)
    page.wait_for_function(f"Number(document.body.dataset.version || 0) > {v}", timeout=5000)


def open_game(chromium, url, gid):
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{url}/games/{gid}")
    page.wait_for_selector('#status[data-connected="true"]')
    page.wait_for_selector("#setup-form .action")
    return page


def test_the_game_list_offers_every_game(chromium, games_server):
    page = chromium.new_page()
    try:
        page.goto(f"{games_server}/games")
        ids = page.eval_on_selector_all("a[data-game]", "els => els.map(e => e.dataset.game)")
        assert {"loch-ness-obert", "loch-ness-wettering", "loch-lomond", "monster-ambush"} <= set(ids)
    finally:
        page.close()


def test_loch_lomond_freedom_and_the_score_sheet_live_in_a_second_page(chromium, games_server):
    one = open_game(chromium, games_server, "loch-lomond")
    two = open_game(chromium, games_server, "loch-lomond")
    try:
        act(one, "#setup-form button.submit")  # Ann, Bob, Cat
        two.wait_for_function("document.getElementById('prompt').textContent.includes('Ann starts')")
        act(one, '.action[data-type="freedom"] button.choice[data-value=\'"Bob"\']')
        assert "Bob called FREEDOM!!" in one.inner_text("#prompt")
        one.fill('input[name="clans-Ann"]', "witch")
        one.fill('input[name="clans-Bob"]', "mercenary, missionary")
        one.fill('input[name="clans-Cat"]', "loch-monster")
        act(one, '.action[data-type="score-round"] button.submit')
        two.wait_for_function("document.getElementById('prompt').textContent.includes('Round 2')")
        assert "Victory Token -3 won" in two.inner_text("#summary")
        assert two.inner_text('#players tr[data-player="Bob"] td[data-key="total"]') == "-4"
        # Undo from the page brings the last round back.
        act(two, "#undo")
        assert "Bob called FREEDOM!!" in two.inner_text("#prompt")
    finally:
        one.close()
        two.close()


def test_monster_ambush_new_stack_grow_and_an_ambush(chromium, games_server):
    page = open_game(chromium, games_server, "monster-ambush")
    try:
        act(page, "#setup-form button.submit")
        act(page, '.action[data-type="new-stack"] button.choice[data-value=\'"E1"\']')
        act(page, '.action[data-type="grow"] button.choice[data-value=\'"E1"\']')
        assert "1 action(s) left" in page.inner_text("#prompt") and "14 token(s) in the pool" in page.inner_text("#prompt")
        act(page, '.action[data-type="end-actions"] button.submit')
        page.select_option('.action[data-type="ambush"] select[name="monster_die"]', label="4")
        page.select_option('.action[data-type="ambush"] select[name="human_dice-0"]', label="2")
        page.select_option('.action[data-type="ambush"] select[name="human_dice-1"]', label="3")
        act(page, '.action[data-type="ambush"] button.submit')
        assert "Ambush on E1: monsters 5 (stack 4, die 4) against humans 3" in page.inner_text("#prompt")
        assert "Monsters stronger" in page.inner_text("#prompt")
        act(page, '.action[data-type="end-turn"] button.submit')
        assert "the humans' turn" in page.inner_text("#prompt")
    finally:
        page.close()


def test_loch_ness_obert_photographers_roll_and_move(chromium, games_server):
    page = open_game(chromium, games_server, "loch-ness-obert")
    try:
        act(page, "#setup-form button.submit")  # red and yellow
        for _ in range(6):
            act(page, '.action[data-type="place-photographer"] button.choice >> nth=0')
        assert "Red: roll the die" in page.inner_text("#prompt")
        act(page, '.action[data-type="roll"] button.choice[data-value="2"]')
        assert "Red rolled 2" in page.inner_text("#prompt")
        act(page, '.action[data-type="move-nessie"] button.choice >> nth=0')
        assert "Red moved Nessie 2 circles" in page.inner_text("#summary")
        # an illegal action sent anyway is refused with the rule, and nothing changes
        v = version(page)
        page.evaluate(f"post('/api/games/loch-ness-obert/actions', {{type: 'move-photographer', origin: 'tent', to: 'hill'}})")
        page.wait_for_selector("#message:not([hidden])")
        assert version(page) == v and "not now" in page.inner_text("#message")
    finally:
        page.close()


def test_loch_ness_wettering_cameras_and_the_reveal(chromium, games_server):
    page = open_game(chromium, games_server, "loch-ness-wettering")
    try:
        act(page, "#setup-form button.submit")  # blue, red, green
        for k in range(9):
            act(page, '.action[data-type="camera"] button.submit')  # the first value on the first empty front spot
        assert "Reveal the cameras and the movement cards (Blue, Red, Green)" in page.inner_text("#prompt")
        for k, value in enumerate(("1", "2", "3")):
            page.select_option(f'.action[data-type="reveal"] select[name="cards-{k}"]', label=value)
        act(page, '.action[data-type="reveal"] button.submit')
        assert "The cards add up to 6" in page.inner_text("#summary")
        assert page.evaluate("view.small_nessie") == 6
    finally:
        page.close()
