"""The SQLite event log: append-only, durable before an action is acknowledged.

Each game is a sequence of log entries. An entry is either an ``action`` (its JSON) or an
``undo`` marker; undo never deletes, so the whole history of a game, mistakes included, stays on
disk. The actions in force are found by folding the entries like a move stack: an action pushes,
an undo pops (see :func:`effective_actions`).

WAL journal with ``synchronous=FULL``: once :meth:`EventStore.append` returns, the entry is on
disk and survives a pulled plug.

One writer a game: a store remembers the last entry it wrote or read of each game, and an append
finding another entry there (a second companion started on the same file, each playing the game
from its own memory) is refused with :class:`StoreError` instead of interleaving two games into a
log that no longer replays -- seen once: two demo processes on one file, their throws and cards
alternating from entry 49 on.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from companion.errors import CompanionError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    box_name TEXT NOT NULL,
    box_digest TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS highscores (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    game TEXT NOT NULL,
    expedition TEXT NOT NULL,
    rounds INTEGER NOT NULL,
    points INTEGER NOT NULL,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS log (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    body TEXT,
    at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


class StoreError(CompanionError):
    """The database cannot be opened or holds an entry that cannot be read."""


@dataclass(frozen=True)
class GameRecord:
    id: int
    game: str
    box_name: str
    box_digest: str
    created_at: str


@dataclass(frozen=True)
class Entry:
    seq: int
    kind: str  # "action" or "undo"
    body: dict | None


def effective_actions(entries: list[Entry], keep: int = 1) -> list[dict]:
    """The actions in force after folding the log: an undo drops the latest action still in force.

    ``keep`` actions at the bottom (the game's setup) are never undone.
    """
    stack: list[dict] = []
    for e in entries:
        if e.kind == "action":
            stack.append(e.body)  # type: ignore[arg-type]
        elif len(stack) > keep:
            stack.pop()
    return stack


class EventStore:
    """One SQLite file holding every game's log. Thread-safe; one connection behind a lock."""

    def __init__(self, path: str | Path = ":memory:"):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the game database: {exc}") from None
        self._lock = threading.Lock()
        self._last_seen: dict[int, int] = {}  # game id -> the last entry this store wrote or resumed from

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _now(self) -> str:
        return datetime.now(timezone.utc).isoformat(timespec="milliseconds")

    def create_game(self, game: str, box_name: str, box_digest: str, actions: list[dict]) -> GameRecord:
        """A new game whose log starts with ``actions`` (its setup, or an imported game), in one transaction."""
        now = self._now()
        with self._lock, self._transaction():
            cur = self._db.execute(
                "INSERT INTO games (game, box_name, box_digest, created_at) VALUES (?, ?, ?, ?)",
                (game, box_name, box_digest, now),
            )
            gid = cur.lastrowid
            self._db.executemany(
                "INSERT INTO log (game_id, seq, kind, body, at) VALUES (?, ?, 'action', ?, ?)",
                [(gid, i + 1, json.dumps(a, separators=(",", ":")), now) for i, a in enumerate(actions)],
            )
            self._last_seen[gid] = len(actions)
        return GameRecord(gid, game, box_name, box_digest, now)  # type: ignore[arg-type]

    def append(self, game_id: int, kind: str, body: dict | None = None) -> int:
        """Append one entry durably; returns its sequence number. Refused (:class:`StoreError`,
        nothing written) if another connection has written to the game since this store last did
        or resumed it."""
        if kind not in ("action", "undo"):
            raise ValueError(f"unknown log entry kind {kind!r}")
        text = None if body is None else json.dumps(body, separators=(",", ":"))
        with self._lock, self._transaction():
            (last,) = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM log WHERE game_id = ?", (game_id,)).fetchone()
            expected = self._last_seen.get(game_id, last)
            if last != expected:
                raise StoreError(f"{self.path}: game {game_id} was written by another process (entry {last}, this "
                                 f"companion last saw {expected}); is a second companion running on this database?")
            self._db.execute(
                "INSERT INTO log (game_id, seq, kind, body, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, last + 1, kind, text, self._now()),
            )
            self._last_seen[game_id] = last + 1
        return last + 1

    def record_highscore(self, game_id: int, game: str, expedition: str, rounds: int, points: int) -> None:
        """A solitaire game's score (rounds needed to prove the monster); once per game."""
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO highscores (game_id, game, expedition, rounds, points, at) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, game, expedition, rounds, points, self._now()),
            )

    def highscores(self, game: str, limit: int = 10) -> list[dict]:
        """The best solitaire scores: fewest rounds first, then most points."""
        with self._lock:
            rows = self._db.execute(
                "SELECT expedition, rounds, points, at, game_id FROM highscores WHERE game = ? "
                "ORDER BY rounds ASC, points DESC, at ASC LIMIT ?", (game, limit)).fetchall()
        return [{"expedition": e, "rounds": r, "points": p, "at": at, "game_id": g} for e, r, p, at, g in rows]

    def latest_game(self, game: str | None = None) -> GameRecord | None:
        sql = "SELECT id, game, box_name, box_digest, created_at FROM games"
        args: tuple = ()
        if game is not None:
            sql += " WHERE game = ?"
            args = (game,)
        with self._lock:
            row = self._db.execute(sql + " ORDER BY id DESC LIMIT 1", args).fetchone()
        return GameRecord(*row) if row else None

    def entries(self, game_id: int, *, to_continue: bool = False) -> list[Entry]:
        """The game's log. ``to_continue``: read to carry the game on (a resume), so this store's
        appends follow the last entry read. A plain read (an export, a look) does not, so it cannot
        hide another process's write from the check in :meth:`append`."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, body FROM log WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
            if to_continue:
                self._last_seen[game_id] = rows[-1][0] if rows else 0
        out = []
        for seq, kind, body in rows:
            try:
                out.append(Entry(seq, kind, None if body is None else json.loads(body)))
            except json.JSONDecodeError as exc:
                raise StoreError(f"{self.path}: game {game_id}, entry {seq} is not valid JSON: {exc.msg}") from None
        return out

    def _transaction(self):
        db = self._db

        class _Tx:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type, exc, tb):
                db.execute("ROLLBACK" if exc_type else "COMMIT")
                return False

        return _Tx()
