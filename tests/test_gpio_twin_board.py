"""The GPIO board's twin for the demo: bouncing switches feeding the real board's debounce path."""

from __future__ import annotations

import threading
import time

import pytest

from companion.inputs.gpio_board import DEFAULT_LEDS, GPIOBoard, GPIOBoardError
from companion.inputs.simulated_gpio import SimulatedGPIOBoard, gpio_board_from_config
from tests.device_helpers import wait_for


class Spy:
    """Counts the raw edges reaching the board's own ``_edge`` and records the events."""

    def __init__(self, board):
        self.edges = 0
        self.events = []
        real_edge = board._edge

        def edge(name, closed):
            self.edges += 1
            real_edge(name, closed)

        board._edge = edge
        board.start(self.events.append)


@pytest.fixture
def twin():
    board = SimulatedGPIOBoard(seed=7)
    yield board
    board.close()


def test_the_twin_is_the_real_board_with_other_pins(twin):
    assert isinstance(twin, GPIOBoard)
    assert type(twin)._edge is GPIOBoard._edge and type(twin)._run is GPIOBoard._run  # the same debounce path
    assert twin.health.details["pin_factory"] == "SimulatedPins"


def test_a_bouncing_press_gives_one_event(twin):
    spy = Spy(twin)
    for name in ("4", "undo", "6", "next", "1"):
        twin.press(name, hold_s=0.03).join()
        time.sleep(0.03)  # the release window passes, as between two real presses
    assert wait_for(lambda: len(spy.events) == 5)
    time.sleep(0.05)
    assert [(e.kind, e.value) for e in spy.events] == [("throw", 4), ("undo", None), ("throw", 6), ("next", None),
                                                       ("throw", 1)]
    assert spy.edges > 2 * 5 + 4  # the contacts really bounced: well over one close and one open each
    assert all(e.source == twin.name for e in spy.events)


def test_the_same_seed_bounces_the_same_way():
    counts = []
    for _ in range(2):
        board = SimulatedGPIOBoard(seed=3)
        spy = Spy(board)
        for _ in range(4):
            board.press("2", hold_s=0.01).join()
        board.close()
        counts.append(spy.edges)
    assert counts[0] == counts[1] > 8


def test_presses_of_two_buttons_at_once_each_count(twin):
    spy = Spy(twin)
    a, b = twin.press("3", hold_s=0.05), twin.press("5", hold_s=0.05)
    a.join(), b.join()
    assert wait_for(lambda: len(spy.events) == 2)
    assert sorted(e.value for e in spy.events) == [3, 5]


def test_a_d12_pin_map_gives_water_and_twelve():
    board = SimulatedGPIOBoard({"12": 5, "water": 6, "undo": 20})
    spy = Spy(board)
    try:
        board.press("water").join()
        time.sleep(0.03)
        board.press("12").join()
        assert wait_for(lambda: [e.value for e in spy.events] == ["water", 12])
    finally:
        board.close()


def test_unknown_buttons_and_bad_pins_are_refused(twin):
    with pytest.raises(GPIOBoardError, match="no button '7'"):
        twin.press("7")
    with pytest.raises(GPIOBoardError, match="BCM GPIO number"):
        SimulatedGPIOBoard({"1": 99})


def test_closed_twin_sends_nothing(twin):
    spy = Spy(twin)
    twin.close()
    assert not twin.health.connected
    twin.press("4").join()
    time.sleep(0.03)
    assert spy.events == []


# -- in the demo's config -----------------------------------------------------------------------


def test_config_picks_the_twin_or_the_real_board():
    assert gpio_board_from_config({}) is None
    board = gpio_board_from_config({"gpio_board": True, "gpio_pin_factory": "simulated", "gpio_press_ms": 4})
    try:
        assert isinstance(board, SimulatedGPIOBoard) and board._debouncers["1"].press_s == pytest.approx(0.004)
    finally:
        board.close()
    with pytest.raises(GPIOBoardError, match="unknown pin factory"):
        gpio_board_from_config({"gpio_board": True, "gpio_pin_factory": "nonsense"})


