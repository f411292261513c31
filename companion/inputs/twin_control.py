"""Pressing the simulated boards' buttons from outside the running companion (the demo's hands).

The service opens a UNIX socket beside its database (``demo.sqlite`` -> ``demo.sqlite.twins``)
when it runs a board twin; ``nessie-companion press 4`` connects and presses. One request per
line, one answer per line::

    press <button> [gpio|serial]   ->   ok <board name>   |   error <reason>

The socket is created with mode 0600: only the user running the companion can press, and a UNIX
socket is never reachable from the LAN. Presses go through the twin's whole path
(bouncing contacts and debounce, or the firmware and the pty), never straight to the table.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from pathlib import Path

log = logging.getLogger(__name__)

MAX_REQUEST = 200


def socket_path(database: str) -> Path | None:
    """Where the twins' socket of the companion on ``database`` is; None for an in-memory one."""
    if not database or database == ":memory:":
        return None
    return Path(database).with_name(Path(database).name + ".twins")


def answer(sources, line: str) -> str:
    """The answer to one request line, pressing a twin's button if it names one."""
    words = line.split()
    if len(words) not in (2, 3) or words[0] != "press":
        return "error say: press <button> [gpio|serial]"
    button, kind = words[1], (words[2] if len(words) == 3 else "")
    twins = [s for s in sources if hasattr(s, "press") and kind in s.kind]
    if not twins:
        return f"error no simulated {kind + ' ' if kind else ''}board is running"
    for twin in twins:
        try:
            twin.press(button)
        except (ValueError, KeyError) as exc:
            reason = str(exc)
            continue
        return f"ok {twin.name}"
    return f"error {reason}"


class TwinControl:
    """Serves :func:`answer` on a UNIX socket until closed."""

    def __init__(self, path: Path, sources):
        self.path = Path(path)
        self.sources = sources
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if self.path.is_socket():
            self.path.unlink()  # left by a companion that did not close cleanly
        old = os.umask(0o177)
        try:
            self._server.bind(str(self.path))
        finally:
            os.umask(old)
        self._server.listen(4)
        self._thread = threading.Thread(target=self._serve, name="twin control", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return  # closed
            with conn:
                conn.settimeout(2)
                try:
                    data = b""
                    while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
                        chunk = conn.recv(MAX_REQUEST)
                        if not chunk:
                            break
                        data += chunk
                    reply = answer(self.sources, data.decode("ascii", "replace").strip())
                    conn.sendall(reply.encode() + b"\n")
                except OSError as exc:
                    log.info("twin control: %s", exc)

    def close(self) -> None:
        try:
            self._server.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept (close alone does not)
        except OSError:
            pass
        self._server.close()
        self._thread.join(timeout=2)
        self.path.unlink(missing_ok=True)


def start_for(database: str, sources) -> TwinControl | None:
    """The control socket if any source is a twin, else None; a socket that cannot be made is logged."""
    path = socket_path(database)
    if path is None or not any(hasattr(s, "press") for s in sources):
        return None
    try:
        return TwinControl(path, sources)
    except OSError as exc:
        log.error("twin control not started at %s: %s", path, exc)
        return None


def press(path: Path, button: str, board: str = "", timeout_s: float = 2.0) -> str:
    """Ask the companion listening at ``path`` to press ``button``; returns its answer line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(timeout_s)
        client.connect(str(path))
        client.sendall(f"press {button} {board}".strip().encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = client.recv(MAX_REQUEST)
            if not chunk:
                break
            data += chunk
    return data.decode().strip()
