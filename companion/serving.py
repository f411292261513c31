"""Run a waitress server until Ctrl+C or systemd's SIGTERM, then stop in a known order.

Why not ``server.run()`` in the main thread with ``KeyboardInterrupt``: the interrupt is raised at
whatever bytecode the main thread is running -- also inside waitress's loop, which takes its task
lock and notifies its workers on every request. An interrupt between a lock's acquisition and the
``with`` block that releases it leaves the lock held, and waitress's own shutdown then waits on it
for ever. The kiosk test twice saw its process not stop within 15 and 60 s of Ctrl+C on a loaded CI
machine (not reproduced in 55 tries here, so this is the likely cause, not a proven one). Here the
loop runs in its own thread, a signal only sets an event, and the main thread does the stopping:
nothing is interrupted half way.

SIGTERM (what ``systemctl stop`` sends) takes the same way out, so the unit's ``STOPPING=1`` is sent
and the database closed, where Python's default would end the process on the spot.
"""

from __future__ import annotations

import faulthandler
import logging
import signal
import sys
import threading
from typing import Callable

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# A stop that takes longer than this prints every thread's stack to stderr (the process goes on
# stopping): a hang at shutdown then says where it is instead of being killed without a word.
STACKS_AFTER_S = 30.0
# How long requests still being served may take to finish once everything else is closed.
REQUESTS_FINISH_S = 2.0


def serve_until_stopped(server, close: Callable[[], None], poll_s: float = 0.5) -> int:
    """Serve ``server`` (a waitress server) until SIGINT/SIGTERM, then call ``close()``.

    Returns the signal number that stopped it. Raises ``RuntimeError`` if the server's loop ends by
    itself (after ``close()`` has run). Must be called from the main thread (signal handlers).
    """
    stop = threading.Event()
    received: list[int] = []

    def on_signal(signum, _frame):
        received.append(signum)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in STOP_SIGNALS}
    loop = threading.Thread(target=server.run, name="waitress loop", daemon=True)
    loop.start()
    try:
        # A timed wait: the handler runs between waits, and a loop that died is noticed.
        while not stop.wait(poll_s):
            if not loop.is_alive():
                raise RuntimeError("the web server's loop ended by itself")
    finally:
        faulthandler.dump_traceback_later(STACKS_AFTER_S, exit=False, file=sys.stderr)
        try:
            close()
            # Workers finish what they are serving (event streams have ended with close());
            # the loop thread is a daemon and ends with the process.
            server.task_dispatcher.shutdown(cancel_pending=True, timeout=REQUESTS_FINISH_S)
        finally:
            faulthandler.cancel_dump_traceback_later()
            for s, handler in previous.items():
                signal.signal(s, handler)
    return received[0]
