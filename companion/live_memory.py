"""Live mode's memory across a restart: the sheets it follows and the board view it checks them against.

A pulled plug must not make the referee forget where the sheets were placed: after a restart, a
sheet moved while the companion was off is still flagged, and a sheet being placed is still checked
against the rules.  Live mode (companion/vision/live.py) gives :meth:`LiveBoard.remember` and takes
:meth:`LiveBoard.recall`; this module keeps that memory in SQLite, one row per game, beside the game
log (``live-board.sqlite`` next to the database) -- a separate file, so the append-only game log keeps
its own schema and a damaged memory never touches the game.

The reference view is stored as lossless PNG (the board plane, about 1 MB); it is written only when
what is followed changes (a sheet found, placed, moved, returned, or the board accepted), not every
frame.  A memory that cannot be read (damaged, another board's grid) is dropped with a warning: live
mode then starts afresh, as it did before it had a memory.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

FILE_NAME = "live-board.sqlite"


def memory_path(database: str) -> Path | None:
    """Where the memory of the game log at ``database`` lives; None for an in-memory database."""
    if not database or database == ":memory:":
        return None
    return Path(database).with_name(FILE_NAME)


class LiveMemory:
    """Save and load live mode's memory per game id.  Thread-safe."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a memory written is a memory kept
        self._db.execute("CREATE TABLE IF NOT EXISTS live_board (game_id INTEGER PRIMARY KEY, saved_at REAL NOT NULL,"
                         " sheets TEXT NOT NULL, plane BLOB NOT NULL, valid BLOB NOT NULL)")

    def save(self, game_id: int, memory: dict) -> None:
        ok_plane, plane = cv2.imencode(".png", memory["plane"])
        ok_valid, valid = cv2.imencode(".png", memory["valid"].astype(np.uint8) * 255)
        if not (ok_plane and ok_valid):
            raise ValueError("the board view could not be encoded")
        with self._lock:
            self._db.execute("BEGIN")
            # only the current game is worth remembering: a new game's memory replaces the old one's
            self._db.execute("DELETE FROM live_board WHERE game_id != ?", (game_id,))
            self._db.execute("INSERT OR REPLACE INTO live_board VALUES (?, ?, ?, ?, ?)",
                             (game_id, time.time(), json.dumps(memory["sheets"]), plane.tobytes(), valid.tobytes()))
            self._db.execute("COMMIT")

    def load(self, game_id: int) -> dict | None:
        """The memory saved for ``game_id``, or None (none saved, or unreadable: logged)."""
        with self._lock:
            row = self._db.execute("SELECT sheets, plane, valid FROM live_board WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        try:
            sheets = json.loads(row[0])
            plane = cv2.imdecode(np.frombuffer(row[1], np.uint8), cv2.IMREAD_COLOR)
            valid = cv2.imdecode(np.frombuffer(row[2], np.uint8), cv2.IMREAD_GRAYSCALE)
            if plane is None or valid is None or plane.shape[:2] != valid.shape or not isinstance(sheets, list):
                raise ValueError("the stored board view is damaged")
        except (ValueError, TypeError) as exc:
            log.warning("live mode's memory of game %s cannot be read (%s): starting afresh", game_id, exc)
            return None
        return {"sheets": sheets, "plane": plane, "valid": valid > 0}

    def forget(self) -> None:
        with self._lock:
            self._db.execute("DELETE FROM live_board")

    def close(self) -> None:
        with self._lock:
            self._db.close()
