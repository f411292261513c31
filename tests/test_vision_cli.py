"""The vision commands' contracts through the real CLI (``python -m companion ...``)."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from companion.vision.render import encode_jpeg, random_scene, render
from companion.vision.sheets import SheetPose


def run(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def rendered(box, tmp_path_factory):
    """A scene file rendered through the CLI, with a sheet on the surface monster's hex."""
    d = tmp_path_factory.mktemp("vision")
    scene = random_scene(box, 31, 1600, 1200, glare=False)
    h = box.loch.parse("D3c")
    scene.sheets = [SheetPose("british", "biological_unit", h.center[0], h.center[1], 10.0),
                    SheetPose("american", "cage", *box.loch.parse("F4d").center, 0.0)]
    (d / "scene.json").write_text(json.dumps(scene.to_json()))
    r = run("render", "--scene", str(d / "scene.json"), "--out", str(d / "photo.jpg"), "--truth", str(d / "truth.json"))
    assert r.returncode == 0, r.stderr
    return d


def test_render_writes_photo_and_truth(rendered, box):
    img = cv2.imread(str(rendered / "photo.jpg"))
    assert img.shape == (1200, 1600, 3)
    truth = json.loads((rendered / "truth.json").read_text())
    assert truth["schema"] == "nessie-vision-truth/1"
    assert truth["coverage"]["british"]["D3c"] == {"covered": True, "close": False}
    assert set(truth["hex_centres_px"]) == {h.address for h in box.loch.hexes}
    assert [s["equipment"] for s in truth["sheets"]] == ["biological_unit", "cage"]


