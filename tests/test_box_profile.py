"""The box profile: validated on load, every error names the file, the key and the reason."""

from __future__ import annotations

import copy
import json
import tomllib

import pytest

from companion.box_profiles import default_box_text, load_box
from companion.errors import BoxProfileError
from companion.games.nessie_hunt.box import parse_box


@pytest.fixture
def doc():
    return tomllib.loads(default_box_text())


def test_house_default_loads(box):
    assert len(box.loch) == 288
    assert {len(t) for t in box.tracks.values()} >= {16, 20}
    assert set(box.equipment) == {"eye_witness", "surface_camera", "underwater_camera", "sonar", "biological_unit", "cage"}
    assert sum(e.per_colour for e in box.equipment.values()) == 12  # "48 transparencies (12 per colour)"


def test_json_profile_loads_like_toml(tmp_path, doc, box):
    path = tmp_path / "box.json"
    path.write_text(json.dumps(doc))
    loaded = load_box(path)
    assert loaded.digest == box.digest
    assert loaded.source == str(path)


def _fail(data, source="my-box.toml"):
    with pytest.raises(BoxProfileError) as err:
        parse_box(data, source)
    assert str(err.value).startswith(f"{source}: ")
    return err.value


def mutate(doc, fn):
    d = copy.deepcopy(doc)
    fn(d)
    return d


CASES = [
    ("schema", lambda d: d.update(schema="other/9"), "unknown schema"),
    ("board.width_mm", lambda d: d["board"].pop("width_mm"), "missing"),
    ("board.height_mm", lambda d: d["board"].update(height_mm=-3), "greater than 0"),
    ("loch.hex_width_mm", lambda d: d["loch"].update(hex_width_mm="wide"), "expected a number"),
    ("loch.origin_mm", lambda d: d["loch"].update(origin_mm=[1]), "expected a point"),
    ("loch.sectors", lambda d: d["loch"].update(sectors="abc"), "capital letters"),
    ("loch.hexes", lambda d: d["loch"].update(hexes=["Z9z"]), "not an address"),
    ("loch", lambda d: d["loch"].update(origin_mm=[500, 500]), "off the board"),
    ("markers.dictionary", lambda d: d["markers"].update(dictionary="DICT_9X9"), "unknown ArUco dictionary"),
    ("markers.marker", lambda d: d["markers"]["marker"][1].update(id=0), "ids must differ"),
    ("markers.marker", lambda d: d["markers"]["marker"].pop(), "expected 4 markers"),
    ("tracks[0].spaces[1].symbol", lambda d: d["tracks"][0]["spaces"][1].update(symbol="Z"), "cannot hide"),
    ("tracks[0].spaces[0]", lambda d: d["tracks"][0]["spaces"][0].pop("start"), "start space"),
    ("tracks[0].spaces[2]", lambda d: d["tracks"][0]["spaces"][2].update(colour="x"), "unknown key"),
    ("tracks[1].expedition", lambda d: d["tracks"][1].update(expedition="american"), "second track"),
    ("tracks", lambda d: d["tracks"].pop(), "missing the track"),
    ("tracks[0].reveals", lambda d: d["tracks"][0].update(reveals="colour"), "expected one of"),
    ("tracks[0].spaces", lambda d: d["tracks"][0].update(spaces=d["tracks"][0]["spaces"][:5]), "at least 7"),
    ("evidence_packs", lambda d: d["evidence_packs"].pop(), "one pack space"),
    ("equipment.sonar.price", lambda d: d["equipment"]["sonar"].update(price=-1), "negative"),
    ("equipment.cage.sees", lambda d: d["equipment"]["cage"].update(sees="x-ray"), "surface"),
    ("equipment.cage.shape_mm", lambda d: d["equipment"]["cage"].update(shape_mm=[[0, 0], [1, 1], [2, 2]]), "no area"),
    ("sheet_colours.british", lambda d: d["sheet_colours"].update(british=[300, 0, 0]), "0-255"),
    ("equipment.sonar.per_colour", lambda d: d["equipment"]["sonar"].update(per_colour=True), "true/false"),
]


@pytest.mark.parametrize("key,change,reason", CASES, ids=[c[0] + ":" + c[2] for c in CASES])
def test_malformed_profiles_name_the_key_and_the_reason(doc, key, change, reason):
    err = _fail(mutate(doc, change))
    assert err.key == key
    assert reason in err.reason


def test_not_a_table(doc):
    assert _fail([1, 2]).key == "(document)"


def test_missing_file(tmp_path):
    with pytest.raises(BoxProfileError) as err:
        load_box(tmp_path / "nope.toml")
    assert "nope.toml" in str(err.value) and "no such file" in str(err.value)


def test_broken_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('schema = "nessie-hunt-box/1"\n[board\nwidth_mm = 3\n')
    with pytest.raises(BoxProfileError) as err:
        load_box(path)
    assert str(path) in str(err.value) and "not valid TOML" in str(err.value)


def test_broken_json_and_binary_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    with pytest.raises(BoxProfileError, match="not valid JSON"):
        load_box(bad)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(BoxProfileError, match="UTF-8"):
        load_box(binary)


def test_a_real_board_may_leave_addresses_off_the_loch(doc):
    """An owner's board whose loch lacks some addresses: submerged monsters there are not placed."""
    keep = [h for h in (f"{s}{n}{r}" for s in "ABCDEFGH" for n in "123456" for r in "abcdef") if h != "C5b"]
    d = mutate(doc, lambda d: (d["loch"].update(hexes=keep), d["loch"].pop("shore_outline_mm")))
    box = parse_box(d, "owner.toml")
    assert len(box.loch) == 287
    assert box.loch.submerged("D3b").left is None
    assert len(box.loch.shore_outline) > 0
