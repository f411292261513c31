"""The board camera's referee on the table screen: a sheet laid against the rules is shown there at
once, in words and as a red outline on the map, and the warning goes when the sheet is fixed."""

from __future__ import annotations

import pytest

from companion.vision.sheets import SheetPose
from tests.test_vision_live import NORTH_SHORE, _to_purchase, lay_pointed_end_off_shore

pytestmark = pytest.mark.browser


def test_the_table_screen_shows_a_broken_placement_until_it_is_fixed(chromium, make_service, serve):
    from companion.games.nessie_hunt import Buy

    service = make_service(board_camera_source="sim")
    url = serve(service, threads=8)
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(url)
        page.wait_for_selector('#referee-state[data-state="still"]', timeout=60000)
        _to_purchase(service.table)
        camera = service.board_camera._camera
        _real_lay, laid = lay_pointed_end_off_shore(camera)
        service.table.submit(Buy("surface_camera"))
        page.wait_for_selector('#referee-problems li[data-kind="violation"]', timeout=60000)
        text = page.inner_text("#referee-problems")
        assert "pointed end" in text and "Fix it now" in text
        outline = page.locator('#sheet-layer polygon[data-state="violation"]')
        assert outline.count() == 1 and outline.get_attribute("data-equipment") == "surface_camera"
        assert page.get_attribute("#referee", "data-problems") == "1"

        # the player slides it back so the pointed end touches the shore: the warning goes
        fixed = SheetPose(laid[0].expedition, "surface_camera", 302.0, NORTH_SHORE - 1.0, 3.0)
        with camera._lock:
            camera.sheets[-1] = fixed
        camera.redraw()
        page.wait_for_selector('#referee[data-problems="0"]', timeout=60000)
        assert page.locator('#referee-problems li[data-kind="violation"]').count() == 0
        assert page.locator('#sheet-layer polygon[data-state="violation"]').count() == 0
    finally:
        page.close()


def test_without_a_board_camera_the_table_screen_has_no_referee(chromium, make_service, serve):
    url = serve(make_service())
    page = chromium.new_page()
    try:
        page.goto(url)
        page.wait_for_selector("#round")
        assert page.locator("#referee").count() == 0
        assert page.get_attribute("body", "data-board-camera") == "false"
    finally:
        page.close()
