"""GPIO button board: our debounce edge by edge, then the whole board on gpiozero's MockFactory."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from companion.inputs.gpio_board import (
    DEFAULT_BUTTONS, DEFAULT_LEDS, PRESS_S, RELEASE_S, Debouncer, GPIOBoard, GPIOBoardError, make_pin_factory,
    validate_pins,
)
from tests.device_helpers import tap, wait_for

# -- the debouncer alone, on a clock we hand it --------------------------------------------------


def run_edges(edges, end, press_s=PRESS_S, release_s=RELEASE_S):
    """Feed (time, closed) edges, settling at every due time on the way; return the press times."""
    d = Debouncer(press_s, release_s)
    presses = []
    events = sorted(edges)
    t = 0.0
    i = 0
    while t <= end:
        while i < len(events) and events[i][0] <= t:
            d.edge(events[i][1], events[i][0])
            i += 1
        if d.settle(t):
            presses.append(round(t, 4))
        t = round(t + 0.0001, 4)
    return presses


def test_default_debounce_is_short_enough_for_the_latency_budget_and_long_enough_for_chatter():
    assert 0.002 <= PRESS_S <= 0.005 and RELEASE_S >= 5 * PRESS_S


@pytest.mark.parametrize("edges, end, expected", [
    ([(0.010, True), (0.100, False)], 0.2, [0.013]),  # a clean press: reported 3 ms after closing
    ([(0.010, True)], 1.0, [0.013]),  # held a second: still one press
    ([(0.010, True), (0.0105, False), (0.011, True), (0.0112, False), (0.012, True), (0.100, False),
      (0.1004, True), (0.1008, False), (0.101, True), (0.1013, False)], 0.3, [0.015]),  # chatter both ways
    ([(0.010, True), (0.0115, False)], 0.2, []),  # a 1.5 ms glitch
    ([(0.010, True), (0.0125, False), (0.013, True), (0.0155, False)], 0.2, []),  # two glitches
    ([], 0.1, []),  # nothing happens
])
def test_debouncer(edges, end, expected):
    assert run_edges(edges, end) == pytest.approx(expected, abs=0.00015)


def test_a_fast_real_buzz_counts_every_press():
    edges = [(0.02 * k, k % 2 == 0) for k in range(40)]  # 10 ms closed spans, 20 ms apart
    assert len(run_edges(edges, 1.0, release_s=0.005)) == 20


def test_edges_alone_decide_when_the_timer_is_late():
    # The settling thread may be held up past a due time; the next edge must still apply it.
    d = Debouncer()
    assert d.edge(True, 1.000) is False
    assert d.edge(False, 1.010) is True  # closed 10 ms, never settled: a press, reported now
    assert d.edge(True, 1.050) is False  # open 40 ms, never settled: that press is over...
    assert d.settle(1.054) is True  # ...so this is a new one
    assert d.edge(False, 1.100) is False
    assert d.edge(True, 1.110) is False  # open only 10 ms: still the same press
    assert d.settle(1.200) is False


def test_glitch_train_shorter_than_the_debounce_gives_nothing():
    edges = []
    for k in range(50):  # 2 ms closed, 40 ms open, fifty times
        edges += [(0.05 * k, True), (0.05 * k + 0.002, False)]
    assert run_edges(edges, 3.0) == []


def test_release_chatter_is_no_second_press_but_a_real_second_press_is():
    edges = [(0.0, True), (0.050, False), (0.052, True), (0.056, False), (0.060, True), (0.064, False)]
    assert run_edges(edges, 0.2) == pytest.approx([0.003], abs=0.00015)  # reopened < 25 ms: one press
    edges += [(0.120, True), (0.200, False)]  # open 56 ms, then pressed again
    assert run_edges(edges, 0.3) == pytest.approx([0.003, 0.123], abs=0.00015)


# -- the board on MockFactory (real pins of gpiozero's mock, real threads, short real sleeps) -----


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def board(factory):
    got: list = []
    arrived = threading.Event()

    def callback(event):
        got.append(event)
        arrived.set()

    b = GPIOBoard(pin_factory=factory)
    b.start(callback)
    b.got, b.arrived = got, arrived
    yield b
    b.close()


@pytest.mark.parametrize("name, kind, value", [
    ("1", "throw", 1), ("2", "throw", 2), ("3", "throw", 3), ("4", "throw", 4), ("5", "throw", 5),
    ("6", "throw", 6), ("undo", "undo", None), ("next", "next", None),
])
def test_each_button_gives_its_event(board, factory, name, kind, value):
    tap(factory.pin(DEFAULT_BUTTONS[name]))
    assert wait_for(lambda: board.got)
    time.sleep(0.03)
    assert [(e.kind, e.value, e.source) for e in board.got] == [(kind, value, "gpio board")]
    assert board.health.last_event == (kind if value is None else f"{kind} {value}")


def test_contact_bounce_gives_one_event(factory):
    # The default press window; a release window wide enough that a CI machine stalling this
    # thread mid-chatter cannot turn one press into two (the 25 ms default is tested edge by edge).
    got = []
    b = GPIOBoard(pin_factory=factory, release_s=0.15)
    b.start(got.append)
    try:
        pin = factory.pin(DEFAULT_BUTTONS["4"])
        for _ in range(8):  # closing chatter, about 0.2 ms a state
            pin.drive_low()
            time.sleep(0.0002)
            pin.drive_high()
            time.sleep(0.0002)
        pin.drive_low()
        time.sleep(0.05)
        for _ in range(8):  # opening chatter
            pin.drive_high()
            time.sleep(0.0002)
            pin.drive_low()
            time.sleep(0.0002)
        pin.drive_high()
        time.sleep(0.2)
        assert [(e.kind, e.value) for e in got] == [("throw", 4)]
    finally:
        b.close()


def test_pulses_shorter_than_the_debounce_are_ignored(factory):
    got = []
    # A wide window, so that even a CI machine that stalls this thread for tens of milliseconds
    # cannot stretch a 2 ms pulse into a real press; the exact default is tested edge by edge above.
    b = GPIOBoard(pin_factory=factory, press_s=0.1)
    b.start(got.append)
    try:
        pin = factory.pin(DEFAULT_BUTTONS["2"])
        for _ in range(10):
            pin.drive_low()
            time.sleep(0.002)
            pin.drive_high()
            time.sleep(0.01)
        time.sleep(0.15)
        assert got == []
        tap(pin, hold=0.2, after=0.05)  # a real press after the glitches still counts
        assert wait_for(lambda: got)
        assert [(e.kind, e.value) for e in got] == [("throw", 2)]
    finally:
        b.close()


def test_a_held_button_gives_one_event_and_the_next_press_another(board, factory):
    pin = factory.pin(DEFAULT_BUTTONS["next"])
    pin.drive_low()
    time.sleep(0.5)  # twenty times the release window, a hundred and fifty the press window
    assert [e.kind for e in board.got] == ["next"]
    pin.drive_high()
    time.sleep(0.05)
    tap(pin)
    assert [e.kind for e in board.got] == ["next", "next"]


def test_two_buttons_at_once_each_count(board, factory):
    a, b = factory.pin(DEFAULT_BUTTONS["1"]), factory.pin(DEFAULT_BUTTONS["6"])
    a.drive_low()
    b.drive_low()
    time.sleep(0.03)
    a.drive_high()
    b.drive_high()
    time.sleep(0.04)
    assert sorted(e.value for e in board.got) == [1, 6]


def test_press_reaches_the_callback_after_the_debounce_window(board, factory):
    # The window is really waited; the latency figures themselves are measured by
    # tests/bench/bench_inputs.py (a test cannot hold a loaded CI machine to milliseconds).
    pin = factory.pin(DEFAULT_BUTTONS["3"])
    delays = []
    for _ in range(20):
        board.arrived.clear()
        t0 = time.monotonic()
        pin.drive_low()
        assert board.arrived.wait(1)
        delays.append(time.monotonic() - t0)
        time.sleep(0.005)
        pin.drive_high()
        time.sleep(0.035)
    delays.sort()
    assert delays[0] >= PRESS_S  # the debounce window is really waited
    assert delays[len(delays) // 2] < PRESS_S + 0.2  # and then it comes: nothing waits for another edge


@pytest.mark.parametrize("turn", ["independent", "japanese", "british", "american"])
def test_leds_show_whose_turn_it_is(board, factory, turn):
    board.show_turn(turn)
    lit = {n for n, pin in DEFAULT_LEDS.items() if factory.pin(pin).state}
    assert lit == {turn}
    assert board.health.details["turn"] == turn


@pytest.mark.parametrize("turn", [None, "scottish"])
def test_leds_go_out_for_no_turn_or_a_name_without_an_led(board, factory, turn):
    board.show_turn("british")
    board.show_turn(turn)
    assert not any(factory.pin(pin).state for pin in DEFAULT_LEDS.values())


def test_custom_pin_map(factory):
    b = GPIOBoard({"1": 4, "undo": 12}, {"american": 25}, pin_factory=factory)
    got = []
    b.start(got.append)
    try:
        tap(factory.pin(12))
        b.show_turn("american")
        assert [e.kind for e in got] == ["undo"] and factory.pin(25).state
    finally:
        b.close()


@pytest.mark.parametrize("buttons, leds, message", [
    ({"13": 5}, {}, "unknown button"),  # 7-12 and water are allowed (a d12 pin map)
    ({}, {"scottish": 5}, "unknown LED"),
    ({"1": 40}, {}, "BCM GPIO number 2-27"),
    ({"1": 1}, {}, "BCM GPIO number 2-27"),
    ({"1": "5"}, {}, "BCM GPIO number 2-27"),
    ({"1": True}, {}, "BCM GPIO number 2-27"),
    ({"1": 5, "2": 5}, {}, "BCM 5 given to both 1 and 2"),
    ({"1": 17}, {"independent": 17}, "BCM 17 given to both"),
])
def test_invalid_pin_maps_are_refused(factory, buttons, leds, message):
    with pytest.raises(GPIOBoardError, match=message):
        validate_pins(buttons, leds)
    with pytest.raises(ValueError, match=message):  # GPIOBoardError is a ValueError too
        GPIOBoard(buttons, leds, pin_factory=factory)
    GPIOBoard(pin_factory=factory).close()  # nothing was left claimed


@pytest.mark.parametrize("press_s, release_s", [(0, 0.02), (0.003, -1), (2, 0.02)])
def test_invalid_debounce_is_refused(factory, press_s, release_s):
    with pytest.raises(GPIOBoardError, match="debounce"):
        GPIOBoard(pin_factory=factory, press_s=press_s, release_s=release_s)


def test_pins_in_use_are_refused_and_freed_on_close(factory):
    first = GPIOBoard(pin_factory=factory)
    with pytest.raises(GPIOBoardError, match="cannot claim"):
        GPIOBoard(pin_factory=factory)
    first.close()
    GPIOBoard(pin_factory=factory).close()  # free again


def test_unknown_pin_factory_is_refused():
    with pytest.raises(GPIOBoardError, match="unknown pin factory"):
        make_pin_factory("wiringpi")


def test_lgpio_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "lgpio", None)  # import lgpio fails, as on a laptop
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    with pytest.raises(GPIOBoardError, match="lgpio is not installed"):
        GPIOBoard()  # the default factory is lgpio, for the Pi 5


def test_module_imports_without_lgpio():
    code = ("import sys; sys.modules['lgpio'] = None\n"
            "import companion.inputs.gpio_board as g\n"
            "assert 'gpiozero.pins.lgpio' not in sys.modules\n"
            "print(g.DEFAULT_BUTTONS['1'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "5"


def test_a_failing_callback_is_recorded_and_the_board_goes_on(factory):
    calls = []

    def callback(event):
        calls.append(event)
        if len(calls) == 1:
            raise RuntimeError("table on fire")

    b = GPIOBoard(pin_factory=factory)
    b.start(callback)
    try:
        pin = factory.pin(DEFAULT_BUTTONS["5"])
        tap(pin)
        assert wait_for(lambda: b.health.last_error)
        assert "table on fire" in b.health.last_error
        tap(pin)
        assert wait_for(lambda: len(calls) == 2)
    finally:
        b.close()


def test_close_stops_events_and_marks_disconnected(board, factory):
    board.close()
    assert board.health.connected is False
    GPIOBoard(pin_factory=factory).close()  # the pins are free again
    assert board.got == []


def test_presses_reach_the_table_through_the_service(service, factory):
    b = GPIOBoard(pin_factory=factory)
    b.start(service.handle_input)
    try:
        before = service.table.view()
        tap(factory.pin(DEFAULT_BUTTONS["4"]))
        assert wait_for(lambda: service.table.view()["actions"] == before["actions"] + 1)
        last = service.table.view()["last_throw"]
        assert (last["value"], last["source"]) == (4, "gpio")  # the log records the kind of source; the name is for the devices page
        b.show_turn(service.table.view()["turn"])
        lit = [n for n, pin in DEFAULT_LEDS.items() if factory.pin(pin).state]
        assert lit == [service.table.view()["turn"]]
    finally:
        b.close()


def test_from_config(factory, monkeypatch):
    assert GPIOBoard.from_config({}) is None
    assert GPIOBoard.from_config({"gpio_board": False, "gpio_buttons": {"1": 99}}) is None
    b = GPIOBoard.from_config({"gpio_board": True, "gpio_pin_factory": "mock", "gpio_buttons": {"1": 4},
                               "gpio_leds": {}, "gpio_press_ms": 5, "gpio_release_ms": 40})
    try:
        assert set(b.buttons) == {"1"} and set(b.leds) == set(DEFAULT_LEDS)
        assert b._debouncers["1"].press_s == pytest.approx(0.005)
        assert b._debouncers["1"].release_s == pytest.approx(0.040)
    finally:
        b.close()
    with pytest.raises(GPIOBoardError, match="BCM GPIO number"):
        GPIOBoard.from_config({"gpio_board": True, "gpio_pin_factory": "mock", "gpio_buttons": {"1": 99}})