def test_the_demo_plays_nessie_hunt_on_the_gpio_twin(make_service):
    service = make_service(gpio_board=True, gpio_pin_factory="simulated")
    [board] = [s for s in service.sources if isinstance(s, SimulatedGPIOBoard)]
    health = service.health()[board.name]
    assert health["kind"] == "gpio-board-twin" and health["connected"]
    assert board.lit == [service.table.view()["turn"]]  # the turn LED is lit from the start
    before = service.table.view()
    board.press("5")
    assert wait_for(lambda: service.table.view()["actions"] == before["actions"] + 1)
    last = service.table.view()["last_throw"]
    assert (last["value"], last["source"]) == (5, "gpio")
    assert wait_for(lambda: board.lit == [service.table.view()["turn"]])
    assert set(board.leds) == set(DEFAULT_LEDS)
    assert service.health()[board.name]["last_event"] == "throw 5"


def test_a_press_counts_when_the_contact_settles_not_when_it_is_let_go(make_service):
    service = make_service(gpio_board=True, gpio_pin_factory="simulated")
    [board] = [s for s in service.sources if isinstance(s, SimulatedGPIOBoard)]
    before = service.table.view()["actions"]
    held = board.press("2", hold_s=10)  # held far longer than the test waits
    assert wait_for(lambda: service.table.view()["actions"] == before + 1, timeout=5)
    # Still held (its thread plays the release only after 10 s): the action came from the press.
    # Not `closed` at this instant: on a loaded machine a closing bounce's sleep can outlast the
    # 3 ms debounce, so the press may count while the contact is in one of its last open gaps.
    assert held.is_alive()
    assert wait_for(lambda: board.buttons["2"].closed, timeout=1)


# -- pressing the twins from outside: `nessie-companion press` ----------------------------------


def test_press_command_plays_on_the_running_demo_s_twins(make_service, capsys):
    import os
    import stat

    from companion.cli import main
    from companion.inputs.simulated_board import SimulatedSerialBoard
    from companion.inputs.twin_control import socket_path

    service = make_service(gpio_board=True, gpio_pin_factory="simulated", serial_board="simulated-matrix")
    path = socket_path(service.config.database)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # only this user may press
    [serial] = [s for s in service.sources if isinstance(s, SimulatedSerialBoard)]
    assert serial.connected_event.wait(3)
    before = service.table.view()["actions"]
    assert main(["press", "4", "--database", service.config.database]) == 0
    assert "ok gpio board (simulated)" in capsys.readouterr().out
    assert wait_for(lambda: service.table.view()["actions"] == before + 1)
    assert main(["press", "water", "--board", "serial", "--database", service.config.database]) == 0
    assert wait_for(lambda: serial.health.details.get("refused") == 1)  # Nessie Hunt has no water face
    assert main(["press", "water", "--board", "gpio", "--database", service.config.database]) == 2
    assert "no button 'water'" in capsys.readouterr().out
    service.close()
    assert not path.exists()
    assert main(["press", "4", "--database", service.config.database]) == 2
    assert "no companion with a simulated board" in capsys.readouterr().err


def test_no_control_socket_without_a_twin(make_service):
    from companion.inputs.twin_control import answer, socket_path

    service = make_service()
    assert service.twin_control is None and not socket_path(service.config.database).exists()
    assert answer(service.sources, "press 4") == "error no simulated board is running"
    assert answer(service.sources, "jump 4").startswith("error say:")


def test_demo_inputs_words_become_config(make_service):
    from companion.config import ConfigError
    from companion.inputs.demo_inputs import demo_input_config

    assert demo_input_config("") == {}
    assert demo_input_config("serial-sim") == {"serial_board": "simulated"}
    with pytest.raises(ConfigError, match="unknown 'gpio'"):
        demo_input_config("gpio")
    with pytest.raises(ConfigError, match="one serial twin"):
        demo_input_config("serial-sim,serial-matrix-sim")
    service = make_service(**demo_input_config("gpio-sim,serial-matrix-sim"))
    kinds = sorted(d["kind"] for d in service.health().values())
    assert kinds == ["gpio-board-twin", "serial-board-twin", "virtual", "voice"]
