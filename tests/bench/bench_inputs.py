"""Button boards: press to callback latency, GPIO (mock pins) and Pico serial (pty), vs baselines.

GPIO: from a MockFactory pin driven low to our callback (through our 3 ms debounce); baseline:
gpiozero's own ``when_pressed`` on the same kind of pin, no debounce. Serial: from the firmware
logic queueing a press (``Board.press``) to our callback, through the pty, parsing, ordering and
acknowledging; baseline: one line written to a pty master and read back with pyserial. Targets
(issue 4): GPIO 5 ms and serial 10 ms at the 99th percentile.

"-> action appended" rows go on through the service to the table: a d12 throw (GPIO button 7 on
a d12 pin map; the Pico key matrix's 11) becomes Loch Ness (Obert)'s roll, judged by the rules,
written to SQLite and published; the clock stops when ``Service.handle_input`` returns. Each
roll is then undone (not timed) so the next press is legal again.
"""

from __future__ import annotations

import os
import threading
import time

N = 200


def _pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def _fmt(name, values, target=None, baseline=None):
    p50, p99 = _pct(values, 50) * 1000, _pct(values, 99) * 1000
    text = f"{name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms over {len(values)}"
    if target is not None:
        text += f" (target p99 <= {target} ms: {'met' if p99 <= target else 'NOT met'})"
    if baseline is not None:
        text += f"; {p99 / max(_pct(baseline, 99) * 1000, 1e-6):.1f}x baseline p99"
    return text


def _gpio():
    from gpiozero import Button
    from gpiozero.pins.mock import MockFactory

    from companion.inputs.gpio_board import DEFAULT_BUTTONS, GPIOBoard

    factory = MockFactory()
    arrived = threading.Event()
    base = []
    button = Button(4, pin_factory=factory)
    button.when_pressed = lambda: arrived.set()
    pin = factory.pin(4)
    for _ in range(N):
        arrived.clear()
        t0 = time.perf_counter()
        pin.drive_low()
        arrived.wait(1)
        base.append(time.perf_counter() - t0)
        pin.drive_high()
    button.close()
    ours = []
    board = GPIOBoard(pin_factory=factory)
    board.start(lambda e: arrived.set())
    pin = factory.pin(DEFAULT_BUTTONS["4"])
    for _ in range(N):
        arrived.clear()
        t0 = time.perf_counter()
        pin.drive_low()
        arrived.wait(1)
        ours.append(time.perf_counter() - t0)
        time.sleep(0.002)
        pin.drive_high()
        time.sleep(0.03)  # past the 25 ms release window
    board.close()
    return base, ours


def _serial():
    import serial

    from companion.inputs.serial_board import SerialBoard
    from companion.inputs.simulated_board import VirtualSerialBoard

    master, slave = os.openpty()
    link = serial.Serial(os.ttyname(slave), timeout=1)
    base = []
    for _ in range(N):
        t0 = time.perf_counter()
        os.write(master, b"1 BTN 4*9A\n")
        link.readline()
        base.append(time.perf_counter() - t0)
    link.close()
    os.close(master)
    os.close(slave)

    twin = VirtualSerialBoard()
    twin.plug()
    arrived = threading.Event()
    board = SerialBoard(twin.port)
    board.start(lambda e: arrived.set())
    board.connected_event.wait(5)
    ours = []
    for _ in range(N):
        arrived.clear()
        with twin._lock:
            t0 = time.perf_counter()
            twin.board.press("4", int(time.monotonic() * 1000))
        arrived.wait(1)
        ours.append(time.perf_counter() - t0)
    board.close()
    twin.close()
    return base, ours


def _obert_service(tmp):
    from companion.config import Config
    from companion.service import Service

    service = Service(Config(database=os.path.join(tmp, "bench.sqlite"), input_game="loch-ness-obert"))
    table = service.tables["loch-ness-obert"]
    table.new_game(table.game.parse_action({"type": "new-game", "players": ["red", "yellow"]}))
    while "roll" not in {a["type"] for a in table.view()["legal"]}:
        place = next(a for a in table.view()["legal"] if a["type"] == "place-photographer")
        table.submit(table.game.parse_action({"type": "place-photographer", "area": place["fields"][0]["choices"][0]}))
    return service, table


