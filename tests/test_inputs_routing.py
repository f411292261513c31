"""Device events to every game's table: the d12 and the water symbol reach Loch Ness (Obert), a d6
game refuses 7-12 and water with a clear message on the device's health, Undo and Next per game."""

from __future__ import annotations

import pytest

from companion.config import Config, ConfigError
from companion.games.loch_ness_obert import make_game as make_obert
from companion.inputs import InputEvent
from companion.inputs.routing import ROUTES, UNDO, DeviceRefused, device_action
from companion.inputs.simulated_board import SimulatedSerialBoard
from tests.device_helpers import wait_for

FAST = dict(heartbeat_s=0.2, silence_s=1.0, hello_timeout_s=0.5, backoff_s=(0.05, 0.2))


def obert_at_the_roll(table):
    """Start a two-player Obert game and place the six photographers: red must roll next."""
    table.new_game(table.game.parse_action({"type": "new-game", "players": ["red", "yellow"]}))
    while "roll" not in {a["type"] for a in table.view()["legal"]}:
        [place] = [a for a in table.view()["legal"] if a["type"] == "place-photographer"]
        table.submit(table.game.parse_action({"type": "place-photographer", "area": place["fields"][0]["choices"][0]}))


# -- the pure mapping ---------------------------------------------------------------------------


def test_every_game_here_has_a_route():
    from companion.games import available_modules

    assert {m.make_game().id for m in available_modules()} <= set(ROUTES)


@pytest.mark.parametrize("value", [7, 12, "water"])
def test_nessie_hunt_refuses_what_a_six_sided_die_cannot_show(game, value):
    with pytest.raises(DeviceRefused, match="six-sided die"):
        device_action(game, lambda: game.legal_actions(None), InputEvent("throw", value, "pico"), "serial")


def test_a_d12_throw_becomes_obert_s_roll():
    obert = make_obert()
    action = device_action(obert, lambda: [], InputEvent("throw", 11, "pico"), "serial")
    assert obert.action_to_json(action) == {"type": "roll", "value": 11, "source": "serial"}
    assert device_action(obert, lambda: [], InputEvent("undo", None, "pico"), "serial") is UNDO
    assert device_action(obert, lambda: [{"type": "roll"}], InputEvent("next", None, "pico"), "serial") is None


@pytest.mark.parametrize("game_id, reason", [("loch-lomond", "card game"), ("loch-ness-wettering", "no die"),
                                             ("monster-ambush", "ambush needs its hex")])
def test_games_without_a_device_die_say_why(make_service, game_id, reason):
    service = make_service(input_game=game_id)
    table = service.tables[game_id]
    with pytest.raises(DeviceRefused, match=reason):
        device_action(table.game, lambda: table.view()["legal"], InputEvent("throw", 3, "pico"), "serial")


def test_input_event_takes_faces_1_to_12_and_water_only():
    for value in (0, 13, "fire", True, 4.0, None):
        with pytest.raises(ValueError):
            InputEvent("throw", value)
    with pytest.raises(ValueError, match="carries no value"):
        InputEvent("undo", 3)
    assert InputEvent("throw", "water").value == "water" and InputEvent("throw", 12).value == 12


# -- through the service ------------------------------------------------------------------------


def test_the_boards_play_nessie_hunt_unless_told_otherwise(make_service):
    assert make_service().input_game == "nessie-hunt"
    with pytest.raises(ConfigError, match="'chess' is not a game here"):
        make_service(input_game="chess")


