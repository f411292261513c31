"""The veil of added light handed to the sheet fitter only where the added light stands out of the
photo's own cell-to-cell noise of plain paper (coverage.VEIL_FLOOR_FOR_FITTER): through the first
phone of tests/phone_pipeline (noise, sharpening, two JPEGs) plain paper's 8 mm cells scatter
1.0-1.9 % from neighbour to neighbour against 0.25-0.74 % as rendered, so cells reach VEIL_MIN (3 %)
with no light added, and the phone's tone curve deepens a sheet's darkest channel, so the veil's
bar (a share of what the pixel passes) falls: specks of "veil" on whole sheets, grown as glare's
fade.  Coverage's own hex decisions keep the veil as before."""

from __future__ import annotations

from tests.coverage_helpers import assert_fitter_rule_names_more, broad_photo_reader
from tests.phone_pipeline import phone_pipeline


def test_the_fitter_sees_sheets_under_a_veil_within_the_photos_own_paper_spread(box, monkeypatch):
    """Development seed 539 (broadened) through the first phone (gamma 1.20, S-curve 0.24; its
    paper cells' neighbour-to-neighbour noise 1.85 % against 0.37 % as rendered, so the fitter's
    floor is 5.7 % against VEIL_MIN's 3 %): the veil lay over 29-64 % of three sheets' own parts
    and was grown as glare's fade to 85-98 %; with the rule off the fitter named 5 of its 12
    sheets right (4 unidentified), with it on 8, with no wrong type or typed extra more, and
    coverage's decisions (covered and unknown hexes) unchanged.  Fails with the switch off
    (5 right, not 8).  sheetfit.EVIDENCE_LEADER (session 28) held off, as the rule was measured:
    with it on, two of the sonars the veil leaves fitted as the smaller shape inside them are named
    right with this rule off too (7 right, past the bound on what the rule is for).  Likewise
    sheetfit.FILTER_PRODUCTS (session 34: with the overlaps read as products the photo's fits
    change, and the rule's gain on it is no longer the 3 measured: the test fails with it on)."""
    from companion.vision import coverage as cov
    from companion.vision import sheetfit

    monkeypatch.setattr(sheetfit, "EVIDENCE_LEADER", False)
    monkeypatch.setattr(sheetfit, "FILTER_PRODUCTS", False)
    from companion.vision import coverage_glare_rim as _gr  # session 40: that rule shows the fitter
    monkeypatch.setattr(_gr, "GLARE_RIM_SEEN_BY_FITTER", False)  # the same colour; held off: this rule alone
    read = broad_photo_reader(box, 539, phone_pipeline)
    assert_fitter_rule_names_more(read, monkeypatch, cov, "VEIL_FLOOR_FOR_FITTER", gain=3, before_most=5)
