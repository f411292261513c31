"""The voice: real espeak-ng rendering to WAV files, what is said for which view, and silence
(never an exception) without espeak-ng, with a failing one, or switched off."""

from __future__ import annotations

import shutil
import stat
import time
import wave


from companion.voice import NOT_FOUND, Voice, speakable, speech_for_view


def wav_seconds(path) -> float:
    with wave.open(str(path), "rb") as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2 and w.getframerate() > 8000
        return w.getnframes() / w.getframerate()


def test_espeak_ng_renders_speech_to_a_wav_file(tmp_path):
    assert shutil.which("espeak-ng"), "espeak-ng is installed by the Makefile (Debian package espeak-ng)"
    voice = Voice(enabled=True, wav_dir=tmp_path, speed=175)
    try:
        assert voice.health()["status"] == "voice: ready" and voice.health()["available"]
        assert voice.say("Stage seven, round 2. The Sponsor reads out the totals: AMERICAN 90.", "totals")
        assert voice.say("AMERICAN draws G23: Film and batteries.", "card")
        assert voice.wait_idle(20)
    finally:
        voice.close()
    assert voice.spoken == 2 and voice.last_error is None
    first, second = voice.files
    assert first.read_bytes()[:4] == b"RIFF" and first.read_bytes()[8:12] == b"WAVE"
    totals, card = wav_seconds(first), wav_seconds(second)
    assert 2.0 < totals < 12.0 and 1.0 < card < 8.0  # about 13 and 7 words at 175 words a minute
    assert totals > card


def test_a_repeat_is_not_said_again_and_a_newer_prompt_replaces_a_waiting_one(tmp_path, monkeypatch):
    calls = tmp_path / "calls.txt"
    fake = tmp_path / "bin" / "espeak-ng"
    fake.parent.mkdir()
    # A slow stand-in for espeak-ng that notes what it was asked to say.
    sleep = shutil.which("sleep")
    fake.write_text(f'#!/bin/sh\nfor last; do :; done\necho "$last" >> {calls}\n{sleep} 0.3\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(fake.parent))
    voice = Voice(enabled=True)
    try:
        assert voice.say("First prompt.")
        deadline = time.monotonic() + 5
        while not calls.exists() and time.monotonic() < deadline:  # now being said
            time.sleep(0.005)
        started = time.monotonic()
        assert not voice.say("First prompt.")  # said a moment ago
        assert voice.say("Second prompt.")
        assert voice.say("A card: Quiet week at the loch.", "card")
        assert voice.say("Third prompt.")  # replaces the second, still waiting
        assert time.monotonic() - started < 0.1  # the caller never waits for the speech
        assert voice.wait_idle(10)
    finally:
        voice.close()
    assert calls.read_text().splitlines() == ["First prompt.", "A card: Quiet week at the loch.", "Third prompt."]
    assert voice.dropped == 1 and voice.spoken == 3


def test_without_espeak_ng_the_voice_is_silent_and_says_why(tmp_path, monkeypatch, box):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no espeak-ng anywhere
    voice = Voice.from_config({"enabled": True})
    try:
        health = voice.health()
        assert health["status"] == NOT_FOUND == "voice: espeak-ng not found"
        assert health["available"] is False and health["enabled"] is True
        assert voice.say("Anybody there?") is False
        voice.on_view({"started": True, "prompt": "Stage one.", "report": ["a card"], "game_id": 1})
        voice.on_view({"nonsense": object()})
        voice.on_view(None)  # not even a view: still no exception
        assert voice.wait_idle(1) and voice.spoken == 0
    finally:
        voice.close()


def test_a_failing_espeak_ng_is_reported_not_raised(tmp_path, monkeypatch):
    fake = tmp_path / "espeak-ng"
    fake.write_text("#!/bin/sh\necho 'no audio device' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    voice = Voice(enabled=True)
    try:
        assert voice.say("Hello.")
        assert voice.wait_idle(5)
    finally:
        voice.close()
    assert voice.spoken == 0 and "exit 1" in voice.last_error and "no audio device" in voice.last_error


def test_switched_off_or_badly_configured_it_is_silent():
    off = Voice.from_config({})
    assert off.health()["status"] == "voice: off" and off.say("x") is False
    bad = Voice.from_config({"enabled": True, "speed": 5000})
    assert bad.enabled is False and "speed" in bad.health()["last_error"]
    off.close()
    bad.close()


def test_speakable_reads_capitals_as_words_and_pounds():
    assert speakable("AMERICAN (£200): buy  one piece") == "American (200 pounds): buy one piece"
    assert speakable("The EYE WITNESS pack, D3b, G23") == "The Eye Witness pack, D3b, G23"


def test_what_is_said_for_each_view(service):
    from companion.games.nessie_hunt import LogisticsDealt, NewGame, Throw

    table = service.table
    table.new_game(NewGame(1, ("american",), rounds=2))
    first = table.view()
    said = speech_for_view(first, None)
    assert said == [("prompt", first["prompt"])]
    assert speech_for_view(first, first) == []  # nothing new
    for value in (1, 1, 3):  # the Japanese and British tokens, then the American onto its '*' (space 3)
        view = table.submit(Throw(value))
    assert view["step"] == "logistics"
    previous = view
    view = table.submit(LogisticsDealt("G23"))
    kinds = speech_for_view(view, previous)
    assert ("card", "AMERICAN draws G23: Film and batteries.") in kinds
    assert kinds[-1] == ("prompt", view["prompt"])
    over = {**view, "step": "totals", "prompt": "Stage seven, round 1. The Sponsor reads out the totals: AMERICAN 0."}
    assert speech_for_view(over, view)[-1][0] == "totals"
    assert speech_for_view({"started": False, "prompt": "Set up a game"}, None) == []


def test_from_a_config_object_with_voice_attributes(tmp_path):
    class Config:  # as companion.config.Config would hold a [voice] section
        enabled, voice, speed, volume, wav_dir = True, "en-gb", 160, 90, str(tmp_path)
        database = "ignored"

    voice = Voice.from_config(Config())
    try:
        assert voice.enabled and voice.speed == 160 and voice.volume == 90 and voice.wav_dir == tmp_path
    finally:
        voice.close()
