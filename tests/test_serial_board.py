"""The Pico serial board, host side: the protocol from tables, then SerialBoard against the
firmware's own logic on the far end of a real pseudo-terminal, with faults injected."""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest
from serial.tools import list_ports, list_ports_common

from companion.inputs import board_protocol as bp
from companion.inputs.serial_board import PICO_VID, BoardLost, SerialBoard, probe
from companion.inputs.simulated_board import SimulatedSerialBoard, VirtualSerialBoard, load_firmware
from tests.device_helpers import wait_for

# -- the protocol, from tables (OctoPrint's helper-test habit) -----------------------------------


def line(seq, body):
    return bp.frame(seq, body).rstrip(b"\n")


@pytest.mark.parametrize("raw, expected", [
    (line(0, "HELLO nessie-board 1 0.1.0 beef 1"), bp.Message(0, "HELLO", ("nessie-board", "1", "0.1.0", "beef", "1"))),
    (line(12, "BTN 4"), bp.Message(12, "BTN", ("4",))),
    (line(9999, "BTN 12"), bp.Message(9999, "BTN", ("12",))),
    (line(3, "UNDO"), bp.Message(3, "UNDO")),
    (line(4, "NEXT"), bp.Message(4, "NEXT")),
    (line(5, "WATER"), bp.Message(5, "WATER")),
    (line(0, "PONG american"), bp.Message(0, "PONG", ("american",))),
    (line(0, "PONG off"), bp.Message(0, "PONG", ("off",))),
    (line(0, "ACK 17"), bp.Message(0, "ACK", ("17",))),
    (line(0, "ERR wrong-checksum"), bp.Message(0, "ERR", ("wrong-checksum",))),
    (line(12, "BTN 4") + b"\r\n", bp.Message(12, "BTN", ("4",))),  # CRLF line ends too
])
def test_parse_line_reads_every_message(raw, expected):
    assert bp.parse_line(raw) == expected


@pytest.mark.parametrize("raw, reason", [
    (b"", "no checksum"),
    (b"12 BTN 4", "no checksum"),
    (b"12 BTN 4*", "no checksum"),
    (b"12 BTN 4*9", "no checksum"),
    (b"12 BTN 4*9A7", "no checksum"),
    (b"12 BTN 4*ZZ", "bad checksum digits"),
    (b"12 BTN 4*00", "wrong checksum"),
    (b"12 BTN 5*9A", "wrong checksum"),  # one digit changed in flight
    (b"21 BTN 4*9A", "wrong checksum"),  # digits swapped in the number
    (b"12 BTN \xff4*9A", "not printable ASCII"),
    (b"12 BTN\t4*9A", "not printable ASCII"),
    (b"1" * 81, "too long"),
    (line(0, "BOOM"), "unknown command 'BOOM'"),
    (line(0, "btn 4"), "unknown command 'btn'"),
    (line(12, "BTN 1234"), "malformed BTN"),
    (line(12, "BTN four"), "malformed BTN"),
    (line(12, "BTN 4 5"), "malformed BTN"),
    (line(12, "BTN"), "malformed BTN"),
    (line(3, "UNDO now"), "malformed UNDO"),
    (line(0, "PONG scottish"), "malformed PONG"),
    (line(0, "ACK x"), "malformed ACK"),
    (line(0, "HELLO nessie-board 1 0.1.0 beef"), "malformed HELLO"),
    (line(0, "HELLO other-board 1 0.1.0 beef 1"), "malformed HELLO"),
    (line(0, "HELLO nessie-board 1 0.1.0 beef 0"), "malformed HELLO"),
    (line(0, "BTN 4"), "BTN with sequence number 0"),  # an event must be numbered
    (line(7, "PONG off"), "PONG with sequence number 7"),  # a control frame must not
    (b"x BTN 4*" + b"%02X" % bp.crc8(b"x BTN 4"), "bad sequence number"),
    (b"10000 BTN 4*" + b"%02X" % bp.crc8(b"10000 BTN 4"), "bad sequence number"),
    (b"12*" + b"%02X" % bp.crc8(b"12"), "bad sequence number"),
])
def test_parse_line_rejects_garbled_lines(raw, reason):
    with pytest.raises(bp.GarbledLine, match=reason):
        bp.parse_line(raw)
    with pytest.raises(ValueError):  # GarbledLine is a ValueError too
        bp.parse_line(raw)


