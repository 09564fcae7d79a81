"""The judge's machinery: duplicates, reviewers' decisions, the verdict."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.judge import apply_corrections, judge, latest_decisions
from pipeline.records import (
    Field,
    LineStatus,
    MatchDecision,
    ReviewAction,
    ReviewDecision,
    Severity,
    Source,
    Verdict,
)
from pipeline.rules import village_9902
from tests import builders as b

RULES = village_9902.RULES
T0 = dt.datetime(2026, 10, 12, 9, 0, tzinfo=dt.UTC)


def _run(sheets, matches, register, electors=5, decisions=None, **kw):
    return judge(
        b.case(), RULES, sheets, matches, register, electors, decisions=decisions or {}, **kw
    )


def test_a_voter_counts_once_first_line_in_sheet_order():
    """The same voter on sheet 2 line 1 and sheet 1 line 2: sheet 1's line counts."""
    s2 = b.sheet((b.line(1, page_n=2),), n=2, page_n=2)
    s1 = b.sheet(
        (b.line(1, page_n=1, name="Bo Dent", signature="Bo Dent"), b.line(2, page_n=1)),
        n=1,
        page_n=1,
    )
    matches = {
        s2.lines[0].line_id: b.match(s2.lines[0].line_id, "NY1"),
        s1.lines[0].line_id: b.match(s1.lines[0].line_id, "NY2"),
        s1.lines[1].line_id: b.match(s1.lines[1].line_id, "NY1"),
    }
    register = {"NY1": b.entry("NY1"), "NY2": b.entry("NY2", first_name="BO", last_name="DENT")}
    report = _run([s2, s1], matches, register)
    by_id = {j.line.line_id: j for j in report.lines}
    assert by_id[s1.lines[1].line_id].status is LineStatus.VALID
    dup = by_id[s2.lines[0].line_id]
    assert dup.status is LineStatus.INVALID
    assert [f.code for f in dup.findings] == ["DUPLICATE_SIGNER"]
    assert dup.findings[0].evidence["first_line_id"] == s1.lines[1].line_id
    assert report.totals.valid == 2


def test_an_invalid_first_signature_does_not_block_a_later_valid_one():
    s1 = b.sheet((b.line(1, date=""), b.line(2)), n=1)
    matches = {ln.line_id: b.match(ln.line_id, "NY1") for ln in s1.lines}
    report = _run([s1], matches, {"NY1": b.entry()})
    assert [j.status for j in report.lines] == [LineStatus.INVALID, LineStatus.VALID]


@pytest.mark.parametrize(
    "valid_lines,review_lines,electors,verdict",
    [
        (2, 0, 10, Verdict.SUFFICIENT),  # 2 of required 2
        (1, 0, 10, Verdict.INSUFFICIENT),  # 1 of 2, nothing in review
        (1, 1, 10, Verdict.UNDETERMINED),  # review decides it
        (1, 1, 15, Verdict.INSUFFICIENT),  # 1 + 1 < 3
        (3, 2, 15, Verdict.SUFFICIENT),  # valid alone is enough
    ],
)
def test_verdict(valid_lines, review_lines, electors, verdict):
    lines = tuple(b.line(i + 1) for i in range(valid_lines + review_lines))
    register = {f"NY{i}": b.entry(f"NY{i}") for i in range(len(lines))}
    matches = {}
    for i, ln in enumerate(lines):
        decision = MatchDecision.MATCH if i < valid_lines else MatchDecision.REVIEW
        matches[ln.line_id] = b.match(ln.line_id, f"NY{i}", decision)
    sh = b.sheet(lines)
    report = _run([sh], matches, register, electors=electors)
    assert report.totals.valid == valid_lines and report.totals.needs_review == review_lines
    assert report.verdict is verdict, report.verdict_reason


