"""Coverage on rendered photos with known truth: many seeded scenes, borders, glare, hands, noise."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.adjudicate import adjudicate, decode
from companion.vision.evaluate import CoverageScore, near_border_hexes, score_coverage
from companion.vision.render import Scene, encode_jpeg, random_scene, render
from companion.vision.sheets import LINE_MM, SheetPose

W, H = 1600, 1200
HALF = LINE_MM / 2


def _measure(box, scene):
    photo, truth = render(box, scene)
    adj = adjudicate(decode(encode_jpeg(photo, scene.jpeg_quality)), box, fit_sheets=False)
    return adj, truth


@pytest.fixture(scope="module")
def random_results(box):
    """Eight seeded random scenes: tilt up to 35 degrees, lens distortion, light, glare, shadow, JPEG."""
    total = CoverageScore()
    per_scene = []
    for seed in range(1000, 1008):
        scene = random_scene(box, seed, W, H)
        adj, truth = _measure(box, scene)
        s = score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown,
                           near_border_hexes(box, scene.sheets))
        total.add(s)
        per_scene.append((scene, truth, adj, s))
    return total, per_scene


def test_random_scenes_coverage_accuracy(random_results):
    total, _ = random_results
    assert total.decisions > 8 * 4 * 250  # nearly every (hex, expedition) decided
    assert total.error_rate < 0.008, (total.errors, total.decisions, total.error_list[:20])
    # decisions with a sheet edge 0.5-2 mm from the border line
    assert total.near_border > 40
    assert total.near_border_error_rate < 0.12, (total.near_border_errors, total.near_border)


def test_glare_never_makes_a_hex_covered_or_uncovered(random_results):
    total, per_scene = random_results
    # Known weakness: strong glare over two overlapping sheets washes their mix towards another
    # expedition's hue at the edge of the glare; a hex or two per eight scenes (docs/board-vision.md).
    assert total.glare_false_covered <= 2
    glared = 0
    for scene, truth, adj, _ in per_scene:
        for e, per in truth["coverage"].items():
            for a, d in per.items():
                if truth["hidden"].get(a) == "glare" and d["covered"] and not d["close"]:
                    glared += 1
                    # a covered hex under glare is seen covered or left unknown, never called uncovered
                    assert a in adj.coverage.covered[e] or a in adj.coverage.unknown[e], (scene.seed, e, a)
    assert any(r["reason"].startswith("glare") for _, _, adj, _ in per_scene for r in adj.coverage.unknown_regions)


def _quiet_scene(box, sheets, **kw) -> Scene:
    scene = random_scene(box, 5, W, H, glare=False, shadows=False)
    scene.sheets = sheets
    for k, v in kw.items():
        setattr(scene, k, v)
    return scene


def _cage_left_of(box, address, expedition, gap_mm):
    """A cage whose right-most corner lies ``gap_mm`` outside the hex's outer border line (negative: over it)."""
    poly = np.asarray(box.loch.parse(address).polygon)
    left = poly[0]
    right_extent = max(p[0] for p in box.equipment["cage"].shape)
    return SheetPose(expedition, "cage", float(left[0] - HALF - gap_mm - right_extent), float(left[1]), 0.0)


@pytest.mark.parametrize("gap", [1.0, 0.7, -0.7, -1.0])
def test_a_sheet_touching_the_border_line(box, gap):
    """A corner just short of the hex's border line does not cover it, and the hex is decided; a
    corner just over it is never called uncovered.  (Colour reaching a hex only on the rim of its
    region is left undecided, coverage_rim.py: a cage's corner at a hex's vertex shows its colour
    only that far in, even 2.5 mm over the line -- the price of never calling a sheet ending
    0.5-0.8 mm short of a line covered.)"""
    targets = {"japanese": "B3c", "british": "D3d", "american": "F2c", "independent": "G4b"}
    sheets = [_cage_left_of(box, a, e, gap) for e, a in targets.items()]
    adj, truth = _measure(box, _quiet_scene(box, sheets))
    _assert_cages_judged(adj, truth, targets, gap)


