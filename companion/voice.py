"""Reading aloud: the prompts, LOGISTICS card texts and totals, with espeak-ng, when enabled.

The rulebook asks for cards and totals to be read aloud; the companion does it for the table. The
voice never holds the table up and never raises: :meth:`Voice.say` only queues the text; one
background thread speaks it. A text said a moment ago is not said again, and a newer prompt replaces
a prompt still waiting (card texts and totals wait their turn). Without espeak-ng the voice is
silent and its :meth:`Voice.health` says ``"voice: espeak-ng not found"``.

Config (``[voice]``)::

    enabled = false      # read prompts, cards and totals aloud
    voice = "en-gb"      # an espeak-ng voice (espeak-ng --voices)
    speed = 150          # words per minute, 80-450
    volume = 100         # espeak-ng amplitude, 0-200
    wav_dir = ""         # not empty: write each text to a numbered WAV file there instead of speaking

Example (``wav_dir`` renders to files, as the tests do)::

    >>> voice = Voice(enabled=True, wav_dir="/tmp/nessie-voice")       # doctest: +SKIP
    >>> voice.say("Stage one, round 1. American: throw the die.")      # doctest: +SKIP
    >>> voice.wait_idle(10); voice.close()                             # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Mapping

log = logging.getLogger(__name__)

NOT_FOUND = "voice: espeak-ng not found"
KEYS = ("enabled", "voice", "speed", "volume", "wav_dir")  # the [voice] section
MAX_WAITING = 8  # texts waiting at most; the oldest prompt goes first when more arrive
REPEAT_S = 30.0  # the same text is not said twice within this many seconds


def speakable(text: str) -> str:
    """The rulebook's CAPITALS read as words ("AMERICAN" -> "American"), "£150" as "150 pounds"."""
    text = re.sub(r"\b([A-Z]{3,})\b", lambda m: m.group(1).capitalize(), text)
    text = re.sub(r"\u00a3(\d+)", r"\1 pounds", text)
    return " ".join(text.split())


def speech_for_view(view: Mapping, previous: Mapping | None) -> list[tuple[str, str]]:
    """What to say for a new table view: ``[(kind, text)]``, kind "prompt", "card" or "totals".

    New report lines (a LOGISTICS card drawn, income paid) are read out; at stage seven the prompt
    is the totals; otherwise the prompt, when it changed.
    """
    if not view.get("started"):
        return []
    out = []
    same_game = previous is not None and previous.get("game_id") == view.get("game_id")
    old_report = list(previous.get("report") or []) if same_game else []
    for line in view.get("report") or []:
        if line not in old_report:
            out.append(("card", line))
    prompt = view.get("prompt") or ""
    if prompt and (not same_game or prompt != previous.get("prompt")):
        out.append(("totals" if view.get("step") in ("totals", "over") else "prompt", prompt))
    return out