def test_lines_in_equal_lines_judged_blank_lines_included():
    lines = (b.line(1), b.line(2, blank=True), b.line(3, blank=True))
    report = _run(
        [b.sheet(lines)], {lines[0].line_id: b.match(lines[0].line_id, "NY1")}, {"NY1": b.entry()}
    )
    t = report.totals
    assert t.lines_read == 3 == len(report.lines)
    assert (t.valid, t.blank, t.signed) == (1, 2, 1)
    assert t.valid + t.invalid + t.needs_review + t.blank == t.lines_read


def test_a_sheet_with_no_table_read_is_never_taken_as_empty():
    unread = b.sheet((), n=1, witness_statement=None)
    report = _run([unread], {}, {}, electors=5)
    assert "SHEET_NOT_READ" in {f.code for f in report.findings}
    assert report.verdict is Verdict.UNDETERMINED


def test_a_sheet_laid_out_in_doubt_may_hold_rows_the_count_has_not_seen():
    """One valid line of 10 required is insufficient, unless a sheet's layout was read in doubt:
    the reader may have missed its rows (a rule below the last row found, a statement counting
    more), so the bound is not proven and the verdict waits, saying why."""
    from dataclasses import replace as _replace

    ln = b.line(1)
    plain = b.sheet((ln,))
    matches = {ln.line_id: b.match(ln.line_id, "NY1")}
    report = _run([plain], matches, {"NY1": b.entry()}, electors=50)
    assert (report.totals.valid, report.verdict) == (1, Verdict.INSUFFICIENT)
    doubted = _replace(plain, layout_doubts=("a rule across the table lies below its last row",))
    report = _run([doubted], matches, {"NY1": b.entry()}, electors=50)
    assert report.verdict is Verdict.UNDETERMINED
    assert (
        "LAYOUT_DOUBT" in report.verdict_reason
        and "rows the reader missed" in report.verdict_reason
    )


# -- reviewers' decisions --------------------------------------------------------------------


def _decision(line_id, action, minutes=0, **kw):
    return ReviewDecision(
        line_id, action, "clerk@village", T0 + dt.timedelta(minutes=minutes), **kw
    )


def test_accept_and_reject_override_and_are_kept():
    lines = (b.line(1), b.line(2, name="Bo Dent", signature="Bo Dent"))
    matches = {
        lines[0].line_id: b.match(lines[0].line_id, None, MatchDecision.REVIEW),
        lines[1].line_id: b.match(lines[1].line_id, "NY2"),
    }
    register = {"NY2": b.entry("NY2", first_name="BO", last_name="DENT")}
    decisions = latest_decisions(
        [
            _decision(lines[0].line_id, ReviewAction.REJECT, 0, reason="first look"),
            _decision(lines[0].line_id, ReviewAction.ACCEPT, 5),  # the later decision wins
            _decision(lines[1].line_id, ReviewAction.REJECT, 1, reason="signature not genuine"),
        ]
    )
    report = _run(
        [b.sheet(lines, witness_statement=b.witness(count="2"))],
        matches,
        register,
        decisions=decisions,
    )
    first, second = report.lines
    assert first.status is LineStatus.VALID and first.decision.action is ReviewAction.ACCEPT
    assert second.status is LineStatus.INVALID
    assert "REVIEWER_REJECTED" in {f.code for f in second.findings}
    assert "signature not genuine" in second.findings[-1].message


def test_correction_replaces_the_field_and_the_line_is_judged_again():
    ln = b.line(1, date="")
    sh = b.sheet((ln,))
    fixed = apply_corrections(
        [sh],
        {
            ln.line_id: _decision(
                ln.line_id, ReviewAction.CORRECT, corrections={"date": "10/02/2026"}
            )
        },
    )
    new = fixed[0].lines[0]
    assert new.line_id == ln.line_id
    assert new.text("date") == "10/02/2026" and new.get("date").source is Source.REVIEWER
    before = _run([sh], {ln.line_id: b.match(ln.line_id, "NY1")}, {"NY1": b.entry()})
    after = _run(list(fixed), {ln.line_id: b.match(ln.line_id, "NY1")}, {"NY1": b.entry()})
    assert before.lines[0].status is LineStatus.INVALID
    assert after.lines[0].status is LineStatus.VALID