def _to_table(board, press, release, service, table, settle_s):
    """Press, wait until the action is appended, release, undo; the times from press to appended."""
    appended = threading.Event()
    started, times = [0.0], []

    def callback(event):
        if service.handle_input(event) is not None and event.kind == "throw":
            times.append(time.perf_counter() - started[0])
            appended.set()

    board.start(callback)
    if hasattr(board, "connected_event") and not board.connected_event.wait(5):
        raise RuntimeError(f"board not connected: {board.health.as_dict()}")
    for _ in range(N):
        appended.clear()
        before = table.version
        started[0] = time.perf_counter()
        press()
        if not appended.wait(2):
            raise RuntimeError(f"no action appended: {board.health.as_dict()}")
        release()
        time.sleep(settle_s)
        if table.version != before + 1:
            raise RuntimeError("the press was not appended exactly once")
        table.undo()
    return times


def _submit_alone(tmp):
    """Baseline: the same roll submitted straight to the table (rules, SQLite append, publish)."""
    service, table = _obert_service(tmp)
    roll = table.game.parse_action({"type": "roll", "value": 7, "source": "gpio"})
    times = []
    try:
        for _ in range(N):
            t0 = time.perf_counter()
            table.submit(roll)
            times.append(time.perf_counter() - t0)
            table.undo()
    finally:
        service.close()
    return times


def _gpio_to_table(tmp):
    from gpiozero.pins.mock import MockFactory

    from companion.inputs.gpio_board import GPIOBoard

    service, table = _obert_service(tmp)
    factory = MockFactory()
    board = GPIOBoard({"7": 5, "water": 6}, {}, pin_factory=factory)
    pin = factory.pin(5)
    try:
        return _to_table(board, pin.drive_low, pin.drive_high, service, table, 0.03)  # past the release window
    finally:
        board.close()
        service.close()


def _gpio_bouncing_to_table(tmp):
    """As :func:`_gpio_to_table`, but the contact chatters for about 1 ms before it stays closed, as a
    microswitch does; the clock starts at the first contact, so the chatter counts."""
    from gpiozero.pins.mock import MockFactory

    from companion.inputs.gpio_board import GPIOBoard

    service, table = _obert_service(tmp)
    factory = MockFactory()
    board = GPIOBoard({"7": 5, "water": 6}, {}, pin_factory=factory)
    pin = factory.pin(5)

    def press():
        end = time.perf_counter() + 0.001
        while time.perf_counter() < end:  # busy-waited: a sleep cannot be this short
            pin.drive_low()
            pin.drive_high()
        pin.drive_low()

    try:
        return _to_table(board, press, pin.drive_high, service, table, 0.03)
    finally:
        board.close()
        service.close()


def _serial_to_table(tmp):
    from companion.inputs.serial_board import SerialBoard
    from companion.inputs.simulated_board import VirtualSerialBoard

    service, table = _obert_service(tmp)
    twin = VirtualSerialBoard(layout="matrix")
    twin.plug()
    board = SerialBoard(twin.port)

    def press():
        with twin._lock:  # the frame is queued here and sent by the twin's 1 ms loop
            twin.board.press("11", int(time.monotonic() * 1000))

    try:
        return _to_table(board, press, lambda: None, service, table, 0.0)
    finally:
        board.close()
        twin.close()
        service.close()


def run():
    import tempfile

    base, ours = _gpio()
    yield _fmt("gpio baseline (gpiozero when_pressed, no debounce)", base)
    yield _fmt("gpio board press -> callback (3 ms debounce included)", ours, 5, base)
    base, ours = _serial()
    yield _fmt("serial baseline (one line through a pty, pyserial readline)", base)
    yield _fmt("serial board event -> callback (virtual board's 1 ms loop included)", ours, 10, base)
    with tempfile.TemporaryDirectory() as tmp:
        base = _submit_alone(tmp)
    yield _fmt("table baseline (Obert roll submitted directly: rules, SQLite synchronous=FULL, publish)", base)
    with tempfile.TemporaryDirectory() as tmp:
        yield _fmt("gpio d12 button 7 -> Obert roll appended (debounce, rules, SQLite)", _gpio_to_table(tmp), 5, base)
    with tempfile.TemporaryDirectory() as tmp:
        yield _fmt("gpio d12 button 7 chattering 1 ms first -> Obert roll appended (from the first contact)",
                   _gpio_bouncing_to_table(tmp), 5, base)
    with tempfile.TemporaryDirectory() as tmp:
        yield _fmt("serial key matrix 11 -> Obert roll appended (pty, rules, SQLite)", _serial_to_table(tmp), 10, base)