@pytest.mark.parametrize("message, kind, value", [
    (bp.Message(1, "BTN", ("1",)), "throw", 1),
    (bp.Message(1, "BTN", ("6",)), "throw", 6),
    (bp.Message(1, "UNDO"), "undo", None),
    (bp.Message(1, "NEXT"), "next", None),
    (bp.Message(1, "BTN", ("7",)), "throw", 7),  # protocol 2: the d12's faces and the water symbol
    (bp.Message(1, "BTN", ("12",)), "throw", 12),
    (bp.Message(1, "WATER"), "throw", "water"),
])
def test_events_become_input_events(message, kind, value):
    event = bp.to_input_event(message, "pico")
    assert (event.kind, event.value, event.source) == (kind, value, "pico")


@pytest.mark.parametrize("message", [bp.Message(1, "BTN", ("0",)), bp.Message(1, "BTN", ("13",)),
                                     bp.Message(1, "BTN", ("999",))])
def test_buttons_no_board_has_are_impossible_values(message):
    with pytest.raises(bp.ImpossibleValue, match="impossible value"):
        bp.to_input_event(message, "pico")


@pytest.mark.parametrize("a, b, before", [
    (1, 2, True), (2, 1, False), (5, 5, False), (9999, 1, True), (1, 9999, False), (9990, 3, True),
    (1, 4000, True), (1, 6000, False),
])
def test_sequence_numbers_wrap(a, b, before):
    assert bp.seq_before(a, b) is before


def test_formatting_host_lines():
    assert bp.format_hello() == line(0, "HELLO nessie-host 2") + b"\n"
    assert bp.format_ping() == line(0, "PING") + b"\n"
    assert bp.format_ack(42) == line(0, "ACK 42") + b"\n"
    assert bp.format_led(3, None) == line(3, "LED off") + b"\n"
    assert bp.next_seq(9999) == 1 and bp.next_seq(1) == 2
    assert bp.crc8(b"123456789") == 0xF4  # the CRC-8/SMBus check value
    with pytest.raises(ValueError, match="no LED for 'scottish'"):
        bp.format_led(1, "scottish")
    with pytest.raises(ValueError, match="out of range"):
        bp.frame(10000, "PING")


def test_host_and_firmware_agree_on_frames():
    fw = load_firmware()
    for seq, body in [(0, "HELLO nessie-host 1"), (12, "BTN 4"), (9999, "LED american"), (0, "ERR too-long")]:
        assert fw.encode(seq, body).encode() == bp.frame(seq, body)
        assert fw.decode(bp.frame(seq, body).rstrip(b"\n")) == (seq, body.split())
    assert fw.crc8("123456789") == bp.crc8(b"123456789")
    assert (fw.PROTOCOL, fw.SEQ_MAX, fw.MAX_LINE, fw.EXPEDITIONS) == (bp.PROTOCOL, bp.SEQ_MAX, bp.MAX_LINE,
                                                                      bp.EXPEDITIONS)


# -- SerialBoard against the virtual board on a pty ---------------------------------------------

FAST = dict(heartbeat_s=0.1, silence_s=0.5, hello_timeout_s=0.5, backoff_s=(0.02, 0.1))


class Recorder:
    def __init__(self):
        self.events = []
        self.lock = threading.Lock()

    def __call__(self, event):
        with self.lock:
            self.events.append(event)

    def kinds(self):
        return [e.kind if e.value is None else f"{e.kind} {e.value}" for e in self.events]


@pytest.fixture
def twin():
    t = VirtualSerialBoard()
    t.plug()
    yield t
    t.close()


@pytest.fixture
def host(twin):
    got = Recorder()
    board = SerialBoard(twin.port, **FAST)
    board.start(got)
    board.got = got
    assert board.connected_event.wait(3), board.health.as_dict()
    yield board
    board.close()


def test_handshake_reports_the_board(host, twin):
    assert host.health.connected
    details = host.health.details
    assert details["state"] == "connected" and details["port"] == twin.port
    assert details["board"] == {"firmware": "0.2.0", "boot_id": twin.board.boot_id, "protocol": 2}


