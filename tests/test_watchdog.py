"""sd_notify to systemd over a real Unix datagram socket: READY=1, WATCHDOG=1 only while the table
answers, STOPPING=1; a no-op without NOTIFY_SOCKET."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from companion.watchdog import Watchdog, notify, watchdog_interval


@pytest.fixture
def notify_socket(tmp_path):
    """A datagram socket where systemd's would be; yields (address, receive())."""
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(3)

    def receive(timeout=3.0) -> str:
        sock.settimeout(timeout)
        return sock.recv(4096).decode()

    yield path, receive
    sock.close()


def test_notify_sends_one_datagram(notify_socket):
    path, receive = notify_socket
    assert notify("READY=1", {"NOTIFY_SOCKET": path}) is True
    assert receive() == "READY=1"
    assert notify("READY=1", {}) is False  # not under systemd: nothing to do
    assert notify("READY=1", {"NOTIFY_SOCKET": path + ".missing"}) is False  # never raises


def test_abstract_socket_address():
    name = f"nessie-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(3)
    try:
        assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(100) == b"WATCHDOG=1"
    finally:
        sock.close()


@pytest.mark.parametrize("env, expected", [
    ({"WATCHDOG_USEC": "10000000"}, 5.0), ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}, 5.0),
    ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}, None), ({}, None), ({"WATCHDOG_USEC": "x"}, None),
    ({"WATCHDOG_USEC": "0"}, None),
])
def test_the_ping_interval_is_half_of_watchdog_sec(env, expected):
    assert watchdog_interval(env) == expected


def test_ready_then_pings_while_the_service_table_answers(notify_socket, service):
    path, receive = notify_socket
    dog = Watchdog.for_service(service, env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})
    assert dog.interval_s == 0.05
    dog.start()
    try:
        assert receive() == "READY=1"
        assert [receive(), receive(), receive()] == ["WATCHDOG=1"] * 3
    finally:
        dog.stop()
    messages = []
    try:
        while True:
            messages.append(receive(0.5))
    except socket.timeout:
        pass
    assert messages[-1] == "STOPPING=1" and set(messages[:-1]) <= {"WATCHDOG=1"}
    assert dog.pings >= 3 and dog.missed == 0


def test_no_ping_while_the_table_is_stuck_then_pings_again(notify_socket, service):
    path, receive = notify_socket
    gate = threading.Event()
    gate.set()
    real_view = service.table.view

    def view():
        gate.wait()  # a wedged table: the view never comes while the gate is shut
        return real_view()

    service.table.view = view
    dog = Watchdog.for_service(service, interval_s=3600, answer_s=0.1, env={"NOTIFY_SOCKET": path})
    dog.start()
    assert receive() == "READY=1"
    assert dog.ping() and receive() == "WATCHDOG=1"
    gate.clear()
    started = time.monotonic()
    assert dog.ping() is False  # no answer within answer_s: no ping, systemd will restart us
    assert time.monotonic() - started < 1.0
    assert dog.ping() is False  # the stuck check is not doubled
    with pytest.raises(socket.timeout):
        receive(0.2)
    gate.set()  # the table answers again: the pings come back
    deadline = time.monotonic() + 3
    while not dog.ping() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert receive() == "WATCHDOG=1"
    assert dog.missed >= 2
    dog.stop()
    assert receive() == "STOPPING=1"


def test_a_table_that_raises_is_not_alive(notify_socket):
    path, receive = notify_socket

    def broken():
        raise RuntimeError("database is locked")

    dog = Watchdog(broken, interval_s=3600, env={"NOTIFY_SOCKET": path})
    dog.start()  # no READY=1 for a table that does not answer: systemd's start timeout applies
    assert dog.ping() is False
    with pytest.raises(socket.timeout):
        receive(0.2)
    dog.stop()


def test_without_notify_socket_everything_is_a_no_op(service):
    dog = Watchdog.for_service(service, env={})
    assert dog.active is False and dog.start() is dog
    assert dog.ping() is False  # alive, but nowhere to send
    dog.stop()


# -- the systemd units that rely on it -------------------------------------------------------------

UNITS = os.path.join(os.path.dirname(__file__), "..", "hardware", "systemd")


def unit(name: str) -> dict[str, list[str]]:
    """key -> values of a unit file, continuation lines joined."""
    text = open(os.path.join(UNITS, name), encoding="utf-8").read().replace("\\\n", " ")
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(" ".join(value.split()))
    return out


@pytest.mark.parametrize("name, command", [
    ("nessie-companion.service", "nessie-companion serve --config /etc/nessie-companion/companion.toml"),
    ("nessie-kiosk.service", "nessie-companion kiosk --config /etc/nessie-companion/kiosk.toml"),
])
def test_service_units_use_the_watchdog_and_restart_on_failure(name, command):
    u = unit(name)
    assert u["Type"] == ["notify"] and u["NotifyAccess"] == ["main"]
    assert u["WatchdogSec"] == ["30"] and u["Restart"] == ["on-failure"]
    assert u["ExecStart"][0].endswith(command)
    assert u["ReadWritePaths"] == ["/data/nessie-companion"] and u["ProtectSystem"] == ["strict"]


def test_the_browser_unit_pins_chromium_s_flags_and_the_kiosk_url():
    u = unit("nessie-kiosk-browser.service")
    argv = u["ExecStart"][0].split()
    for flag in ("--kiosk", "--noerrdialogs", "--disable-infobars", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--incognito"):
        assert flag in argv
    assert argv[-1] == "http://127.0.0.1:5080/" and u["Restart"] == ["always"]
    assert "-s" not in argv[: argv.index("--")]  # cage without VT switching
    import json

    policy = json.load(open(os.path.join(UNITS, "nessie-kiosk-policy.json"), encoding="utf-8"))
    assert policy["URLBlocklist"] == ["*"] and policy["URLAllowlist"] == ["http://127.0.0.1:5080/"]
    assert policy["DeveloperToolsAvailability"] == 2