def test_adjudicate_json_contract(rendered, box):
    r = run("adjudicate", str(rendered / "photo.jpg"), "--monsters", "D3c,F4d,B3c", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == "nessie-vision-adjudication/1"
    assert doc["registration"]["markers_seen"] == [0, 1, 2, 3]
    assert doc["registration"]["reprojection_error_mm"]["rms"] < 1.0
    assert set(doc["expeditions"]) == {"independent", "japanese", "british", "american"}
    assert "D3c" in doc["expeditions"]["british"]["covered"]
    assert "F4d" in doc["expeditions"]["american"]["covered"]
    assert doc["monsters"] == {"surface": "D3c", "submerged": ["F4d", "B3c"]}
    assert "one card" in doc["cards_rule"]
    got = {(a["expedition"], a["monster"], a["equipment"]) for a in doc["evidence"]}
    assert ("british", "D3c", "biological_unit") in got
    assert ("american", "F4d", "cage") in got  # a cage sees the submerged monster in its own hex
    for a in doc["evidence"]:
        assert a["cards"] == 1 and a["pack"].endswith("EVIDENCE")
    sheets = {s["equipment"] for s in doc["expeditions"]["british"]["sheets"]}
    assert "biological_unit" in sheets


def test_adjudicate_surface_places_the_submerged_monsters(rendered, box):
    r = run("adjudicate", str(rendered / "photo.jpg"), "--surface", "D3c", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["monsters"]["surface"] == "D3c"
    assert sorted(doc["monsters"]["submerged"]) == sorted(box.loch.submerged("D3c").placed().values())


@pytest.mark.parametrize("name,data,reason", [
    ("garbage.jpg", b"not an image at all", "not an image"),
    ("empty.jpg", b"", "not an image"),
])
def test_adjudicate_refuses_bad_files(tmp_path, name, data, reason):
    p = tmp_path / name
    p.write_bytes(data)
    r = run("adjudicate", str(p), "--json")
    assert r.returncode == 2
    doc = json.loads(r.stdout)
    assert doc["refused"] is True and doc["reason"] == reason
    assert "refused" in r.stderr


def test_adjudicate_refuses_truncated_blank_dark_and_markerless_photos(tmp_path, box, rendered):
    full = (rendered / "photo.jpg").read_bytes()
    cases = {"truncated": full[: len(full) // 2]}
    cases["blank"] = encode_jpeg(np.full((900, 1200, 3), 255, np.uint8))
    photo = cv2.cvtColor(cv2.imread(str(rendered / "photo.jpg")), cv2.COLOR_BGR2RGB)
    cases["dark"] = encode_jpeg((photo * 0.04).astype(np.uint8))
    scene = random_scene(box, 3, 1200, 900, hidden_markers=[0, 1, 2, 3])
    cases["nomarkers"] = encode_jpeg(render(box, scene)[0])
    scene = random_scene(box, 3, 1200, 900)
    scene.blur_px = 9.0
    cases["blurred"] = encode_jpeg(render(box, scene)[0])
    expected = {"truncated": "corrupt image", "blank": "too bright", "dark": "too dark",
                "nomarkers": "no markers", "blurred": "blurred"}
    for name, data in cases.items():
        p = tmp_path / f"{name}.jpg"
        p.write_bytes(data)
        r = run("adjudicate", str(p), "--json")
        assert r.returncode == 2, (name, r.stdout, r.stderr)
        assert json.loads(r.stdout)["reason"] == expected[name], name


def test_adjudicate_refuses_another_board(tmp_path, rendered):
    from companion.box_profiles import default_box_text

    other = default_box_text().replace("hex_width_mm = 20.0", "hex_width_mm = 18.5")
    other = other.split("shore_outline_mm = [")[0] + "\n" + "[markers]" + other.split("[markers]", 1)[1]
    (tmp_path / "other.toml").write_text(other)
    r = run("adjudicate", str(rendered / "photo.jpg"), "--box", str(tmp_path / "other.toml"), "--json")
    assert r.returncode == 2, r.stderr
    assert json.loads(r.stdout)["reason"] == "not this board"


def test_markers_svg_and_pdf(tmp_path):
    r = run("markers", "--out", str(tmp_path / "m.svg"))
    assert r.returncode == 0, r.stderr
    svg = (tmp_path / "m.svg").read_text()
    assert svg.startswith("<svg") and 'width="210.0mm"' in svg and "Marker 3" in svg
    r = run("markers", "--out", str(tmp_path / "m.pdf"))
    assert r.returncode == 0, r.stderr
    pdf = (tmp_path / "m.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    r = run("markers", "--out", str(tmp_path / "m.png"))
    assert r.returncode == 2 and "svg or .pdf" in r.stderr


def test_calibrate_then_adjudicate_with_it(tmp_path, box):
    empty = random_scene(box, 41, 1600, 1200, glare=False, shadows=False)
    empty.sheets = []
    (tmp_path / "empty.jpg").write_bytes(encode_jpeg(render(box, empty)[0]))
    one = random_scene(box, 42, 1600, 1200, glare=False, shadows=False)
    h = box.loch.parse("E3c")
    one.sheets = [SheetPose("japanese", "biological_unit", h.center[0], h.center[1], 0.0)]
    (tmp_path / "yellow.jpg").write_bytes(encode_jpeg(render(box, one)[0]))
    r = run("calibrate", "--empty", str(tmp_path / "empty.jpg"), "--colour", f"japanese={tmp_path / 'yellow.jpg'}",
            "--out", str(tmp_path / "cal.json"))
    assert r.returncode == 0, r.stderr
    measured = json.loads(r.stdout)["sheet_colours"]["japanese"]
    assert np.abs(np.array(measured) - np.array(box.sheet_colours["japanese"])).max() < 25
    r = run("adjudicate", str(tmp_path / "yellow.jpg"), "--calibration", str(tmp_path / "cal.json"),
            "--monsters", "E3c", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["reference"] == "calibration"
    assert "E3c" in doc["expeditions"]["japanese"]["covered"]
    assert all(not v["covered"] for e, v in doc["expeditions"].items() if e != "japanese")
    # a calibration file for another box is refused with a clear message
    (tmp_path / "bad.json").write_text(json.dumps({"schema": "nessie-vision-calibration/1", "board_digest": "x"}))
    r = run("adjudicate", str(tmp_path / "yellow.jpg"), "--calibration", str(tmp_path / "bad.json"))
    assert r.returncode == 2 and "another box profile" in r.stderr


def test_check_placement_cli(tmp_path, box):
    north = min(p[1] for p in box.loch.shore_outline)
    scene = {"sheets": [
        {"expedition": "british", "equipment": "sonar", "at_mm": [300, north - 1], "angle_deg": 0},
        {"expedition": "british", "equipment": "sonar", "at_mm": [310, north - 1], "angle_deg": 0},
        {"expedition": "british", "equipment": "sonar", "at_mm": [320, north - 1], "angle_deg": 0},
    ]}
    (tmp_path / "s.json").write_text(json.dumps(scene))
    r = run("check-placement", "--scene", str(tmp_path / "s.json"), "--json")
    assert r.returncode == 3
    doc = json.loads(r.stdout)
    assert doc["legal"] is False and doc["violations"][0]["rule"] == "three own sheets overlap"
    scene["sheets"] = scene["sheets"][:2]
    (tmp_path / "s.json").write_text(json.dumps(scene))
    r = run("check-placement", "--scene", str(tmp_path / "s.json"), "--json")
    assert r.returncode == 0 and json.loads(r.stdout) == {"legal": True, "violations": []}


def test_bad_scene_file_is_a_clear_error(tmp_path):
    (tmp_path / "s.json").write_text('{"sheets": [{"expedition": "martian", "equipment": "sonar", "at_mm": [1, 2]}]}')
    r = run("render", "--scene", str(tmp_path / "s.json"), "--out", str(tmp_path / "p.jpg"))
    assert r.returncode == 2 and "martian" in r.stderr
    r = run("render", "--scene", str(tmp_path / "missing.json"), "--out", str(tmp_path / "p.jpg"))
    assert r.returncode == 2 and "no such file" in r.stderr


def test_a_softly_blurred_photo_is_called_blurred_not_another_board(tmp_path, box):
    """Markers still read, hex lines washed out: the markers' edges say it is focus, not the board."""
    scene = random_scene(box, 411, 1600, 1200)
    scene.blur_px = 3.0
    p = tmp_path / "soft.jpg"
    p.write_bytes(encode_jpeg(render(box, scene)[0]))
    r = run("adjudicate", str(p), "--json")
    assert r.returncode == 2, r.stderr
    doc = json.loads(r.stdout)
    assert doc["reason"] == "blurred" and "mm at the markers" in doc["message"]


def test_a_sheet_whose_equipment_is_unsure_leaves_its_evidence_undecided(rendered, box):
    """The fitter marks a sheet unidentified when two shapes explain its colour about equally:
    adjudication must then neither award nor deny the card, but list it as undecided."""
    from dataclasses import replace

    from companion.vision.adjudicate import adjudicate, decode, evidence

    adj = adjudicate(decode((rendered / "photo.jpg").read_bytes()), box)
    monsters = {"surface": "D3c", "submerged": ["F4d"]}
    awards, undecided = evidence(box, adj, monsters)
    assert ("british", "D3c") in {(a["expedition"], a["monster"]) for a in awards}
    adj.sheets["british"] = [replace(f, identified=False) for f in adj.sheets["british"]]
    awards, undecided = evidence(box, adj, monsters)
    assert ("british", "D3c") not in {(a["expedition"], a["monster"]) for a in awards}
    assert ("british", "D3c") in {(u["expedition"], u["monster"]) for u in undecided}