def test_every_button_arrives_once_in_order(host, twin):
    for name in ("1", "2", "3", "4", "5", "6", "undo", "next"):
        twin.press(name, hold_s=0.01)
        time.sleep(0.04)  # each released before the next
    assert wait_for(lambda: len(host.got.events) == 8), host.got.kinds()
    time.sleep(0.35)  # past the board's resend time: nothing more may come
    assert host.got.kinds() == ["throw 1", "throw 2", "throw 3", "throw 4", "throw 5", "throw 6", "undo", "next"]
    assert {e.source for e in host.got.events} == {"serial board"}
    assert twin.board.queue == []  # all acknowledged


def test_leds_follow_the_turn(host, twin):
    for turn in ("japanese", "american", None, "independent"):
        host.show_turn(turn)
        assert wait_for(lambda: twin.led == turn), (turn, twin.led)
    host.show_turn("scottish")  # no such LED: all out, as on the GPIO board
    assert wait_for(lambda: twin.led is None)


def test_garbage_bytes_are_logged_and_counted_and_change_nothing(host, twin, caplog):
    twin.press("3")
    assert wait_for(lambda: host.got.kinds() == ["throw 3"])
    with caplog.at_level(logging.ERROR, logger="companion.inputs.serial_board"):
        twin.inject(b"\x00\xff\xfe garbage \x07\n")
        twin.inject(b"12 BTN 5*00\n")  # wrong checksum
        twin.inject(bp.frame(0, "FLY away"))  # well framed, unknown command
        twin.inject(b"Z" * 500 + b"\n")  # a long run of noise
        assert wait_for(lambda: host.counters["garbled"] == 4), host.counters
        twin.inject(b"Y" * 2000)  # noise with no end of line yet: reported once, however long
        assert wait_for(lambda: host.counters["garbled"] == 5), host.counters
        twin.inject(b"YYY\n")
        time.sleep(0.05)
    assert host.counters["garbled"] == 5
    assert "wrong checksum" in caplog.text and "unknown command 'FLY'" in caplog.text
    assert host.health.last_error.startswith("garbled line: line too long")
    assert host.health.connected
    twin.press("5")
    assert wait_for(lambda: host.got.kinds() == ["throw 3", "throw 5"])  # state kept: numbering goes on


def test_the_board_counts_what_the_host_garbles(host, twin):
    # The host never sends garbage itself; hand it to the board as if the line had garbled it.
    twin.receive(b"LED american\n")
    twin.receive(bp.frame(0, "DANCE"))
    assert twin.board.counters["garbled"] == 1 and twin.board.counters["unknown"] == 1
    assert wait_for(lambda: host.counters["board_errors"] == 2)


def test_d12_faces_and_water_arrive_over_the_pty(twin):
    twin.close()
    twelve = VirtualSerialBoard(layout="matrix")
    twelve.plug()
    got = Recorder()
    board = SerialBoard(twelve.port, **FAST)
    board.start(got)
    try:
        assert board.connected_event.wait(3)
        for name in ("9", "water", "12", "undo"):
            twelve.press(name, hold_s=0.01)
            time.sleep(0.04)
        assert wait_for(lambda: got.kinds() == ["throw 9", "throw water", "throw 12", "undo"]), got.kinds()
        assert board.counters["impossible"] == board.counters["garbled"] == 0
    finally:
        board.close()
        twelve.close()


def test_impossible_values_are_counted_never_thrown(host, twin):
    with twin._lock:  # a well-framed event naming a button no board has, in the board's numbering
        seq, twin.board.seq = twin.board.seq, bp.next_seq(twin.board.seq)
    twin.inject(bp.frame(seq, "BTN 13"))
    assert wait_for(lambda: host.counters["impossible"] == 1)
    assert host.health.last_error == "impossible value: BTN 13"
    twin.inject(b"0 BTN 4*00\n")  # and plain line noise
    assert wait_for(lambda: host.counters["garbled"] == 1)
    twin.press("4", hold_s=0.01)
    assert wait_for(lambda: host.got.kinds() == ["throw 4"]), host.got.kinds()
    assert host.counters["impossible"] == 1 and host.counters["garbled"] == 1
    assert wait_for(lambda: twin.board.queue == [])  # the real press was acknowledged


def test_a_dropped_frame_is_resent_and_taken_once(host, twin):
    twin.drop_events = 1
    twin.press("2")
    time.sleep(0.1)
    assert host.got.events == []  # lost on the wire
    assert wait_for(lambda: host.got.kinds() == ["throw 2"], timeout=2)  # the board resent it
    assert twin.board.counters["resent"] >= 1
    time.sleep(0.4)
    assert host.got.kinds() == ["throw 2"]


