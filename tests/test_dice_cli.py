"""``nessie-companion read-dice --json`` through the real command line (a subprocess), as it is
evaluated: one entry per photo, in order, with exactly the keys of the contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from companion.vision.dice_render import render_scene, surface_image

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "read-dice", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    d = tmp_path_factory.mktemp("photos")
    scene = render_scene(42, n_dice=3, values=[6, 1, 3], styles=["white", "red", "black_white"],
                         surface="felt_green", tilt_deg=0, blur="none", touching=False, glare=False,
                         size=(800, 600), die_px=64)
    good = d / "three dice.jpg"
    cv2.imwrite(str(good), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    png = d / "two.png"
    two = render_scene(43, n_dice=2, values=[5, 2], styles=["yellow", "blue"], surface="wood_light",
                       tilt_deg=8, blur="none", touching=False, glare=False, size=(640, 480), die_px=56)
    cv2.imwrite(str(png), two.image)
    empty_table = d / "no dice.jpg"
    cv2.imwrite(str(empty_table), surface_image(1, (640, 480), "white_paper"))
    (d / "zero.jpg").write_bytes(b"")
    data = good.read_bytes()
    (d / "cut.jpg").write_bytes(data[: len(data) // 3])
    (d / "junk.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not a jpeg at all" * 10)
    return {"good": (good, scene), "png": (png, two), "empty": empty_table, "dir": d}


def check_entry(entry: dict) -> None:
    assert set(entry) >= {"file", "dice", "error"}
    assert isinstance(entry["dice"], list)
    for die in entry["dice"]:
        assert set(die) == {"value", "center", "confidence"}
        assert isinstance(die["value"], int) and 1 <= die["value"] <= 6
        assert len(die["center"]) == 2 and all(isinstance(c, (int, float)) for c in die["center"])
        assert 0.0 <= die["confidence"] <= 1.0


def test_json_contract_and_values(photos):
    (good, scene), (png, two) = photos["good"], photos["png"]
    res = run_cli(str(good), str(png), str(photos["empty"]), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert [e["file"] for e in out] == [str(good), str(png), str(photos["empty"])]
    for e in out:
        check_entry(e)
        assert e["error"] is None
    for entry, truth in ((out[0], scene), (out[1], two)):
        got = sorted((d["value"], round(d["center"][0] / 20), round(d["center"][1] / 20)) for d in entry["dice"])
        want = sorted((d.value, round(d.center[0] / 20), round(d.center[1] / 20)) for d in truth.dice)
        assert [g[0] for g in got] == [w[0] for w in want]
        for d in entry["dice"]:  # each centre within a fifth of a die of a true die with that value
            assert any(t.value == d["value"] and abs(t.center[0] - d["center"][0]) < 0.2 * t.side_px
                       and abs(t.center[1] - d["center"][1]) < 0.2 * t.side_px for t in truth.dice)
    assert out[2]["dice"] == []


def test_bad_files_get_an_error_and_the_others_are_still_read(photos):
    d = photos["dir"]
    good, _ = photos["good"]
    names = [d / "missing.jpg", d / "zero.jpg", good, d / "cut.jpg", d / "junk.jpg", d]
    res = run_cli(*map(str, names), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert [e["file"] for e in out] == list(map(str, names))
    for e in out:
        check_entry(e)
    errors = [e["error"] for e in out]
    assert "no such file" in errors[0]
    assert "empty" in errors[1]
    assert errors[2] is None and len(out[2]["dice"]) == 3
    for k in (3, 4, 5):
        assert isinstance(errors[k], str) and errors[k] and out[k]["dice"] == []


def test_text_output_and_exit_status(photos):
    good, _ = photos["good"]
    res = run_cli(str(good))
    assert res.returncode == 0 and "three dice.jpg: " in res.stdout and "total 10" in res.stdout
    res = run_cli(str(good), "/no/such/photo.jpg")
    assert res.returncode == 2 and "error" in res.stdout


def test_no_photo_is_a_usage_error():
    res = run_cli("--json")
    assert res.returncode == 2 and "PHOTO" in res.stderr
