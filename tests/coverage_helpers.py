"""What the coverage tests share."""

from __future__ import annotations


def coverage_score(box, data: bytes, truth):
    """The photo ``data`` (JPEG bytes) adjudicated without sheet fitting, its coverage decisions
    scored against the render's ``truth`` (``evaluate.CoverageScore``)."""
    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.evaluate import score_coverage

    adj = adjudicate(decode(data), box, fit_sheets=False)
    return score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)


def raycast_photo(box, seed: int):
    """The second generator's development photo ``seed`` rendered and decoded: (photo, scene)."""
    from companion.vision.adjudicate import decode
    from tests import board_raycast as rc

    data, _truth, scene = rc.render_scene(box, seed)
    return decode(data), scene


def sheets_and_covered(box, photo, scene):
    """``photo`` adjudicated as the code stands: its sheets scored against ``scene``
    (``sheetscore.score_sheets``) and its coverage's covered map."""
    from companion.vision.adjudicate import adjudicate
    from companion.vision.sheetscore import score_sheets

    adj = adjudicate(photo, box)
    found = [f for fits in adj.sheets.values() for f in fits]
    return score_sheets(box, scene.sheets, found), adj.coverage.covered


def scored_with_and_without(box, data: bytes, truth, monkeypatch, module, flag: str):
    """``coverage_score`` as the code stands, then again with ``module.flag`` switched off: the
    pair (with, without) a rule's test compares."""
    with_flag = coverage_score(box, data, truth)
    monkeypatch.setattr(module, flag, False)
    return with_flag, coverage_score(box, data, truth)


def broad_photo_reader(box, seed: int, phone=None):
    """A broadened development scene (1600x1200) rendered, through ``phone`` (a function of
    tests.phone_pipeline, given ``default_rng(seed)``) or JPEG-encoded as rendered, and decoded;
    returns ``read()``: the photo adjudicated as the code stands now, its sheets scored
    (``sheetscore.score_sheets``) and its coverage (``adj.coverage``)."""
    import numpy as np

    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.render import encode_jpeg, random_scene, render
    from companion.vision.sheetscore import score_sheets

    scene = random_scene(box, seed, 1600, 1200, broad=True)
    image, _truth = render(box, scene)
    data = phone(image, np.random.default_rng(seed)) if phone else encode_jpeg(image, scene.jpeg_quality)
    photo = decode(data)

    def read():
        adj = adjudicate(photo, box)
        found = [f for fits in adj.sheets.values() for f in fits]
        return score_sheets(box, scene.sheets, found), adj.coverage
    return read


def read_on_and_off(read, monkeypatch, module, flag: str):
    """``read()`` with ``module.flag`` switched on, then off: ((score, coverage) on, (score,
    coverage) off), the pair a sheet-fitting rule's test compares."""
    monkeypatch.setattr(module, flag, True)
    on = read()
    monkeypatch.setattr(module, flag, False)
    return on, read()


def assert_fitter_rule_names_more(read, monkeypatch, module, flag: str, gain: int,
                                  before_most: int | None = None) -> None:
    """A fitter-only rule's test: ``read()`` with ``module.flag`` on names at least ``gain`` sheets
    more right than off (off, at most ``before_most`` right: what the rule is for), with no wrong
    type and no typed extra more, and coverage's decisions unchanged."""
    (now, cov_now), (before, cov_before) = read_on_and_off(read, monkeypatch, module, flag)
    if before_most is not None:
        assert before.right <= before_most  # what the rule is for
    assert now.right >= before.right + gain
    assert now.wrong <= before.wrong and now.extra_named <= before.extra_named
    assert_no_coverage_change(cov_now, cov_before)


def assert_no_coverage_change(cov_on, cov_off) -> None:
    """A fitter-only rule leaves coverage's decisions as they were: covered and unknown hexes."""
    assert cov_on.covered == cov_off.covered and cov_on.unknown == cov_off.unknown


def assert_rule_unnames_one_wrong_type(box, monkeypatch, seed: int, module, flag: str) -> None:
    """A naming rule's test on development ``seed`` (broadened) as rendered: with ``module.flag``
    off one sheet is named a wrong type; on, it is unidentified instead, every right sheet stays
    right, no typed extra is added and coverage's decisions are unchanged.  The fitter's view is held
    as these rules were measured, without coverage.RAY_SEEN_BY_FITTER (session 25): on, it frees
    more of the blob's colour to the fitter and 556's and 566's sheets are fitted otherwise before
    the naming rule acts (556: named right by itself).  Likewise without
    sheetfit.OTHER_COLOUR_UNSEEN (session 26): with another expedition's darkened colour unseen
    to the fitter, 566's wrong type is named right and 556's blob is fitted otherwise before the
    naming rule acts (with it on, neither photo holds the wrong type the rule is for).  Likewise
    without sheetfit.FILTER_PRODUCTS (session 34: the overlaps read as products change 566's fits)."""
    from companion.vision import coverage as cov
    from companion.vision import sheetfit

    monkeypatch.setattr(cov, "RAY_SEEN_BY_FITTER", False)
    monkeypatch.setattr(sheetfit, "OTHER_COLOUR_UNSEEN", False)
    monkeypatch.setattr(sheetfit, "FILTER_PRODUCTS", False)
    read = broad_photo_reader(box, seed)  # as rendered
    (now, cov_now), (before, cov_before) = read_on_and_off(read, monkeypatch, module, flag)

    assert before.wrong == 1  # what the rule is for
    assert now.wrong == 0 and now.unidentified == before.unidentified + 1
    assert now.right == before.right and now.extra_named <= before.extra_named
    assert_no_coverage_change(cov_now, cov_before)