def test_a_dropped_frame_before_another_keeps_the_order(host, twin):
    twin.drop_events = 1
    twin.press("1", hold_s=0.01)
    time.sleep(0.05)
    twin.press("6", hold_s=0.01)  # arrives first, out of order: held back until 1 is resent
    assert wait_for(lambda: len(host.got.events) == 2, timeout=2)
    time.sleep(0.4)
    assert host.got.kinds() == ["throw 1", "throw 6"]
    assert host.counters["out_of_order"] >= 1


def test_duplicated_frames_are_taken_once(host, twin):
    twin.duplicate_events = 2
    for name in ("4", "undo"):
        twin.press(name, hold_s=0.01)
        time.sleep(0.05)
    time.sleep(0.4)
    assert host.got.kinds() == ["throw 4", "undo"]
    assert host.counters["duplicates"] >= 2


def test_lost_acknowledgements_do_not_double_a_press(host, twin):
    twin.deaf = True  # the board hears nothing: it resends until heard
    twin.press("5")
    time.sleep(0.8)
    assert host.got.kinds() == ["throw 5"]
    assert host.counters["duplicates"] >= 1
    twin.deaf = False
    assert wait_for(lambda: twin.board.queue == [])


def test_unplug_mid_game_shows_disconnected_then_reconnects(host, twin):
    twin.press("1")
    assert wait_for(lambda: host.got.kinds() == ["throw 1"])
    twin.unplug()
    assert wait_for(lambda: not host.health.connected)
    assert host.health.details["state"] == "disconnected"
    assert twin.port in host.health.last_error
    time.sleep(0.3)  # several failed attempts with backoff
    assert not host.health.connected and host.counters["retries"] >= 2
    twin.plug()
    assert host.connected_event.wait(3)
    assert host.counters["sessions"] == 2
    twin.press("2")
    assert wait_for(lambda: host.got.kinds() == ["throw 1", "throw 2"])


def test_a_press_caught_by_the_unplug_arrives_once_after(host, twin):
    twin.drop_events = 100  # the frame is lost as the cable goes
    twin.press("3")
    assert wait_for(lambda: twin.board.queue)
    twin.unplug()  # board still powered (a flaky cable), its queue kept
    twin.drop_events = 0
    assert wait_for(lambda: not host.health.connected)
    assert host.got.events == []
    twin.plug()
    assert wait_for(lambda: host.got.kinds() == ["throw 3"])
    time.sleep(0.4)
    assert host.got.kinds() == ["throw 3"]


def test_an_unacknowledged_press_is_not_doubled_by_a_reconnect(host, twin):
    twin.deaf = True  # the host takes the press, but its acknowledgement is lost
    twin.press("6")
    assert wait_for(lambda: host.got.kinds() == ["throw 6"])
    twin.unplug()
    twin.deaf = False
    twin.plug()  # same boot: the board resends number 1, which the host has had
    assert host.connected_event.wait(3)
    assert wait_for(lambda: twin.board.queue == [])
    time.sleep(0.2)
    assert host.got.kinds() == ["throw 6"]


def test_a_rebooted_board_starts_afresh_and_gets_its_led_back(host, twin):
    host.show_turn("british")
    assert wait_for(lambda: twin.led == "british")
    twin.press("1")
    assert wait_for(lambda: host.got.kinds() == ["throw 1"])
    old_boot = twin.board.boot_id
    twin.unplug()
    assert wait_for(lambda: not host.health.connected)
    twin.plug(power_cycle=True)  # a new boot id, numbering from 1 again, LEDs dark
    assert twin.board.boot_id != old_boot  # ("1" is still held down: the new boot must not count it)
    assert host.connected_event.wait(3)
    assert wait_for(lambda: twin.led == "british")
    twin.press("2")
    assert wait_for(lambda: host.got.kinds() == ["throw 1", "throw 2"])


def test_a_silent_board_is_dropped_and_picked_up_again(host, twin):
    twin.silent = True
    assert wait_for(lambda: not host.health.connected, timeout=3)
    assert "silent" in host.health.last_error
    twin.silent = False
    assert host.connected_event.wait(3)
    twin.press("4")
    assert wait_for(lambda: host.got.kinds() == ["throw 4"])


