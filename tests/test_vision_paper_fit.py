"""A fit that shows plain paper over much of its seen outline and leads no other shape clearly is
not named (sheetfit.PAPER_FIT_CHECK): a sheet never shows plain paper, so neither shape is the sheet."""

from __future__ import annotations


def test_a_fit_showing_paper_with_no_clear_lead_is_not_named(box, monkeypatch):
    """Development seed 566 (broadened) as rendered: the Independent biological unit, its colour
    largely lost inside its outline, was fitted as an underwater camera (colour over 0.69 of its seen
    outline, confidence 0.43): a wrong type.  With the check it is unidentified instead; every sheet
    named right stays right, coverage's decisions unchanged.  Fails without the rule (switch off:
    one wrong type)."""
    from companion.vision import sheetfit
    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.render import encode_jpeg, random_scene, render
    from companion.vision.sheetscore import score_sheets

    scene = random_scene(box, 566, 1600, 1200, broad=True)
    image, _truth = render(box, scene)
    photo = decode(encode_jpeg(image, scene.jpeg_quality))

    def read():
        adj = adjudicate(photo, box)
        found = [f for fits in adj.sheets.values() for f in fits]
        return score_sheets(box, scene.sheets, found), adj.coverage

    monkeypatch.setattr(sheetfit, "PAPER_FIT_CHECK", True)
    now, cov_now = read()
    monkeypatch.setattr(sheetfit, "PAPER_FIT_CHECK", False)
    before, cov_before = read()

    assert before.wrong == 1  # what the rule is for
    assert now.wrong == 0 and now.unidentified == before.unidentified + 1
    assert now.right == before.right and now.extra_named <= before.extra_named
    assert cov_now.covered == cov_before.covered and cov_now.unknown == cov_before.unknown