def test_reviewer_choosing_a_voter_replaces_the_match():
    ln = b.line(1)
    decisions = {ln.line_id: _decision(ln.line_id, ReviewAction.CORRECT, voter_id="NY9")}
    report = _run(
        [b.sheet((ln,))],
        {ln.line_id: b.match(ln.line_id, None, MatchDecision.REVIEW)},
        {"NY9": b.entry("NY9")},
        decisions=decisions,
    )
    j = report.lines[0]
    assert j.voter_id == "NY9" and j.match.method == "reviewer"
    assert j.status is LineStatus.VALID


def test_a_doubtful_reading_is_never_decided_by_the_software():
    """A line OCR read with low confidence goes to a person, even with a fatal finding: the
    finding may rest on the misread field."""
    from pipeline.judge import status_of
    from pipeline.records import Finding, Severity

    fatal = Finding("SIGNER_NOT_REGISTERED", Severity.FATAL, "x", "m")
    doubt = Finding("FIELD_LOW_CONFIDENCE", Severity.REVIEW, "", "m")
    assert status_of([fatal]) is LineStatus.INVALID
    assert status_of([fatal, doubt]) is LineStatus.NEEDS_REVIEW


def test_a_scanned_sheets_fatal_defect_waits_for_a_person():
    """No statement found by OCR is not proof there is none: the lines wait, they do not fall."""
    from dataclasses import replace as _replace

    from pipeline.records import PageKind

    ln = b.line(1)
    born = b.sheet((ln,), witness_statement=None)
    scanned = _replace(born, page=_replace(born.page, kind=PageKind.IMAGE))
    matches = {ln.line_id: b.match(ln.line_id, "NY1")}
    assert _run([born], matches, {"NY1": b.entry()}).lines[0].status is LineStatus.INVALID
    report = _run([scanned], matches, {"NY1": b.entry()})
    assert report.lines[0].status is LineStatus.NEEDS_REVIEW
    assert "confirm on the sheet" in report.lines[0].findings[0].message


def _waits_on(later, first) -> None:
    """Both lines wait for a person, the later as a possible duplicate of the first."""
    assert first.status is LineStatus.NEEDS_REVIEW
    assert later.status is LineStatus.NEEDS_REVIEW
    dup = [f for f in later.findings if f.code == "DUPLICATE_SIGNER"]
    assert dup and dup[0].severity is Severity.REVIEW
    assert dup[0].evidence["first_line_id"] == first.line.line_id


def test_a_later_signature_waits_while_the_first_is_in_review():
    """If the first line of a voter is in review, the later one counts should the first be
    rejected: it waits for the same person, it is not voided now."""
    s1 = b.sheet((b.line(1, date="sometime in fall"), b.line(2)), n=1)
    matches = {ln.line_id: b.match(ln.line_id, "NY1") for ln in s1.lines}
    report = _run([s1], matches, {"NY1": b.entry()})
    first, later = report.lines
    _waits_on(later, first)


def test_a_later_signature_waits_while_an_earlier_line_in_review_may_be_its_voter():
    """Fresh seed 9898: a voter's second signature was decided valid while the first, a
    handwritten name the matcher left to a person with that voter among its candidates, was
    in review; truth has the second a duplicate. It waits: if the first is that voter, it is
    the duplicate. A line in review that may be the voter only after it does not hold it."""
    s1 = b.sheet((b.line(1), b.line(2)), n=1)
    first_id, later_id = (ln.line_id for ln in s1.lines)
    matches = {
        first_id: b.match(first_id, "NY1", MatchDecision.REVIEW),
        later_id: b.match(later_id, "NY1"),
    }
    report = _run([s1], matches, {"NY1": b.entry()})
    first, later = report.lines
    _waits_on(later, first)
    # a third line of the voter waits on the second, not voided: should the first be another
    # voter and the second be rejected, it is the voter's first line
    s3 = b.sheet((*s1.lines, b.line(3)), n=1)
    third_id = s3.lines[2].line_id
    report = _run([s3], {**matches, third_id: b.match(third_id, "NY1")}, {"NY1": b.entry()})
    assert [j.status for j in report.lines] == [LineStatus.NEEDS_REVIEW] * 3
    swapped = {
        first_id: b.match(first_id, "NY1"),
        later_id: b.match(later_id, "NY1", MatchDecision.REVIEW),
    }
    report = _run([s1], swapped, {"NY1": b.entry()})
    assert report.lines[0].status is LineStatus.VALID