def test_a_port_with_no_board_behind_it_fails_the_handshake(tmp_path):
    master, slave = os.openpty()  # a serial port where nothing answers
    path = tmp_path / "ttyMUTE"
    path.symlink_to(os.ttyname(slave))
    board = SerialBoard(str(path), **FAST)
    board.start(Recorder())
    try:
        assert wait_for(lambda: board.health.last_error and "no hello" in board.health.last_error)
        assert not board.health.connected
        with pytest.raises(BoardLost, match="no hello"):
            probe(str(path), timeout_s=0.3)
    finally:
        board.close()
        os.close(master)
        os.close(slave)


def test_probe_reads_the_hello(twin):
    hello = probe(twin.port, timeout_s=1)
    assert hello == {"protocol": 2, "firmware": "0.2.0", "boot_id": twin.board.boot_id}
    with pytest.raises(BoardLost, match="could not open port"):
        probe(twin.port + "-missing", timeout_s=0.3)


def pico_port(device, vid=PICO_VID):
    info = list_ports_common.ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.description = vid, 0x0005, "Board in FS mode"
    return info


def test_auto_finds_the_board_by_usb_vendor_id(twin, monkeypatch):
    other = pico_port("/dev/ttyUSB9", vid=0x0403)  # an FTDI cable: never tried
    monkeypatch.setattr(list_ports, "comports", lambda: [other, pico_port(twin.port)])
    board = SerialBoard("auto", **FAST)
    got = Recorder()
    board.start(got)
    try:
        assert board.connected_event.wait(3)
        assert board.health.details["port"] == twin.port
        twin.press("6")
        assert wait_for(lambda: got.kinds() == ["throw 6"])
    finally:
        board.close()


def test_auto_goes_round_several_picos_until_one_answers(monkeypatch, tmp_path):
    master, slave = os.openpty()  # the first Pico has other firmware: it never answers the hello
    mute = tmp_path / "ttyACM0"
    mute.symlink_to(os.ttyname(slave))
    twin = VirtualSerialBoard(str(tmp_path / "ttyACM1"))
    twin.plug()
    monkeypatch.setattr(list_ports, "comports", lambda: [pico_port(twin.port), pico_port(str(mute))])
    board = SerialBoard("auto", **FAST)
    board.start(Recorder())
    try:
        assert board.connected_event.wait(5)
        assert board.health.details["port"] == twin.port
        assert "no hello" in board.health.last_error and str(mute) in board.health.last_error
    finally:
        board.close()
        twin.close()
        os.close(master)
        os.close(slave)


def test_auto_with_no_board_keeps_searching(monkeypatch):
    monkeypatch.setattr(list_ports, "comports", lambda: [pico_port("/dev/ttyUSB0", vid=0x0403)])
    board = SerialBoard("auto", **FAST)
    board.start(Recorder())
    try:
        assert wait_for(lambda: board.health.details["state"] == "searching")
        assert "no Pico board" in board.health.last_error
    finally:
        t0 = time.monotonic()
        board.close()
        assert time.monotonic() - t0 < 1  # closing does not wait out the backoff


def test_the_simulated_board_twin_drives_the_table(make_service):
    service = make_service()
    source = SimulatedSerialBoard(**FAST)
    source.start(service.handle_input)
    try:
        assert source.connected_event.wait(3)
        before = service.table.view()
        source.twin.press("5")
        assert wait_for(lambda: service.table.view()["actions"] == before["actions"] + 1)
        assert service.table.view()["last_throw"]["value"] == 5
        source.show_turn(service.table.view()["turn"])
        assert wait_for(lambda: source.twin.led == service.table.view()["turn"])
    finally:
        source.close()
    assert not os.path.lexists(source.twin.port)


def test_from_config():
    assert SerialBoard.from_config({}) is None and SerialBoard.from_config({"serial_board": ""}) is None
    board = SerialBoard.from_config({"serial_board": "/dev/nessie-board"})
    assert type(board) is SerialBoard and board.port == "/dev/nessie-board"
    twin_source = SerialBoard.from_config({"serial_board": "simulated"})
    try:
        assert isinstance(twin_source, SimulatedSerialBoard) and os.path.lexists(twin_source.port)
    finally:
        twin_source.close()