def test_sheets_in_plain_view_are_decided(box):
    """Leaving rim-only colour undecided must not leave sheets in plain view undecided: of the
    covered hexes (not too close to call) nearly all are called covered, none uncovered."""
    sheets = [SheetPose(e, "biological_unit", float(box.loch.parse(a).center[0]) + dx,
                        float(box.loch.parse(a).center[1]), ang)
              for e, a, dx, ang in (("british", "C3c", 0.0, 0.0), ("american", "E4d", 3.0, 30.0),
                                    ("japanese", "G2c", -2.0, 75.0), ("independent", "B5b", 1.0, 140.0))]
    adj, truth = _measure(box, _quiet_scene(box, sheets))
    covered = [(e, a) for e, per in truth["coverage"].items() for a, d in per.items() if d["covered"] and not d["close"]]
    assert len(covered) > 20
    undecided = [(e, a) for e, a in covered if a in adj.coverage.unknown[e]]
    assert all(a in adj.coverage.covered[e] or (e, a) in undecided for e, a in covered)
    assert len(undecided) <= 0.05 * len(covered), undecided  # 1 of 73 here (a 4 px rim: 7)
    score = score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)
    assert score.errors == 0, score.error_list


def test_no_sheets_no_coverage_despite_noise(box):
    scene = _quiet_scene(box, [], noise=0.03, jpeg_quality=70)
    adj, truth = _measure(box, scene)
    assert all(not v for v in adj.coverage.covered.values())
    assert len(adj.coverage.unknown_hexes) < 5


def test_a_hand_over_the_loch_is_unknown_not_uncovered(box):
    scene = random_scene(box, 2, W, H, hands=True, glare=False)
    adj, truth = _measure(box, scene)
    hand = [a for a, r in truth["hidden"].items() if r == "hand"]
    assert len(hand) > 5
    unknown = set(adj.coverage.unknown_hexes)
    assert len(set(hand) & unknown) >= 0.8 * len(hand)
    for e in adj.coverage.covered:
        wrongly = [a for a in adj.coverage.covered[e] if a in hand
                   and not truth["coverage"].get(e, {}).get(a, {}).get("covered")]
        assert not wrongly, (e, wrongly)
    assert any("hand" in r["reason"] for r in adj.coverage.unknown_regions)


def test_a_deep_shadow_is_unknown(box):
    h = box.loch.parse("E3c")
    x, y = h.center
    shadow = {"polygon_mm": [[x - 30, y - 30], [x + 30, y - 30], [x + 30, y + 30], [x - 30, y + 30]],
              "depth": 0.9, "softness_mm": 2.0}
    sheets = [SheetPose("british", "biological_unit", x, y, 0.0)]
    adj, truth = _measure(box, _quiet_scene(box, sheets, shadows=[shadow]))
    assert "E3c" in adj.coverage.unknown_hexes
    assert "E3c" not in adj.coverage.covered["independent"]


def test_overlapping_sheets_multiply(box):
    """Two expeditions over the same hexes: both are seen there."""
    h = box.loch.parse("D3c")
    sheets = [SheetPose("british", "biological_unit", h.center[0] - 8, h.center[1], 0.0),
              SheetPose("american", "biological_unit", h.center[0] + 8, h.center[1], 0.0)]
    adj, truth = _measure(box, _quiet_scene(box, sheets))
    for e in ("british", "american"):
        assert "D3c" in adj.coverage.covered[e]
    score = score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)
    # Known weakness: a corner hidden under another expedition's sheet is judged by hue alone on
    # the printed lines, and the mix can fall short (docs/board-vision.md); a few per thousand.
    assert score.errors <= 0.005 * score.decisions, score.error_list