def _resolved_name(text: str, *voters: tuple[str, float]) -> Field:
    """A handwritten name the closed world resolved among `voters` (id, probability), at the
    likeliest one's probability."""
    return Field("name", text, voters[0][1], Source.OCR, resolved=True, alternatives=voters)


def test_a_name_read_unsure_is_no_proof_of_a_duplicate():
    """Fresh seed 9906: "Peggy P Willowmere" written by hand, resolved at 0.60 as her
    housemate Bert (who signed sheet 1, decided valid), was matched to him and decided
    invalid as his duplicate. A name read unsure gives the likeliest of the voters it may be,
    not proof of which: the line waits, its duplicate a person's call."""

    first = b.line(1)
    raw = b.line(2)
    later = raw.replace_field(_resolved_name("Ann B Carter", ("NY1", 0.6), ("NY2", 0.4)))
    s1 = b.sheet((first, later), n=1)
    matches = {ln.line_id: b.match(ln.line_id, "NY1") for ln in s1.lines}
    # (the housemate outside the village: the rules do not find the same whichever it is)
    register = {"NY1": b.entry("NY1"), "NY2": b.entry("NY2", first_name="ANNA", town_city="ELM")}
    report = _run([s1], matches, register)
    one, two = report.lines
    assert one.status is LineStatus.VALID
    assert two.status is LineStatus.NEEDS_REVIEW
    dup = [f for f in two.findings if f.code == "DUPLICATE_SIGNER"]
    assert dup and dup[0].severity is Severity.REVIEW and "read unsure" in dup[0].message
    # read surely, the same line is the voter's duplicate
    report = _run([b.sheet((first, raw), n=1)], matches, register)
    assert report.lines[1].status is LineStatus.INVALID


def test_a_column_not_placed_sends_the_sheet_to_a_person_not_to_a_fatal_finding():
    """A residence column the reader did not place is not a residence missing: the sheet's
    lines wait for a person (LAYOUT_DOUBT), with the reason."""
    from dataclasses import replace as _replace

    ln = b.line(1, residence="")
    plain = b.sheet((ln,))
    doubted = _replace(plain, layout_doubts=("no column placed as the residence",))
    matches = {ln.line_id: b.match(ln.line_id, "NY1")}
    assert _run([plain], matches, {"NY1": b.entry()}).lines[0].status is LineStatus.INVALID
    report = _run([doubted], matches, {"NY1": b.entry()})
    assert report.lines[0].status is LineStatus.NEEDS_REVIEW
    codes = {f.code for f in report.lines[0].findings}
    assert {"LAYOUT_DOUBT", "RESIDENCE_MISSING"} <= codes
    assert any("residence" in f.message for f in report.findings if f.code == "LAYOUT_DOUBT")


# -- a signer the matcher is sure is one of two voters (SIGNER_ONE_OF) ---------------------------


def _jr_sr(**sr_over):  # type: ignore[no-untyped-def]
    """A Jr and a Sr of one name at one address, both registered (synthetic)."""
    jr = b.entry("NYJ", first_name="NELL", last_name="THISTLEWOOD", suffix="JR")
    sr = b.entry("NYS", first_name="NELL", last_name="THISTLEWOOD", suffix="SR", **sr_over)
    return {"NYJ": jr, "NYS": sr}