def test_config_file_names_the_game_the_boards_play(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[inputs]\ngame = "loch-ness-obert"\nserial_board = "simulated-matrix"\n')
    config = Config.from_file(path)
    assert (config.input_game, config.serial_board) == ("loch-ness-obert", "simulated-matrix")


def test_a_d6_game_refuses_a_matrix_9_and_water_over_the_pty_and_says_so(make_service):
    service = make_service()
    board = SimulatedSerialBoard(layout="matrix", **FAST)
    service.sources.append(board)  # shown in the health, closed with the service
    board.start(service.handle_input)
    assert board.connected_event.wait(3)
    before = service.table.view()["actions"]
    board.press("9")
    assert wait_for(lambda: board.health.details.get("refused") == 1)
    assert board.health.last_error == "Nessie Hunt is played with a six-sided die: a 9 is not on it"
    board.press("water")
    assert wait_for(lambda: board.health.details.get("refused") == 2)
    assert "the water symbol is not on it" in board.health.last_error
    board.press("3")
    assert wait_for(lambda: service.table.view()["actions"] == before + 1)
    assert service.table.view()["last_throw"]["value"] == 3
    assert service.health()[board.name]["details"]["refused"] == 2


def test_a_d12_game_takes_the_device_throws_through_the_service(make_service):
    service = make_service(input_game="loch-ness-obert")
    table = service.tables["loch-ness-obert"]
    obert_at_the_roll(table)
    board = SimulatedSerialBoard(layout="matrix", **FAST)
    service.sources.append(board)
    board.start(service.handle_input)
    assert board.connected_event.wait(3)
    board.press("water")
    assert wait_for(lambda: table.view()["phase"] == "dive")
    assert table.view()["roll"] == "water"
    assert table.history()[-1][0] == {"type": "roll", "value": "water", "source": "serial"}
    board.press("undo")
    assert wait_for(lambda: table.view()["phase"] == "turn")
    board.press("12")  # the house die has 1-11 and the water symbol: the rules refuse a 12
    assert wait_for(lambda: board.health.details.get("refused") == 1)
    assert "not a face of this die" in board.health.last_error
    board.press("11")
    assert wait_for(lambda: table.view()["roll"] == 11)
    assert service.table.view()["actions"] == 1  # Nessie Hunt's table saw none of it


def test_routing_can_change_while_running(make_service):
    service = make_service()
    obert_at_the_roll(service.tables["loch-ness-obert"])
    service.route_inputs("loch-ness-obert")
    service.handle_input(InputEvent("throw", 5, "virtual die"))
    assert service.tables["loch-ness-obert"].view()["roll"] == 5
    with pytest.raises(ConfigError, match="no game"):
        service.route_inputs("ludo")
    service.route_inputs("nessie-hunt")
    before = service.table.view()["actions"]
    service.handle_input(InputEvent("throw", 5, "virtual die"))
    assert service.table.view()["actions"] == before + 1


def test_next_ends_the_monster_players_actions(make_service):
    service = make_service(input_game="monster-ambush")
    table = service.tables["monster-ambush"]
    table.new_game(table.game.parse_action({"type": "new-game"}))
    assert "end-actions" in {a["type"] for a in table.view()["legal"]}
    service.handle_input(InputEvent("next", None, "gpio"))
    assert table.history()[-1][0] == {"type": "end-actions"}
    service.handle_input(InputEvent("undo", None, "gpio"))
    assert table.history()[-1][0]["type"] == "new-game"


def test_a_throw_for_a_card_game_is_refused_on_the_device_not_lost_silently(make_service):
    from companion.inputs.simulated_gpio import SimulatedGPIOBoard

    service = make_service(input_game="loch-lomond")
    board = SimulatedGPIOBoard()
    service.sources.append(board)
    board.start(service.handle_input)
    board.press("4").join()
    assert wait_for(lambda: board.health.details.get("refused") == 1)
    assert "card game" in board.health.last_error


def test_turn_leds_follow_the_game_the_boards_play(make_service):
    from companion.inputs.simulated_gpio import SimulatedGPIOBoard

    service = make_service(gpio_board=True, gpio_pin_factory="simulated")
    [board] = [s for s in service.sources if isinstance(s, SimulatedGPIOBoard)]
    assert board.lit == [service.table.view()["turn"]]
    obert = service.tables["loch-ness-obert"]
    obert_at_the_roll(obert)
    assert board.lit == [service.table.view()["turn"]]  # not routed there: Nessie Hunt's LED stays
    service.route_inputs("loch-ness-obert")
    assert board.lit == []  # Obert's turn is a colour with no LED
    service.route_inputs("nessie-hunt")
    assert board.lit == [service.table.view()["turn"]]


def test_the_dice_camera_s_d6_readings_do_not_roll_the_d12(make_service):
    service = make_service(input_game="loch-ness-obert")
    table = service.tables["loch-ness-obert"]
    obert_at_the_roll(table)
    assert service.handle_input(InputEvent("throw", 4, "camera")) is None
    assert table.view()["roll"] is None
    obert = table.game
    with pytest.raises(DeviceRefused, match="reads six-sided dice"):
        device_action(obert, lambda: [], InputEvent("throw", 4, "camera"), "camera")
    service.route_inputs("nessie-hunt")
    before = service.table.view()["actions"]
    service.handle_input(InputEvent("throw", 4, "camera"))
    assert service.table.view()["actions"] == before + 1