def test_yellow_over_blue_is_not_taken_for_green(box):
    """Japanese yellow over American blue looks nearly like independent green; ringed by yellow
    and blue, it is their overlap (print runs nudged towards green, as real ones drift)."""
    h = box.loch.parse("D3c")
    sheets = [SheetPose("japanese", "biological_unit", h.center[0] - 9, h.center[1], 0.0),
              SheetPose("american", "biological_unit", h.center[0] + 9, h.center[1], 0.0)]
    scene = _quiet_scene(box, sheets, sheet_colours=[[225.0, 222.0, 70.0], [70.0, 135.0, 215.0]])
    adj, truth = _measure(box, scene)
    assert not adj.coverage.covered["independent"], adj.coverage.covered["independent"]
    for e in ("japanese", "american"):
        assert "D3c" in adj.coverage.covered[e]
    score = score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)
    assert score.errors <= 0.002 * score.decisions, score.error_list


def test_broad_scenes_keep_sheets_camera_and_light(box):
    plain, broad = random_scene(box, 1234, W, H), random_scene(box, 1234, W, H, broad=True)
    assert [s.to_json() for s in plain.sheets] == [s.to_json() for s in broad.sheets]
    assert plain.camera == broad.camera
    assert {k: v for k, v in broad.lighting.items() if k not in ("cast", "vignetting")} == \
        {k: v for k, v in plain.lighting.items() if k != "vignetting"}
    assert broad.edge != 0 and len(broad.sheet_colours) == len(broad.sheets)
    for pose, col in zip(broad.sheets, broad.sheet_colours):
        ratio = np.asarray(col) / np.asarray(box.sheet_colours[pose.expedition])
        assert np.all((ratio > 0.5) & (ratio < 1.6)), (pose.expedition, col)
    assert any(np.abs(np.asarray(col) - box.sheet_colours[p.expedition]).max() > 2
               for p, col in zip(broad.sheets, broad.sheet_colours))
    photo_plain, _ = render(box, plain)
    photo_broad, _ = render(box, broad)
    assert (np.abs(photo_plain.astype(int) - photo_broad) > 2).mean() > 0.05


def test_broad_random_scenes_coverage_accuracy(box):
    """Four seeded scenes with print-run colours, cut edges, a colour cast and strong vignetting."""
    total = CoverageScore()
    for seed in range(1100, 1104):
        scene = random_scene(box, seed, W, H, broad=True)
        adj, truth = _measure(box, scene)
        total.add(score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown,
                                 near_border_hexes(box, scene.sheets)))
    assert total.decisions > 4 * 4 * 230
    assert total.error_rate < 0.004, (total.errors, total.decisions, total.error_list)
    assert total.glare_false_covered == 0


def test_table_bins_are_the_floor_of_the_scaled_log():
    from companion.vision import transmission as tr

    rng = np.random.default_rng(3)
    L = rng.uniform(-6.0, 2.0, (64, 80, 3)).astype(np.float32)
    q = np.clip(np.floor((L - tr.LUT_LO) * (tr.LUT_N / (tr.LUT_HI - tr.LUT_LO))), 0, tr.LUT_N - 1).astype(np.int64)
    want = (q[..., 0] * tr.LUT_N + q[..., 1]) * tr.LUT_N + q[..., 2]
    got = tr.bins(L)
    assert (got == want).mean() > 0.99, (got == want).mean()  # ties at bin edges may round either way


def test_lighting_is_the_paper_under_any_sheets():
    """The light fitted to the paper is not dented by sheets lying on it (a loch-sized plane at 1 px/mm)."""
    from companion.vision.lighting import lighting

    h, w = 130, 760
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    field = np.stack([-0.2 + 0.08 * xx / w, -0.1 + 0.0 * xx, 0.05 - 0.05 * xx / w], -1).astype(np.float32)
    D = field.copy()
    D[30:100, 100:160] += np.log([0.35, 0.72, 0.37]).astype(np.float32)  # a green sheet
    D[10:70, 500:590] += np.log([0.96, 0.84, 0.24]).astype(np.float32)  # a yellow one
    D += np.random.default_rng(0).normal(0, 0.01, D.shape).astype(np.float32)
    paper = np.ones((h, w), bool)
    paper[::4, :] = False  # printed lines
    got = lighting(D, paper, 1.0)
    err = np.abs(got - field)
    assert np.percentile(err, 95) < 0.03, np.percentile(err, 95)
    assert err[30:100, 100:160].max() < 0.04 and err[10:70, 500:590].max() < 0.04