def _one_of(line_id: str):  # type: ignore[no-untyped-def]
    from pipeline.records import Candidate, Match

    candidates = (Candidate("NYS", 99.8, (), "NELL THISTLEWOOD SR"), Candidate("NYJ", 0.2, ()))
    return Match(
        line_id,
        MatchDecision.REVIEW,
        None,
        candidates,
        "test",
        "told apart from the next voter only by the suffix",
        0.998,
        ("NYS", "NYJ"),
    )


def _nell(n: int = 1, page_n: int = 1):  # type: ignore[no-untyped-def]
    return b.line(n, page_n=page_n, name="Nell Thistlewood Sr", signature="Nell Thistlewood Sr")


def test_a_signer_one_of_two_voters_the_rules_find_alike_is_decided():
    """Both registered at the address, before signing: the line counts whichever signed, and
    says so; it waits where the rules find otherwise for one of them."""
    s = b.sheet((_nell(),))
    line_id = s.lines[0].line_id
    (j,) = _run([s], {line_id: _one_of(line_id)}, _jr_sr()).lines
    assert j.status is LineStatus.VALID and j.voter_id is None
    (note,) = [f for f in j.findings if f.code == "SIGNER_ONE_OF"]
    assert note.severity is Severity.NOTE and note.evidence["voters"] == ["NYS", "NYJ"]
    assert "NELL THISTLEWOOD SR or NYJ" in note.message
    # the Sr registered after the line was signed: which of them signed decides the line
    late = _jr_sr(registration_date=dt.date(2026, 10, 5))
    (j,) = _run([s], {line_id: _one_of(line_id)}, late).lines
    assert j.status is LineStatus.NEEDS_REVIEW
    assert "MATCH_UNCERTAIN" in {f.code for f in j.findings}
    # one of them off the register read: a person
    (j,) = _run([s], {line_id: _one_of(line_id)}, {"NYS": _jr_sr()["NYS"]}).lines
    assert j.status is LineStatus.NEEDS_REVIEW


def test_a_signer_one_of_two_waits_when_another_line_may_be_one_of_them():
    """Another line matched to the Jr: the two lines may be one person twice or the two of
    them; the earlier counts, the one-of line waits. Two one-of lines both wait."""
    s = b.sheet((b.line(1, name="Nell Thistlewood Jr", signature="Nell Thistlewood Jr"), _nell(2)))
    first, second = (ln.line_id for ln in s.lines)
    register = _jr_sr()
    matches = {first: b.match(first, "NYJ"), second: _one_of(second)}
    report = _run([s], matches, register)
    a, c = report.lines
    assert a.status is LineStatus.VALID and a.voter_id == "NYJ"
    assert c.status is LineStatus.NEEDS_REVIEW
    assert "DUPLICATE_SIGNER" in {f.code for f in c.findings}
    # the one-of line first: the later matched line waits on it too
    s = b.sheet((_nell(1), b.line(2, name="Nell Thistlewood Jr", signature="Nell Jr")))
    first, second = (ln.line_id for ln in s.lines)
    report = _run([s], {first: _one_of(first), second: b.match(second, "NYJ")}, register)
    assert [j.status for j in report.lines] == [LineStatus.NEEDS_REVIEW] * 2
    s = b.sheet((_nell(1), _nell(2)))
    report = _run([s], {ln.line_id: _one_of(ln.line_id) for ln in s.lines}, register)
    assert [j.status for j in report.lines] == [LineStatus.NEEDS_REVIEW] * 2
    assert report.totals.valid == 0