class Voice:
    """espeak-ng on a background thread. ``enabled=False`` or no espeak-ng: silent, never raising."""

    def __init__(self, enabled: bool = False, voice: str = "en-gb", speed: int = 150, volume: int = 100,
                 wav_dir: str | os.PathLike | None = None, command: str = "espeak-ng", repeat_s: float = REPEAT_S):
        self.enabled = bool(enabled)
        self.voice, self.speed, self.volume = str(voice), int(speed), int(volume)
        self.wav_dir = Path(wav_dir) if wav_dir else None
        self.repeat_s = repeat_s
        self.path = shutil.which(command) if self.enabled else None
        self.spoken = 0
        self.dropped = 0
        self.files: list[Path] = []
        self.last_error: str | None = None
        self._recent: dict[str, float] = {}
        self._queue: deque[tuple[str, str]] = deque()
        self._cond = threading.Condition()
        self._busy = False
        self._closed = False
        self._previous: Mapping | None = None
        self._thread = None
        if self.enabled and self.path:
            if self.wav_dir is not None:
                self.wav_dir.mkdir(parents=True, exist_ok=True)
            self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
            self._thread.start()
        elif self.enabled:
            log.warning(NOT_FOUND)

    @classmethod
    def from_config(cls, section: Mapping | None) -> "Voice":
        """The voice a ``[voice]`` config section asks for (keys above); bad values: a silent voice.

        ``section`` is the section as a mapping, or an object with those keys as attributes (a
        ``Config`` that has a ``[voice]`` section)."""
        if section is not None and not isinstance(section, Mapping):
            section = {k: getattr(section, k) for k in KEYS if hasattr(section, k)}
        section = dict(section or {})
        try:
            speed = int(section.get("speed", 150))
            volume = int(section.get("volume", 100))
            if not 80 <= speed <= 450 or not 0 <= volume <= 200:
                raise ValueError(f"speed must be 80-450 and volume 0-200, got {speed} and {volume}")
            return cls(bool(section.get("enabled", False)), str(section.get("voice", "en-gb")), speed, volume,
                       section.get("wav_dir") or None)
        except (TypeError, ValueError) as exc:
            voice = cls(False)
            voice.last_error = f"voice: bad [voice] settings: {exc}"
            return voice

    # -- what the table calls ------------------------------------------------------------------

    def on_view(self, view: Mapping, origin: str = "") -> None:
        """The hook: call with every new table view. Never raises, never waits."""
        try:
            items = speech_for_view(view, self._previous)
            self._previous = {k: view.get(k) for k in ("game_id", "prompt", "report", "started")}
            for kind, text in items:
                self.say(text, kind)
        except Exception as exc:  # a view the voice cannot read is not the table's problem
            self.last_error = f"voice: {exc}"

    def say(self, text: str, kind: str = "prompt") -> bool:
        """Queue ``text``; False when it is not going to be said (off, a repeat, nothing to say)."""
        if not self.enabled or not self.path or self._closed:
            return False
        text = speakable(str(text))
        if not text:
            return False
        now = time.monotonic()
        with self._cond:
            if now - self._recent.get(text, -1e9) < self.repeat_s or any(t == text for _, t in self._queue):
                return False
            self._recent[text] = now
            if len(self._recent) > 200:
                self._recent = {t: at for t, at in self._recent.items() if now - at < self.repeat_s}
            if kind == "prompt":  # a newer prompt replaces one that was not said yet
                stale = [item for item in self._queue if item[0] == "prompt"]
                for item in stale:
                    self._queue.remove(item)
                self.dropped += len(stale)
            self._queue.append((kind, text))
            while len(self._queue) > MAX_WAITING:
                self._queue.popleft()
                self.dropped += 1
            self._cond.notify()
        return True

    def reset(self) -> None:
        """A new game: forget what was said, drop what waits."""
        with self._cond:
            self._queue.clear()
            self._recent.clear()
            self._previous = None

    def health(self) -> dict:
        if not self.enabled:
            status = "voice: off"
        elif not self.path:
            status = NOT_FOUND
        else:
            status = "voice: ready"
        return {"enabled": self.enabled, "available": bool(self.path), "status": status, "engine": self.path,
                "spoken": self.spoken, "waiting": len(self._queue), "dropped": self.dropped,
                "last_error": self.last_error}

    def wait_idle(self, timeout_s: float = 10.0) -> bool:
        """Wait until everything queued has been said (tests, shutdown); True if it was."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- the speaking thread -------------------------------------------------------------------

    def _command(self, text: str) -> list[str]:
        cmd = [self.path, "-v", self.voice, "-s", str(self.speed), "-a", str(self.volume)]
        if self.wav_dir is not None:
            path = self.wav_dir / f"speech-{len(self.files) + 1:05d}.wav"
            self.files.append(path)
            cmd += ["-w", str(path)]
        return cmd + ["--", text]

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                _, text = self._queue.popleft()
                self._busy = True
            try:
                done = subprocess.run(self._command(text), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      timeout=60, check=False)
                if done.returncode != 0:
                    why = done.stderr.decode(errors="replace").strip()[:200]
                    self.last_error = f"voice: espeak-ng exit {done.returncode}: {why}"
                else:
                    self.spoken += 1
            except (OSError, subprocess.SubprocessError) as exc:
                self.last_error = f"voice: {exc}"
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
