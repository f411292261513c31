"""systemd's watchdog: tell systemd we are up (READY=1), then that we are alive (WATCHDOG=1).

A unit with ``Type=notify`` and ``WatchdogSec=`` (hardware/systemd/nessie-companion.service) sets
``NOTIFY_SOCKET`` and ``WATCHDOG_USEC``; this module writes the sd_notify datagrams itself (no
dependency). A ping is sent only while ``alive()`` answers True in time -- for the companion, while
the table answers a view -- so a wedged table stops the pings and systemd restarts the service.
Without ``NOTIFY_SOCKET`` (a terminal, the tests' default) everything here is a no-op.

In ``run_server`` (companion/service.py)::

    from companion.watchdog import Watchdog
    server = waitress.create_server(app, host=host, port=port, threads=threads, ...)
    watchdog = Watchdog.for_service(service).start()    # READY=1 once listening, then WATCHDOG=1
    serve_until_stopped(server, close)    # close(): watchdog.stop() (STOPPING=1), service.close()
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Callable, Mapping

log = logging.getLogger(__name__)


def notify(message: str, env: Mapping[str, str] | None = None) -> bool:
    """Send one sd_notify datagram ("READY=1", "WATCHDOG=1", "STOPPING=1", "STATUS=..."). True if sent."""
    env = os.environ if env is None else env
    address = env.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
        return True
    except OSError as exc:
        log.warning("watchdog: cannot notify systemd at %s: %s", env.get("NOTIFY_SOCKET"), exc)
        return False


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """Half of systemd's WatchdogSec, in seconds, if the watchdog is on for this process."""
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC")
    pid = env.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 2e6 if value > 0 else None


class Watchdog:
    """READY=1 at :meth:`start`, then WATCHDOG=1 every ``interval_s`` while ``alive()`` is True.

    ``alive`` runs on a helper thread and must answer within ``answer_s``; a check that has not
    answered counts as dead (and no second check is started beside it).
    """

    def __init__(self, alive: Callable[[], bool], interval_s: float | None = None, answer_s: float = 2.0,
                 env: Mapping[str, str] | None = None):
        self.env = dict(os.environ if env is None else env)
        self.alive, self.answer_s = alive, answer_s
        self.interval_s = interval_s if interval_s is not None else watchdog_interval(self.env)
        self.pings = 0
        self.missed = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: threading.Thread | None = None

    @classmethod
    def for_service(cls, service, **kwargs) -> "Watchdog":
        """Alive while the service's table answers a view."""
        return cls(lambda: isinstance(service.table.view(), dict), **kwargs)

    @property
    def active(self) -> bool:
        return bool(self.env.get("NOTIFY_SOCKET"))

    def check(self) -> bool:
        """Ask ``alive()`` on a helper thread; False if it raises, says False or does not answer in time."""
        if self._pending is not None and self._pending.is_alive():
            return False  # the last check is still stuck
        result: list[bool] = []

        def ask():
            try:
                result.append(bool(self.alive()))
            except Exception as exc:
                log.warning("watchdog: the table does not answer: %s", exc)
                result.append(False)

        self._pending = threading.Thread(target=ask, name="watchdog check", daemon=True)
        self._pending.start()
        self._pending.join(self.answer_s)
        return bool(result and result[0])

    def ping(self) -> bool:
        """One round: WATCHDOG=1 if alive. True when sent."""
        if self.check():
            if notify("WATCHDOG=1", self.env):
                self.pings += 1
                return True
            return False
        self.missed += 1
        log.warning("watchdog: the table did not answer; no ping (%d missed)", self.missed)
        return False

    def start(self) -> "Watchdog":
        if not self.active:
            return self
        if self.check():
            notify("READY=1", self.env)
        if self.interval_s:
            self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.ping()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.active:
            notify("STOPPING=1", self.env)