def test_a_signer_one_of_two_waits_when_an_earlier_line_in_review_may_be_one_of_them():
    """Fresh seed 9954 (development fonts): a voter's first signature, a handwritten name the
    matcher left to a person with him among its candidates, waited; his second, the name read
    unsure and he one of the housemates it may be (SIGNER_ONE_OF), was decided valid; truth has
    it a duplicate. It waits: if the first line is one of them, it may be the duplicate."""
    s = b.sheet((b.line(1, name="Nl Thstlwd", signature="[signed]"), _nell(2)))
    first, second = (ln.line_id for ln in s.lines)
    register = _jr_sr()
    matches = {first: b.match(first, "NYJ", MatchDecision.REVIEW), second: _one_of(second)}
    a, c = _run([s], matches, register).lines
    assert a.status is LineStatus.NEEDS_REVIEW
    assert c.status is LineStatus.NEEDS_REVIEW
    (dup,) = [f for f in c.findings if f.code == "DUPLICATE_SIGNER"]
    assert dup.severity is Severity.REVIEW and dup.evidence["voters"] == ["NYS", "NYJ"]
    # an earlier line in review whose candidates are neither of them does not hold it
    s = b.sheet((b.line(1, name="Nl Thstlwd", signature="[signed]"), _nell(2)))
    first, second = (ln.line_id for ln in s.lines)
    matches = {first: b.match(first, "NY9", MatchDecision.REVIEW), second: _one_of(second)}
    a, c = _run([s], matches, {**register, "NY9": b.entry("NY9")}).lines
    assert c.status is LineStatus.VALID


def test_a_name_read_unsure_among_voters_the_rules_find_alike_is_decided():
    """A handwritten name resolved at 0.80, the rest on a housemate of a like name: the line
    is matched to the likelier, and counts whichever of the two signed; it waits when the
    other was not registered when the line was signed, or when "none of these" keeps more
    than 0.05 of the name."""
    from pipeline.records import Field

    register = _jr_sr()

    def judged(alternatives, reg=register):  # type: ignore[no-untyped-def]
        name = Field(
            "name", "Nell Thistlewood Sr", 0.8, Source.OCR, resolved=True, alternatives=alternatives
        )
        s = b.sheet((_nell().replace_field(name),))
        line_id = s.lines[0].line_id
        (j,) = _run([s], {line_id: b.match(line_id, "NYS")}, reg).lines
        return j

    j = judged((("NYS", 0.8), ("NYJ", 0.19)))
    assert j.status is LineStatus.VALID and j.match.one_of == ("NYS", "NYJ")
    assert "SIGNER_ONE_OF" in {f.code for f in j.findings}
    late = {**register, "NYJ": b.entry("NYJ", registration_date=dt.date(2026, 10, 5))}
    assert judged((("NYS", 0.8), ("NYJ", 0.19)), late).status is LineStatus.NEEDS_REVIEW
    j = judged((("NYS", 0.8), ("NYJ", 0.1)))  # "none of these" 0.1
    assert j.status is LineStatus.NEEDS_REVIEW and not j.match.one_of


def test_the_judge_is_given_the_voters_a_line_may_be_one_of():
    """`run.match_signers` hands the judge every voter a line may be one of (a Jr/Sr pair the
    matcher cannot tell apart, a name's alternatives), not only those matched: else the
    other of a pair no line matched is "off the register read" and the line waits."""
    from pipeline.run import RegisterData, judge_inputs, match_signers

    register = {
        **_jr_sr(),
        "NYO": b.entry("NYO", first_name="OTTO", last_name="QUILL", house_number="9"),
        "NYA": b.entry("NYA", first_name="OTIS", last_name="QUILL", house_number="9"),
    }
    name = _resolved_name("Otto Quill", ("NYO", 0.8), ("NYA", 0.19))
    pair = b.line(1, name="Nell Thistlewood", signature="Nell Thistlewood")
    unsure = b.line(2, name="Otto Quill", residence="9 Maple Ave").replace_field(name)
    data = RegisterData(register, 5, "test", ())
    got = match_signers(b.case(), [b.sheet((pair, unsure))], (), data, (), {})
    assert {"NYJ", "NYS", "NYO", "NYA"} <= set(got.entries)
    report = judge_inputs(got, (), RULES)
    assert [j.status for j in report.lines] == [LineStatus.VALID, LineStatus.VALID]
    assert all("SIGNER_ONE_OF" in {f.code for f in j.findings} for j in report.lines)
