"""``nessie-companion doctor``: device checks, exit status, and describe_sources for the dashboard."""

from __future__ import annotations

import json
import os
import sys

import pytest
from serial.tools import list_ports, list_ports_common

from companion.cli import main
from companion.commands import devices
from companion.commands.devices import Check, check_cameras, check_gpio, check_serial, describe_sources, exit_status
from companion.inputs import VirtualDie
from companion.inputs.serial_board import PICO_VID, SerialBoard
from companion.inputs.simulated_board import VirtualSerialBoard


def port_info(device, vid):
    info = list_ports_common.ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number, info.description = vid, 0x0005, "E66118604B1F2B2A", "Board in FS mode"
    return info


@pytest.fixture
def no_lgpio(monkeypatch):
    monkeypatch.setitem(sys.modules, "lgpio", None)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)


# -- GPIO --------------------------------------------------------------------------------------


def test_gpio_absent_without_a_gpio_chip(no_lgpio, tmp_path):
    [check] = check_gpio("lgpio", str(tmp_path / "gpiochip*"))
    assert (check.device, check.status) == ("gpio", "absent")
    assert "not a Raspberry Pi" in check.reason and "lgpio is not installed" in check.reason


def test_gpio_error_when_the_chip_is_there_but_lgpio_is_not(no_lgpio, tmp_path):
    (tmp_path / "gpiochip0").touch()
    [check] = check_gpio("lgpio", str(tmp_path / "gpiochip*"))
    assert check.status == "error"
    assert "python3-lgpio" in check.reason
    assert check.details["chips"] == [str(tmp_path / "gpiochip0")]


def test_gpio_ok_with_a_working_factory(tmp_path):
    [check] = check_gpio("mock", str(tmp_path / "none*"))
    assert check.status == "ok" and check.details["pin_factory"] == "MockFactory"


def test_gpio_unknown_factory_is_reported_not_raised(tmp_path):
    [check] = check_gpio("wiringpi", str(tmp_path / "none*"))
    assert check.status == "absent" and "unknown pin factory" in check.reason


# -- serial --------------------------------------------------------------------------------------


def test_serial_absent_when_no_pico_port(monkeypatch):
    monkeypatch.setattr(list_ports, "comports", lambda: [port_info("/dev/ttyUSB0", 0x0403)])
    [check] = check_serial()
    assert check.status == "absent" and "2E8A" in check.reason


def test_serial_lists_pico_ports_and_probes_them(monkeypatch, tmp_path):
    twin = VirtualSerialBoard()
    twin.plug()
    master, slave = os.openpty()  # a second "Pico" that never answers (e.g. other firmware)
    mute = tmp_path / "ttyACM1"
    mute.symlink_to(os.ttyname(slave))
    ports = [port_info(str(mute), PICO_VID), port_info("/dev/ttyUSB0", 0x0403), port_info(twin.port, PICO_VID)]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    try:
        unprobed = check_serial(probe=False)
        assert [(c.name, c.status) for c in unprobed] == sorted([(str(mute), "ok"), (twin.port, "ok")])
        probed = {c.name: c for c in check_serial(probe=True, timeout_s=0.3)}
        assert probed[twin.port].status == "ok"
        assert probed[twin.port].details["firmware"] == "0.2.0"
        assert probed[twin.port].details["vid_pid"] == "2E8A:0005"
        assert probed[str(mute)].status == "error" and "no hello" in probed[str(mute)].reason
        assert exit_status(list(probed.values())) == devices.EXIT_ERROR
    finally:
        twin.close()
        os.close(master)
        os.close(slave)


# -- cameras -----------------------------------------------------------------------------------


def test_cameras_absent(tmp_path):
    checks = check_cameras(str(tmp_path / "video*"))
    assert checks[0].status == "absent" and checks[0].reason == "no video device"


def test_cameras_ok_and_broken(tmp_path):
    (tmp_path / "video0").touch()
    (tmp_path / "video1").symlink_to(tmp_path / "gone")  # a node that cannot be opened
    checks = {c.name: c for c in check_cameras(str(tmp_path / "video*"))}
    assert checks[str(tmp_path / "video0")].status == "ok"
    assert checks[str(tmp_path / "video1")].status == "error"
    assert "cannot open" in checks[str(tmp_path / "video1")].reason
    assert "picamera2" in checks  # always says whether the Pi camera library is there


# -- exit status and the command ---------------------------------------------------------------


@pytest.mark.parametrize("statuses, code", [
    (["ok", "absent"], 0), (["ok", "ok"], 0), (["absent", "absent"], 3), ([], 3),
    (["ok", "error"], 1), (["absent", "error"], 1),
])
def test_exit_status(statuses, code):
    assert exit_status([Check("x", str(i), s, "") for i, s in enumerate(statuses)]) == code


def test_doctor_json_on_this_machine(capsys):
    code = main(["doctor", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == code
    assert {c["device"] for c in doc["checks"]} == {"gpio", "serial", "camera"}
    assert code == exit_status([Check(**c) for c in doc["checks"]])
    assert all(c["reason"] for c in doc["checks"])


def test_doctor_text_says_what_is_wrong(monkeypatch, capsys, no_lgpio):
    monkeypatch.setattr(devices, "check_cameras", lambda: [Check("camera", "/dev/video0", "error", "cannot open: busy")])
    monkeypatch.setattr(list_ports, "comports", lambda: [])
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 1
    assert "ERROR  camera  /dev/video0: cannot open: busy" in out
    assert "absent serial" in out and "Some devices need attention" in out


def test_doctor_with_the_mock_factory_is_ready(monkeypatch, capsys):
    monkeypatch.setattr(devices, "check_cameras", lambda: [])
    monkeypatch.setattr(list_ports, "comports", lambda: [])
    assert main(["doctor", "--pin-factory", "mock"]) == 0
    assert "Input devices ready." in capsys.readouterr().out


# -- describe_sources ----------------------------------------------------------------------------


def test_describe_sources():
    die = VirtualDie(seed=1)
    die.start(lambda e: None)
    die.throw()
    bad = VirtualDie(seed=2, name="flaky die")
    bad.start(lambda e: None)
    bad.fail("garbled line: wrong checksum")
    board = SerialBoard("/dev/nonexistent")  # never started: disconnected
    rows = {r["name"]: r for r in describe_sources([die, bad, board])}
    assert rows["virtual die"]["status"] == "ok" and rows["virtual die"]["last_event"].startswith("throw ")
    assert rows["flaky die"]["status"] == "warning"
    assert rows["flaky die"]["summary"] == "flaky die: warning; last error: garbled line: wrong checksum"
    assert rows["serial board"]["status"] == "disconnected" and rows["serial board"]["kind"] == "serial-board"
    json.dumps(list(rows.values()))  # the dashboard sends it as JSON