def test_layout_is_cached_on_disk_and_drawn_again_when_the_file_is_corrupt(box, tmp_path, monkeypatch):
    from companion.vision import boardart
    from companion.vision import coverage_layout as cov

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(cov, "_LAYOUTS", {})
    drawn = cov.layout(box)
    files = list((tmp_path / "nessie-companion").glob("layout-*.npz"))
    assert len(files) == 1

    def _no_drawing(*a, **k):
        raise AssertionError("drawn although cached")

    # a new process (empty memory cache) reads the file instead of drawing
    monkeypatch.setattr(cov, "_LAYOUTS", {})
    monkeypatch.setattr(boardart, "draw_board", _no_drawing)
    loaded = cov.layout(box)
    assert loaded is not drawn

    def same(a, b):
        assert a.addresses == b.addresses and a.shape == b.shape
        assert (a.x0, a.y0, a.x1, a.y1, a.ppm) == (b.x0, b.y0, b.x1, b.y1, b.ppm)
        for k in cov._ARRAYS + ("flat", "measured", "printed", "loch"):
            x, y = getattr(a, k), getattr(b, k)
            assert x.dtype == y.dtype and np.array_equal(x, y), k

    same(loaded, drawn)
    monkeypatch.undo()  # drawing allowed again; keep the temporary cache dir
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    good = files[0].read_bytes()
    for bad in (good[: len(good) // 2], b"not a layout", good[:100] + bytes(200) + good[300:]):
        files[0].write_bytes(bad)
        monkeypatch.setattr(cov, "_LAYOUTS", {})
        same(cov.layout(box), drawn)
        # ... and the file is written afresh, readable again
        assert cov._load_layout(files[0]) is not None
    # an unwritable cache dir: drawn, no error
    monkeypatch.setenv("XDG_CACHE_HOME", str(files[0]))  # a file, not a directory
    monkeypatch.setattr(cov, "_LAYOUTS", {})
    same(cov.layout(box), drawn)


def test_packed_table_lookup_matches_bins_code_and_grey():
    from companion.vision import transmission as tr
    from companion.box_profiles import load_box

    cols = load_box().sheet_colours
    key = tuple(tuple(float(v) for v in cols[e]) for e in ("independent", "japanese", "british", "american"))
    rng = np.random.default_rng(5)
    L = rng.uniform(-6.0, 2.0, (40, 70, 3)).astype(np.float32)
    L[0, :3] = [[tr.LUT_LO] * 3, [tr.LUT_HI] * 3, [-20.0, 5.0, 0.0]]  # both ends and beyond
    packed = tr.packed_bins(L)
    dense = tr.bins(L)
    assert np.array_equal(tr.unpack(packed.ravel()), dense.ravel().astype(np.int64))
    t = tr.Table(key, -1.2, 0.25)
    half = t.lookup_packed(packed[:20], -0.9)  # fills some bins, then a mix of filled and new ones
    got = np.r_[half, t.lookup_packed(packed[20:], -0.9)]
    again = t.lookup_packed(packed, -0.9)
    code, grey = tr.Table(key, -1.2, 0.25).lookup(dense)
    want = code | np.where(grey < -0.9, tr.DARK, 0).astype(np.uint8)
    assert np.array_equal(got, want) and np.array_equal(again, want)
    assert (want & tr.DARK).any() and not (want & tr.DARK).all()


def test_unknown_regions_name_their_hexes_and_boxes(box):
    from companion.vision import coverage as cov

    lay = cov.layout(box)
    h, w = lay.shape
    # two parts inside the loch (at pixels of two hexes), the first in raster order unrecognised,
    # the second too dark
    (y1, x1), (y2, x2) = sorted(divmod(int(lay.index[lay.offsets[k]]), w) for k in (10, 200))
    unknown = np.zeros((h, w), bool)
    unknown[y1:y1 + 20, x1:x1 + 80] = True
    unknown[y2:y2 + 30, x2:x2 + 25] = True
    dark = np.zeros_like(unknown)
    dark[y2 + 5, x2 + 5] = True
    none = np.zeros_like(unknown)
    regions = cov._regions(unknown, lay, none, none, dark, none, none)
    assert len(regions) == 2
    first, second = regions
    assert first["reason"].startswith("unrecognised") and second["reason"] == "too dark"
    assert first["bbox_mm"] == [round(lay.x0 + x1 / lay.ppm, 1), round(lay.y0 + y1 / lay.ppm, 1), 20.0, 5.0]
    for r, (y, x, hh, ww) in zip(regions, ((y1, x1, 20, 80), (y2, x2, 30, 25))):
        part = np.zeros_like(unknown)
        part[y:y + hh, x:x + ww] = True
        assert r["hexes"] == lay.hexes_touching(part) and r["hexes"]


def test_a_sheet_wholly_under_another_expeditions_keeps_its_colour_for_fitting(box):
    """A cage lying wholly under another expedition's sheet never shows its colour alone: coverage
    sets it aside (it could be the others' mix), but the fitting mask keeps it, and only it."""
    from companion.vision import coverage as cov
    from companion.vision.sheetscore import true_masks

    h = box.loch.parse("D3c")
    sheets = [SheetPose("british", "biological_unit", h.center[0], h.center[1], 0.0),
              SheetPose("american", "cage", h.center[0] + 4, h.center[1] - 3, 30.0)]
    scene = _quiet_scene(box, sheets)
    adj, truth = _measure(box, scene)
    r = adj.coverage
    lay = cov.layout(box)
    tm = true_masks(box, scene.sheets, lay.x0, lay.y0, lay.ppm, lay.shape)
    cage = tm["american"] & r.seen_flat
    assert cage.sum() > 0.5 * 116 * lay.ppm ** 2  # most of the cage lies on plain, seen paper
    fit = r.fit_masks["american"]
    assert (fit & cage).sum() >= 0.8 * cage.sum()
    assert (fit & ~tm["american"]).sum() <= 0.2 * cage.sum()  # not the british sheet round it
    # the british sheet is untouched by it
    brit = tm["british"] & r.seen_flat
    assert (r.fit_masks["british"] & brit).sum() >= 0.9 * brit.sum()


@pytest.mark.parametrize("strength, dx", [(0.6, -12.0), (0.6, 12.0), (1.0, -12.0), (1.0, 12.0)])
def test_glare_over_overlapping_sheets_makes_no_sheet(box, strength, dx):
    """Glare beside two pairs of overlapping sheets: the white light it adds lifts the overlaps' dim
    channels towards another expedition's hue; no hex may be called covered by a sheet not there."""
    h = box.loch.parse("D3c")
    cx, cy = h.center
    sheets = [SheetPose("british", "surface_camera", cx - 6, cy, 90.0),
              SheetPose("independent", "surface_camera", cx + 6, cy, 90.0),
              SheetPose("british", "surface_camera", cx - 6, cy + 40, 90.0),
              SheetPose("american", "surface_camera", cx + 6, cy + 40, 90.0)]
    scene = _quiet_scene(box, sheets, glare=[{"at_mm": [cx + dx, cy + 20], "radius_mm": 25.0, "strength": strength}])
    adj, truth = _measure(box, scene)
    for e, got in adj.coverage.covered.items():
        t = truth["coverage"].get(e, {})
        wrong = [a for a in got if not t.get(a, {}).get("covered") and not t.get(a, {}).get("close")]
        assert not wrong, (e, wrong)


def test_added_light_is_measured_in_the_papers_channels():
    """White light added over part of the paper shows as its share of the paper's white, spread
    over the cells round it (where sheets hide the paper); none elsewhere -- and noise that varies
    over the photo (a phone's shot noise, stronger where the light is dim) adds none."""
    from companion.vision.lighting import added_light

    ppm, h, w = 3.0, 240, 720
    rng = np.random.default_rng(1)
    # noise six times stronger on the left than on the right (the mean of each channel the same)
    sigma = np.linspace(0.06, 0.01, w, dtype=np.float32)[None, :, None]
    L = (-0.03 + sigma * rng.normal(0.0, 1.0, (h, w, 3))).astype(np.float32)
    L[96:144, 336:384] += np.float32(np.log1p(0.2))  # 20 % of white added on a 16 mm square
    paper = np.ones((h, w), bool)
    got = added_light(L, paper, ppm)
    cell = int(8 * ppm)
    cy, cx = 120 // cell, 360 // cell
    assert 0.15 < got[cy, cx] < 0.25, got[cy, cx]
    assert got[cy, cx + 2] > 0.15  # spread 16 mm round it
    assert got[0, 0] < 0.01 and got[-1, -1] < 0.01
    assert (got[:, :cx - 3] < 0.01).all() and (got[:, cx + 4:] < 0.01).all()


def _sheet_field(box, picks, shape=(240, 720)):
    """A log-transmission image of plain paper with single sheets of the ``picks`` expeditions
    (one band each) and the overlap of the first two, shaded a little, with noise."""
    from companion.vision.colourmasks import EXPEDITIONS

    rng = np.random.default_rng(4)
    h, w = shape
    a = {e: np.log(np.asarray(box.sheet_colours[e], np.float32) / 255.0) for e in EXPEDITIONS}
    L = np.zeros((h, w, 3), np.float32)
    band = w // (len(picks) + 2)
    for k, e in enumerate(picks):
        L[:, k * band:(k + 1) * band] += a[e]
    if len(picks) >= 2:
        L[:, len(picks) * band:(len(picks) + 1) * band] += a[picks[0]] + a[picks[1]]
    L += np.linspace(-0.2, 0.0, h, dtype=np.float32)[:, None, None]  # shade
    L += rng.normal(0.0, 0.02, L.shape).astype(np.float32)
    return L


def _phone_colours(L, gamma=1.1, boost=1.15):
    """What a phone's tone curve (a gamma) and saturation boost do to the light a pixel passes
    (the paper white: 1)."""
    T = np.exp(L) ** gamma
    grey = T.mean(axis=2, keepdims=True)
    return np.log(np.clip(grey + boost * (T - grey), 1e-3, 1.0)).astype(np.float32)


def test_colour_correction_maps_a_phones_colours_back_to_the_profiles(box):
    from companion.vision.colour_adapt import colour_correction, corrected
    from companion.vision.colourmasks import EXPEDITIONS
    from companion.vision.transmission import packed_bins, table

    picks = ["independent", "japanese", "british", "american"]
    L = _sheet_field(box, picks)
    seen = _phone_colours(L)
    usable = np.ones(L.shape[:2], bool)
    N = colour_correction(seen, usable, box.sheet_colours, EXPEDITIONS, -1.2, 0.25)
    assert N is not None
    back = corrected(seen, N)
    # on the single sheets the hue (each pixel less its mean) is back near the profile's
    hue = lambda x: x - x.mean(axis=2, keepdims=True)  # noqa: E731
    single = np.s_[:, :len(picks) * (L.shape[1] // (len(picks) + 2))]
    before = np.sqrt(np.mean((hue(seen[single]) - hue(L[single])) ** 2))
    after = np.sqrt(np.mean((hue(back[single]) - hue(L[single])) ** 2))
    assert after < 0.5 * before, (before, after)
    # and the colour match names the expeditions of the bands as on the profile's own colours
    key = tuple(tuple(float(v) for v in box.sheet_colours[e]) for e in EXPEDITIONS)
    tab = table(key, -1.2, 0.25)
    want = tab.lookup_packed(packed_bins(L), -0.9) & 15
    got = tab.lookup_packed(packed_bins(back), -0.9) & 15
    assert np.mean(got == want) > 0.97, np.mean(got == want)


def test_colour_correction_is_left_alone_by_expeditions_not_on_the_board(box):
    """With the profile's own colours the map is (nearly) the identity; with no sheet at all it is
    not estimated; one expedition's sheets alone do not pull the others' colours along."""
    from companion.vision.colour_adapt import colour_correction
    from companion.vision.colourmasks import EXPEDITIONS

    usable = np.ones((240, 720), bool)
    L = _sheet_field(box, ["british", "american"])
    N = colour_correction(L, usable, box.sheet_colours, EXPEDITIONS, -1.2, 0.25)
    assert N is None or np.abs(N - np.eye(3)).max() < 0.05, N
    paper = np.random.default_rng(2).normal(0.0, 0.02, (240, 720, 3)).astype(np.float32)
    assert colour_correction(paper, usable, box.sheet_colours, EXPEDITIONS, -1.2, 0.25) is None
    one = _phone_colours(_sheet_field(box, ["japanese"]), gamma=1.05, boost=1.1)
    N = colour_correction(one, usable, box.sheet_colours, EXPEDITIONS, -1.2, 0.25)
    assert N is not None
    a = np.log(np.asarray(box.sheet_colours["independent"], np.float32) / 255.0)
    moved = N @ a - a
    assert np.sqrt(np.mean((moved - moved.mean()) ** 2)) < 0.1  # another's hue barely moved


@pytest.mark.parametrize("gap", [1.0, -1.0])
def test_a_sheet_short_of_a_line_through_a_phones_blurry_colour(box, gap):
    """Through a phone's upscaled sensor, its half-resolution colour and a second JPEG (which
    spread a sheet's hue about a millimetre past its edge), a corner 1 mm short of a hex's border
    line still leaves the hex uncovered (decided), and 1 mm over it is never called uncovered
    (covered, or undecided: see test_a_sheet_touching_the_border_line)."""
    from tests.phone_pipeline import phone_pipeline

    targets = {"japanese": "B3c", "british": "D3d", "american": "F2c", "independent": "G4b"}
    photo, truth = render(box, _quiet_scene(box, [_cage_left_of(box, a, e, gap) for e, a in targets.items()]))
    data = phone_pipeline(photo, np.random.default_rng(1), ("lower resolution", "4:2:0 chroma", "second JPEG"))
    adj = adjudicate(decode(data), box, fit_sheets=False)
    _assert_cages_judged(adj, truth, targets, gap)


def test_the_line_blur_is_measured_from_the_photo(box):
    """A softer photo (a phone's upscaled sensor, a focus a little off) is given a softer drawn
    reference; never softer than the camera's own scale gives when the lines can't be measured."""
    import cv2

    from companion.vision import coverage as cov
    from companion.vision.line_blur import line_sigma
    from companion.vision.unseen import grey_and_paper

    scene = _quiet_scene(box, [])
    photo, _ = render(box, scene)
    lay = cov.layout(box, cov.WORK_PPM)
    reg = adjudicate(decode(encode_jpeg(photo, 92)), box, fit_sheets=False).registration
    sigmas = []
    for blur in (0.0, 2.0):  # the same view, softened: the registration holds for both
        img = photo if blur == 0 else cv2.GaussianBlur(photo, (0, 0), blur)
        warped, valid = cov._warp(decode(encode_jpeg(img, 92)).bgr, reg, lay)
        sigmas.append(line_sigma(grey_and_paper(warped), valid, lay, 0.5))
    assert sigmas[1] > sigmas[0] + 0.5, sigmas
    none = np.zeros(lay.shape, bool)
    assert line_sigma(grey_and_paper(warped), none, lay, 0.7) == 0.7


def _assert_cages_judged(adj, truth, targets, gap):
    """A cage short of its line (gap > 0) is decided uncovered; one over it (gap < 0) is covered or
    undecided (colour only on the hex's rim is left undecided), never uncovered."""
    for e, a in targets.items():
        assert truth["coverage"][e].get(a, {"covered": False})["covered"] == (gap < 0)
        if gap > 0:
            assert a not in adj.coverage.covered[e], (e, a, gap)
            assert a not in adj.coverage.unknown[e]
        else:
            assert a in adj.coverage.covered[e] or a in adj.coverage.unknown[e], (e, a, gap)


def test_warp_float_maps_give_the_fixed_point_pixels_and_unknown_mask_is_scaled_up_lazily():
    """coverage._warp hands cv2.remap its float maps: the same pixels as its fixed-point maps
    (cv2.convertMaps) would give, sub-pixel positions, the frame's edges and beyond included.
    CoverageResult.unknown_mask is the work layout's unknown pixels scaled up, when first asked."""
    import cv2

    from companion.vision import coverage as cov

    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (120, 160, 3), np.uint8)
    mx, my = np.meshgrid(np.linspace(-4.3, 166.1, 233, dtype=np.float32), np.linspace(-2.7, 124.9, 171, dtype=np.float32))
    mx += rng.uniform(-0.5, 0.5, mx.shape).astype(np.float32)
    my += rng.uniform(-0.5, 0.5, my.shape).astype(np.float32)
    m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    fixed = cv2.remap(img, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    direct = cv2.remap(img, mx[1:-1, 2:], my[1:-1, 2:], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    assert np.array_equal(fixed[1:-1, 2:], direct)  # (strided views, as _warp passes them)

    work = rng.random((6, 9)) < 0.3
    calls = []

    def up(m):
        calls.append(1)
        return np.repeat(np.repeat(m, 2, 0), 2, 1)

    res = cov.CoverageResult({}, {}, [], [], {}, work, {}, work, 0.0, None, up)
    assert not calls
    assert np.array_equal(res.unknown_mask, up(work)) and res.unknown_mask is res.unknown_mask
    assert len(calls) == 2  # scaled up once (and once more for the comparison above)
    same = cov.CoverageResult({}, {}, [], [], {}, work, {}, work, 0.0)
    assert same.unknown_mask is work


def test_table_match_sums_channels_as_numpys_reduction_did():
    """Table._match adds the three channels plane by plane: the same best candidates, residuals and
    grey terms, bit for bit, as numpy's reduction along the last axis."""
    from companion.box_profiles import load_box
    from companion.vision import transmission as tr

    cols = load_box().sheet_colours
    key = tuple(tuple(float(v) for v in cols[e]) for e in ("independent", "japanese", "british", "american"))
    t = tr.Table(key, -1.2, 0.25)
    need = np.unique(np.random.default_rng(2).integers(0, tr.LUT_N ** 3, 3000))
    best, raw, s = t._match(need, t.vec, t.pen)
    q0, rest = np.divmod(need, tr.LUT_N * tr.LUT_N)
    q1, q2 = np.divmod(rest, tr.LUT_N)
    c = ((np.stack([q0, q1, q2], -1) + 0.5) / tr.LUT_N * (tr.LUT_HI - tr.LUT_LO) + tr.LUT_LO).astype(np.float32)
    w = np.clip(np.exp(c) / 0.3, 0.2, 1.0).astype(np.float32)[:, None, :]
    diff = c[:, None, :] - t.vec[None]
    s_all = np.clip((diff * w).sum(-1) / w.sum(-1), t.s_lo, t.s_hi)
    raw_all = np.sqrt((w * (diff - s_all[..., None]) ** 2).sum(-1) * (3.0 / w.sum(-1)))
    want = (raw_all + t.pen[None, :] + tr.GREY_PENALTY * np.abs(s_all)).argmin(1)
    idx = np.arange(len(need))
    assert np.array_equal(best, want)
    assert np.array_equal(raw, raw_all[idx, want]) and np.array_equal(s, s_all[idx, want])
