"""A fit that loses on evidence to a bigger shape it lies inside, reported as that shape
(sheetfit.EVIDENCE_LEADER).  The search ranks shapes by gain, which charges every unseen pixel of an
outline; the confidence ranks them on the evidence alone.  A sonar partly unseen (under a darker
overlap with its own expedition's other sheet, off the photo, over land not measured) was fitted as
the eye witness inside its seen part, then left unidentified (confidence 0: the sonar explains
more colour)."""

from __future__ import annotations

from tests.coverage_helpers import assert_fitter_rule_names_more, broad_photo_reader


def test_a_sonar_fitted_as_the_eye_witness_inside_it_is_named_a_sonar(box, monkeypatch):
    """Development seed 541 (broadened) as rendered: its British sonar (#7) lies 78 % under the
    expedition's other sheets, 30 % of it seen; the eye witness inside its seen part wins on gain
    (262 against the sonar's 235 mm^2: the sonar's unseen part is charged) but the sonar leads on
    evidence by 58 mm^2 (394 against 335 and the surface camera's 329; its confidence 0.50), and
    the eye witness lies 0.99 inside it.  With the rule off 13 of the photo's 14 sheets are named
    right (the sonar unidentified), with it on all 14, with no wrong type or typed extra more and
    coverage's decisions unchanged.  Fails with the switch off (13 right, not 14)."""
    from companion.vision import sheetfit

    read = broad_photo_reader(box, 541)
    assert_fitter_rule_names_more(read, monkeypatch, sheetfit, "EVIDENCE_LEADER", gain=1, before_most=13)
