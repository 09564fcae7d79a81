"""Judge: from sheets, matches and reviewers' decisions to a sufficiency report.

The statute's rules live in `pipeline.rules`; this module is the machinery every petition kind
shares: sheet-level findings cascade onto the sheet's lines, a line's findings give its status,
reviewers' decisions override, a voter counts once (the first line that is not invalid), and the
totals give the verdict. Nothing here is specific to one statute.

Every line read comes out as exactly one JudgedLine: `judge` checks lines in == lines judged.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .case import CaseConfig
from .codes import Category, codes_in
from .dates import parse_written_date
from .errors import PetitionError
from .records import (
    Field,
    FileError,
    Finding,
    Holding,
    JudgedLine,
    LineStatus,
    Match,
    MatchDecision,
    PageKind,
    RegisterDoubt,
    RegisterEntry,
    ReviewAction,
    ReviewDecision,
    Severity,
    Sheet,
    SignatureLine,
    Source,
    SufficiencyReport,
    Totals,
    ValuationResult,
    Verdict,
    WitnessStatement,
)
from .rules import reading
from .rules.base import (
    LineContext,
    RuleSet,
    ShareOfValuation,
    SignatureCount,
    Threshold,
    finding,
)
from .rules.valuation import most_creditable

__all__ = [
    "Decided",
    "Standing",
    "apply_corrections",
    "count_each_signer_once",
    "count_totals",
    "decide",
    "judge",
    "judge_line",
    "judge_sheets",
    "latest_decisions",
    "order_sheets",
    "sheet_findings",
    "status_of",
]

log = logging.getLogger(__name__)


def latest_decisions(decisions: Sequence[ReviewDecision]) -> dict[str, ReviewDecision]:
    """The decision in force for each line: the latest by time (all are kept in the log). Two
    latest decisions made at the same moment that disagree (one accepts, one rejects) are
    neither applied: the line's decision is a `conflict`, which the judge reports and which
    leaves the line as the software judged it (in review, when it was)."""
    latest: dict[str, ReviewDecision] = {}
    for d in sorted(decisions, key=lambda d: d.decided_at):
        before = latest.get(d.line_id)
        if before is not None and before.decided_at == d.decided_at and not _same(before, d):
            d = ReviewDecision(
                d.line_id,
                ReviewAction.CORRECT,
                d.reviewer,
                d.decided_at,
                reason="decisions that disagree",
                conflict=_reviewers(before, d),
            )
        latest[d.line_id] = d
    return latest


def _reviewers(before: ReviewDecision, d: ReviewDecision) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*(before.conflict or (before.reviewer,)), d.reviewer)))


def _same(a: ReviewDecision, b: ReviewDecision) -> bool:
    """The same decision (whoever made it, whatever the reason given)."""
    if a.conflict:
        return False
    return (a.action, dict(a.corrections), a.voter_id) == (
        b.action,
        dict(b.corrections),
        b.voter_id,
    )


def _conflict(d: ReviewDecision | None, page_id: str, line_no: int | None = None) -> list[Finding]:
    if d is None or not d.conflict:
        return []
    what = f"line {line_no}" if line_no is not None else "the sheet"
    return [
        finding(
            "DECISIONS_CONFLICTING",
            Severity.REVIEW,
            "",
            f"reviewers' decisions for {what} ({d.line_id}) made at the same moment disagree "
            f"({', '.join(d.conflict)}, {d.decided_at.isoformat()}); none is applied",
            page_id=page_id,
            line_no=line_no,
            reviewers=list(d.conflict),
        )
    ]


def apply_corrections(
    sheets: Sequence[Sheet], decisions: Mapping[str, ReviewDecision]
) -> tuple[Sheet, ...]:
    """Sheets with reviewers' corrected field values put in place (source REVIEWER), so that
    matching and judging see what the reviewer read. Run before matching. A decision whose
    `line_id` is a page id is about the sheet: its corrections are the sheet number
    (`sheet_number`) and the witness statement's blanks (`witness_name`, `stated_count`, ...)."""
    out = []
    touched = {key.partition("-")[0] for key in decisions}  # line ids are "<page id>-NN"
    for sheet in sheets:
        if sheet.page.page_id not in touched:
            out.append(sheet)
            continue
        lines = []
        for line in sheet.lines:
            d = decisions.get(line.line_id)
            if d is not None and d.corrections:
                for name, text in d.corrections.items():
                    old = line.get(name)
                    line = line.replace_field(
                        Field(name, text, 1.0, Source.REVIEWER, old.box if old else None)
                    )
            lines.append(line)
        if any(a is not b for a, b in zip(lines, sheet.lines, strict=True)):
            sheet = replace(sheet, lines=tuple(lines))  # else the same sheet, uncorrected
        d = decisions.get(sheet.page.page_id)
        out.append(
            _correct_sheet(sheet, d.corrections) if d is not None and d.corrections else sheet
        )
    return tuple(out)


SHEET_FIELDS = ("sheet_number",) + tuple(
    f for f in WitnessStatement.__dataclass_fields__ if f not in ("form", "box")
)


def _correct_sheet(sheet: Sheet, corrections: Mapping[str, str]) -> Sheet:
    def field(old: Field | None, name: str, text: str) -> Field:
        return Field(name, text, 1.0, Source.REVIEWER, old.box if old else None)

    if "sheet_number" in corrections:
        text = corrections["sheet_number"]
        sheet = replace(sheet, sheet_number=field(sheet.sheet_number, "sheet_number", text))
    blanks = {k: v for k, v in corrections.items() if k in SHEET_FIELDS and k != "sheet_number"}
    if blanks:
        witness = sheet.witness or WitnessStatement(form="witness")
        new: dict[str, Any] = {k: field(getattr(witness, k), k, v) for k, v in blanks.items()}
        witness = replace(witness, **new)
        sheet = replace(sheet, witness=witness)
    return sheet


def _sheet_decision(
    own: list[Finding], d: ReviewDecision | None, page_id: str, citation: str
) -> list[Finding]:
    """A reviewer's decision on a sheet: accepted (its statement and number read as complete,
    so its review findings are settled; a fatal one stands unless its fields are corrected),
    or rejected (every line falls)."""
    if d is None or d.action is ReviewAction.CORRECT:
        return own + _conflict(d, page_id)
    who = f"{d.reviewer} on {d.decided_at.isoformat()}"
    if d.action is ReviewAction.ACCEPT:
        kept = [f for f in own if f.severity is not Severity.REVIEW]
        note = finding(
            "REVIEWER_ACCEPTED_SHEET",
            Severity.NOTE,
            "",
            f"sheet read as complete by {who}",
            page_id=page_id,
            settled=[f.code for f in own if f.severity is Severity.REVIEW],
        )
        return kept + [note]
    rejected = finding(
        "REVIEWER_REJECTED_SHEET",
        Severity.FATAL,
        citation,
        f"sheet rejected by {who}: {d.reason or 'no reason given'}",
        page_id=page_id,
        reviewer=d.reviewer,
    )
    return own + [rejected]


def order_sheets(sheets: Sequence[Sheet]) -> tuple[Sheet, ...]:
    """Sheets by their printed number; unnumbered sheets after, in the order they were filed.
    This order decides which of two signatures of one voter is 'first'."""
    indexed = list(enumerate(sheets))
    indexed.sort(
        key=lambda p: (p[1].sheet_number_value is None, p[1].sheet_number_value or 0, p[0])
    )
    return tuple(s for _, s in indexed)


# Whatever the statute, a doubtful reading goes to a person (pipeline/rules/reading.py).
READING_LINE_RULES = (reading.low_confidence_fields,)
READING_SHEET_RULES = (reading.low_confidence_sheet_fields, reading.layout_doubts)

# Findings that say the reading itself is in doubt (pipeline/rules/reading.py). A line read with
# doubt is never decided by the software: even a fatal finding may rest on a misread field, so
# the line goes to a person with everything found.
READING_DOUBTS = codes_in(Category.READING)
# A page on which no table could be read may hold lines: the verdict cannot count it out.
UNREAD_PAGES = codes_in(Category.UNREAD)


def status_of(findings: Sequence[Finding]) -> LineStatus:
    if any(f.code in READING_DOUBTS for f in findings):
        return LineStatus.NEEDS_REVIEW
    severities = {f.severity for f in findings}
    if Severity.FATAL in severities:
        return LineStatus.INVALID
    if Severity.REVIEW in severities:
        return LineStatus.NEEDS_REVIEW
    return LineStatus.VALID


def _confirm_on_the_scan(f: Finding) -> Finding:
    """A fatal defect of a scanned sheet (no statement, an unsigned one) may be a misreading:
    OCR that found no statement has not shown there is none. A person confirms it before the
    sheet's lines fall."""
    if f.severity is not Severity.FATAL:
        return f
    return replace(
        f,
        severity=Severity.REVIEW,
        message=f"{f.message} (read from a scan: confirm on the sheet)",
    )


def _cascade(sheet_findings: Sequence[Finding], line_no: int) -> list[Finding]:
    """A sheet's FATAL or REVIEW findings, copied onto one of its lines so that each line says
    why it fell or waits."""
    return [
        replace(f, line_no=line_no)
        for f in sheet_findings
        if f.severity in (Severity.FATAL, Severity.REVIEW)
    ]


def _reviewer_match(match: Match | None, d: ReviewDecision, line_id: str) -> Match:
    return Match(
        line_id=line_id,
        decision=MatchDecision.MATCH,
        voter_id=d.voter_id,
        candidates=match.candidates if match else (),
        method="reviewer",
        reason=f"voter chosen by {d.reviewer} on {d.decided_at.isoformat()}",
    )


@dataclass(frozen=True, slots=True)
class SheetJudged:
    """One sheet's findings and judged lines, with what they were judged from."""

    key: tuple
    own: tuple[Finding, ...]
    lines: tuple[JudgedLine, ...]


SheetMemo = dict[str, SheetJudged]  # page id -> the sheet as last judged


def _same_inputs(a: tuple, b: tuple) -> bool:
    """The same sheet object (corrections make a new one), the same petition findings on it,
    the same match objects and equal decisions: its judging would come out the same."""
    return (
        a[0] is b[0]
        and a[1] == b[1]
        and all(x is y for x, y in zip(a[2], b[2], strict=True))
        and a[3] == b[3]
        and a[4] == b[4]
    )


def _judge_sheet(
    case: CaseConfig,
    rules: RuleSet,
    sheet: Sheet,
    matches: Mapping[str, Match],
    register: Mapping[str, RegisterEntry],
    decisions: Mapping[str, ReviewDecision],
    petition_findings: Sequence[Finding],
) -> tuple[tuple[Finding, ...], tuple[JudgedLine, ...]]:
    """One sheet: its own findings (cascading onto its lines) and every line judged."""
    own = sheet_findings(case, rules, sheet, decisions.get(sheet.page.page_id), petition_findings)
    lines = tuple(
        judge_line(case, rules, sheet, line, own, matches, register, decisions.get(line.line_id))
        for line in sheet.lines
    )
    return tuple(own), lines


def sheet_findings(
    case: CaseConfig,
    rules: RuleSet,
    sheet: Sheet,
    decision: ReviewDecision | None,
    petition_findings: Sequence[Finding],
) -> list[Finding]:
    """What the sheet rules (and the petition's findings about this page) say of the sheet; a
    scanned sheet's fatal findings wait for a person; a reviewer's decision on the sheet."""
    page_id = sheet.page.page_id
    own = [f for rule in rules.sheet_rules + READING_SHEET_RULES for f in rule(sheet, case)]
    own += petition_findings
    if sheet.page.kind is not PageKind.PDF_TEXT:
        own = [_confirm_on_the_scan(f) for f in own]
    return _sheet_decision(own, decision, page_id, rules.statute)


def judge_line(
    case: CaseConfig,
    rules: RuleSet,
    sheet: Sheet,
    line: SignatureLine,
    sheet_level: Sequence[Finding],
    matches: Mapping[str, Match],
    register: Mapping[str, RegisterEntry],
    decision: ReviewDecision | None,
) -> JudgedLine:
    """One line: the line rules' findings and its sheet's (cascaded), its status, and a
    reviewer's decision over both (a chosen voter, accepted, rejected)."""
    if line.blank:
        return JudgedLine(line, LineStatus.BLANK, (), None, None, sheet.sheet_number_value)
    match = matches.get(line.line_id)
    if decision is not None and decision.voter_id:
        match = _reviewer_match(match, decision, line.line_id)
    voter_id = match.voter_id if match and match.decision is MatchDecision.MATCH else None
    ctx = LineContext(
        line=line,
        sheet=sheet,
        match=match,
        entry=register.get(voter_id) if voter_id else None,
        signed_on=parse_written_date(line.text("date"), reference=case.dates.filed),
        case=case,
    )
    found = _line_findings(ctx, rules)
    if match is not None and match.decision is MatchDecision.REVIEW and match.one_of:
        found = _one_of_settled(ctx, match, register, rules) or found
    elif match is not None and voter_id and _name_in_doubt(found):
        either = _name_voters(line, voter_id)
        settled = _one_of_settled(ctx, replace(match, one_of=either), register, rules, "name")
        if settled is not None and not _name_in_doubt(settled):
            match, found = replace(match, one_of=either), settled
    found += _cascade(sheet_level, line.line_no)
    found += _conflict(decision, sheet.page.page_id, line.line_no)
    status = status_of(found)
    if decision is not None and decision.conflict:  # one accepts, one rejects: a person
        status = LineStatus.NEEDS_REVIEW
    elif decision is not None and decision.action is ReviewAction.ACCEPT:
        status = LineStatus.VALID
    elif decision is not None and decision.action is ReviewAction.REJECT:
        found.append(
            ctx.finding(
                "REVIEWER_REJECTED",
                Severity.FATAL,
                rules.statute,
                f"rejected by {decision.reviewer}: {decision.reason or 'no reason given'}",
                reviewer=decision.reviewer,
                decided_at=decision.decided_at.isoformat(),
            )
        )
        status = LineStatus.INVALID
    return JudgedLine(
        line, status, tuple(found), match, voter_id, sheet.sheet_number_value, decision
    )


def _line_findings(ctx: LineContext, rules: RuleSet) -> list[Finding]:
    return [f for rule in rules.line_rules + READING_LINE_RULES for f in rule(ctx)]


def _as_voter(match: Match, voter_id: str) -> Match:
    return replace(match, decision=MatchDecision.MATCH, voter_id=voter_id)


# A voter a resolved name gives less than this is not among those the line is tried as; what
# they leave counts against the name (`rules.reading.name_settled`).
NAME_MASS = 0.002


def _name_in_doubt(found: Sequence[Finding]) -> bool:
    return any(f.code == "FIELD_LOW_CONFIDENCE" and "name" in f.evidence["fields"] for f in found)


def name_voters(line: SignatureLine) -> tuple[str, ...]:
    """The voters (ids) a resolved name may be (`Field.alternatives`, NAME_MASS or more),
    likeliest first; none for a name not resolved among voters."""
    name = line.get("name")
    if name is None or not name.resolved or not name.alternatives:
        return ()
    return tuple(v for v, p in name.alternatives if p >= NAME_MASS)


def _name_voters(line: SignatureLine, voter_id: str) -> tuple[str, ...]:
    """The voters a resolved name read unsure may be, when the matched voter is the likeliest
    of them: the line is tried as each (`_one_of_settled`)."""
    either = name_voters(line)
    return either if len(either) > 1 and either[0] == voter_id else ()


def _one_of_settled(
    ctx: LineContext,
    match: Match,
    register: Mapping[str, RegisterEntry],
    rules: RuleSet,
    doubt: str = "",
) -> list[Finding] | None:
    """The findings of a line whose signer the matcher is sure is one of `match.one_of` (a Jr
    and a Sr of one name at one address, the suffix read by OCR), or whose name, read unsure,
    is one of them (`doubt` "name": the voters its resolved name may be, 0.95 of it together,
    `rules.reading.name_settled`), when the line's rules find the same (codes and
    severities) whichever voter it is: the line does not wait for a person to say which, as a
    clerk who finds each registered counts the signature. The first voter's findings, and
    SIGNER_ONE_OF naming them all; None when any voter is off the register read or the rules
    find otherwise for one (MATCH_UNCERTAIN, or the name's doubt, stands). Whether one of
    them signed another line too, `count_each_signer_once` asks."""
    entries = [register.get(v) for v in match.one_of]
    if len(entries) < 2 or any(e is None for e in entries):
        return None
    outcomes = [
        _line_findings(replace(ctx, match=_as_voter(match, e.voter_id), entry=e), rules)
        for e in entries
        if e is not None
    ]
    if len({frozenset((f.code, f.severity) for f in got) for got in outcomes}) > 1:
        return None
    shown = {c.voter_id: c.display or c.voter_id for c in match.candidates}
    who = " or ".join(shown.get(v, v) for v in match.one_of)
    why = (
        "the name, read unsure, may be any of them"
        if doubt == "name"
        else f"the matcher cannot tell which: {match.reason}"
    )
    note = ctx.finding(
        "SIGNER_ONE_OF",
        Severity.NOTE,
        rules.statute,
        f"the signer is {who} ({why}); the line's rules find the same whichever",
        voters=list(match.one_of),
    )
    return [*outcomes[0], note]


def judge(
    case: CaseConfig,
    rules: RuleSet,
    sheets: Sequence[Sheet],
    matches: Mapping[str, Match],
    register: Mapping[str, RegisterEntry],
    electors: int | None,
    *,
    decisions: Mapping[str, ReviewDecision] | None = None,
    file_errors: Sequence[FileError] = (),
    inputs: Mapping[str, str] | None = None,
    now: dt.datetime | None = None,
    holdings: Sequence[Holding] = (),
    petition_findings: Sequence[Finding] = (),
    doubt: RegisterDoubt | None = None,
    memo: SheetMemo | None = None,
) -> SufficiencyReport:
    """Judge every line and the petition. `petition_findings` are found outside the rules
    (where they need the matcher, as the committee to fill vacancies does, or about the
    register itself); `doubt` is what the register or roll could not settle: the verdict is
    decided only if it holds whatever those rows turn out to be. With `memo` (kept by the
    caller between calls: the review dashboard judges again after each decision) a sheet
    whose inputs are unchanged is not judged again.

    In five steps: the petition's rules; each sheet and its lines (`judge_sheets`:
    `sheet_findings`, then `judge_line` for each); each signer counted once
    (`count_each_signer_once`); the totals (`count_totals`); the verdict (`decide`)."""
    decisions = decisions or {}
    doubt = doubt or RegisterDoubt()
    sheets = order_sheets(sheets)
    about_petition = [
        *petition_findings,
        *(f for rule in rules.petition_rules for f in rule(sheets, case)),
    ]
    judged, sheet_level = judge_sheets(
        case, rules, sheets, matches, register, decisions, about_petition, memo
    )
    judged = count_each_signer_once(judged, f"{rules.statute}: each signer is counted once")
    lines_read = sum(len(s.lines) for s in sheets)
    if lines_read != len(judged):  # the promise: no line is ever dropped
        raise PetitionError(f"internal error: {lines_read} lines read but {len(judged)} judged")

    threshold = rules.threshold(case, electors)
    after = _unmatched_decisions(decisions, judged, sheets) + _no_threshold(threshold)
    about_petition += after
    sheet_level += after
    totals = count_totals(judged, threshold)
    decided = decide(
        Standing(
            totals,
            tuple(judged),
            tuple(about_petition),
            tuple(file_errors),
            tuple(f for f in sheet_level if f.code in UNREAD_PAGES),
            doubt,
            tuple(f for f in sheet_level if f.code == reading.LAYOUT_DOUBT),
        ),
        threshold,
        rules,
        case,
        electors,
        holdings,
    )
    log.info("judged %d lines: %s", lines_read, decided.verdict)
    return SufficiencyReport(
        case_name=case.name,
        petition_kind=rules.kind,
        verdict=decided.verdict,
        totals=totals,
        sheets=tuple(sheets),
        lines=tuple(judged),
        findings=tuple(sheet_level),
        file_errors=tuple(file_errors),
        verdict_reason=decided.reason,
        generated_at=now or dt.datetime.now(dt.UTC),
        inputs=dict(inputs or {}),
        statute=rules.statute,
        petition_label=case.spec.label,
        valuation=decided.valuation,
        valuation_best=decided.valuation_best,
    )


def judge_sheets(
    case: CaseConfig,
    rules: RuleSet,
    sheets: Sequence[Sheet],
    matches: Mapping[str, Match],
    register: Mapping[str, RegisterEntry],
    decisions: Mapping[str, ReviewDecision],
    petition_findings: Sequence[Finding],
    memo: SheetMemo | None = None,
) -> tuple[list[JudgedLine], list[Finding]]:
    """Every sheet judged in order (`_judge_sheet`; from `memo` when its inputs are the same):
    its lines, and the findings about the sheets and the petition (those without a page
    first)."""
    by_page: dict[str | None, list[Finding]] = {}
    for f in petition_findings:
        by_page.setdefault(f.page_id, []).append(f)
    judged: list[JudgedLine] = []
    sheet_level: list[Finding] = list(by_page.get(None, []))
    for sheet in sheets:
        page_id = sheet.page.page_id
        extra = tuple(by_page.get(page_id, ()))
        ids = [line.line_id for line in sheet.lines]
        key = (
            sheet,
            extra,
            tuple(map(matches.get, ids)),
            tuple(map(decisions.get, ids)),
            decisions.get(page_id),
        )
        hit = memo.get(page_id) if memo is not None else None
        if hit is not None and _same_inputs(hit.key, key):
            own, lines = hit.own, hit.lines
        else:
            own, lines = _judge_sheet(case, rules, sheet, matches, register, decisions, extra)
            if memo is not None:
                memo[page_id] = SheetJudged(key, own, lines)
        sheet_level += own
        judged += lines
    return judged, sheet_level


def count_totals(judged: Sequence[JudgedLine], threshold: Threshold) -> Totals:
    """The lines by status, and the threshold (a count of signatures, or a share of valuation)."""
    count = {s: sum(1 for j in judged if j.status is s) for s in LineStatus}
    return Totals(
        lines_read=len(judged),
        blank=count[LineStatus.BLANK],
        signed=len(judged) - count[LineStatus.BLANK],
        valid=count[LineStatus.VALID],
        invalid=count[LineStatus.INVALID],
        needs_review=count[LineStatus.NEEDS_REVIEW],
        threshold=threshold,
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """Where the petition stands once every line is judged: what the verdict is decided on."""

    totals: Totals
    judged: tuple[JudgedLine, ...]
    about_petition: tuple[Finding, ...]  # the petition's findings (and the sheets', by page)
    file_errors: tuple[FileError, ...]
    unread: tuple[Finding, ...]  # pages on which no table could be read
    doubt: RegisterDoubt
    # Sheets the reader could not lay out with confidence (LAYOUT_DOUBT): rows it missed there
    # are no lines of the count, so they may hold more signatures, as an unread page may.
    laid_out_in_doubt: tuple[Finding, ...] = ()

    @property
    def may_hold_more(self) -> bool:
        """Whether signatures may be on the sheets that were not read, in part or in whole."""
        return bool(self.file_errors or self.unread or self.laid_out_in_doubt)


@dataclass(frozen=True, slots=True)
class Decided:
    verdict: Verdict
    reason: str
    valuation: ValuationResult | None = None  # the valid lines' owners' share
    valuation_best: ValuationResult | None = None  # with every line in review counted


def decide(
    standing: Standing,
    threshold: Threshold,
    rules: RuleSet,
    case: CaseConfig,
    electors: int | None,
    holdings: Sequence[Holding],
) -> Decided:
    """The verdict, a proven bound or undetermined: by the count of valid signatures, or by
    the share of valuation their owners hold."""
    if isinstance(threshold, ShareOfValuation):
        if rules.valuation is None:
            raise PetitionError(f"internal error: {rules.kind}'s rule set has no valuation")
        valid_ids, best_ids = _signers(standing.judged, holdings)
        now = rules.valuation(holdings, valid_ids)
        best = rules.valuation(holdings, best_ids)
        return Decided(*_valuation_verdict(now, best, standing), now, best)
    required_at_most = threshold.required
    if standing.doubt.denominator_rows and electors is not None:
        most = rules.threshold(case, electors + standing.doubt.denominator_rows)
        required_at_most = most.required if isinstance(most, SignatureCount) else 0
    doubt = _count_doubt(standing, required_at_most)
    return Decided(*_verdict(standing, threshold.required, doubt))


def _count_doubt(standing: Standing, required_at_most: int) -> _CountDoubt:
    doubt = standing.doubt
    return _CountDoubt(
        required_at_most,
        # valid lines whose voter has disagreeing rows (the entry used may be wrong)
        sum(
            1
            for j in standing.judged
            if j.status is LineStatus.VALID
            and any(v in doubt.conflicting_ids for v in _possible_signers(j))
        ),
        # invalid lines whose signer may be on a row that could not be read
        min(doubt.unread_rows, standing.totals.invalid),
        doubt,
    )


def _signers(
    judged: Sequence[JudgedLine], holdings: Sequence[Holding]
) -> tuple[set[str], set[str]]:
    """The roll ids of the valid lines, and the most any resolution of the lines in review
    could credit. A line in review whose signer is settled (matched, the reading not in doubt)
    can credit that owner only; any other line in review, one owner more, whoever a reviewer
    may find it to be (`valuation.most_creditable`), not only the candidates listed."""
    valid = {
        j.voter_id for j in judged if j.status is LineStatus.VALID and j.voter_id and not _one_of(j)
    }
    settled: set[str] = set()
    unsettled = 0
    for j in judged:
        if j.status is LineStatus.VALID and _one_of(j):
            unsettled += 1  # one of several (SIGNER_ONE_OF): credited at most as one more
            continue
        if j.status is not LineStatus.NEEDS_REVIEW:
            continue
        if j.voter_id and not any(f.code in READING_DOUBTS for f in j.findings):
            settled.add(j.voter_id)
        else:
            unsettled += 1
    counted = valid | settled
    return valid, counted | most_creditable(holdings, counted, unsettled)


def _valuation_verdict(
    now: ValuationResult, best: ValuationResult, standing: Standing
) -> tuple[Verdict, str]:
    petition_findings, doubt = standing.about_petition, standing.doubt
    fatal, doubts = _about_the_petition(petition_findings)
    if fatal:
        return Verdict.INSUFFICIENT, fatal
    shares = "; ".join(
        f"{p.label}: {float(p.share):.2%} signed, {p.rule} required" for p in now.parts
    )
    blocking = _blocking(petition_findings)
    if blocking or doubt:
        # A parcel on a row that could not be read has an unknown value and owner: any share
        # could be wrong either way.
        return Verdict.UNDETERMINED, (
            f"{shares}; a person must decide first: " + (blocking or _doubt_text(doubt, "the roll"))
        )
    if now.met and not doubts:
        return Verdict.SUFFICIENT, f"{now.explanation} ({now.citation}): {shares}"
    if not best.met and not standing.may_hold_more:
        return Verdict.INSUFFICIENT, (
            f"not {now.explanation} ({now.citation}), even if every line in review counted: "
            + shares
        )
    return Verdict.UNDETERMINED, (
        f"{shares}; the lines in review, unread pages or a doubt about the petition decide it"
    )


def count_each_signer_once(judged: list[JudgedLine], citation: str) -> list[JudgedLine]:
    """A voter (or owner) who signed twice counts once: the first line (in sheet order) that is
    not invalid keeps the signer; a later line of that signer is invalid as a duplicate. While
    the first line waits for a person, a later one waits too: it counts if the first is
    rejected, and deciding it now would decide the first line's review. A line whose signer is
    one of several voters (SIGNER_ONE_OF) waits when another line may be one of them: which
    of the two is whose is a person's call; so does a line whose voter, or one of whose
    voters, is a candidate of an earlier line whose match waits for a person (fresh seed
    9898: a voter's second signature decided valid while the first, a handwritten name the
    matcher left to a person, had him among its candidates; truth has the second a
    duplicate; fresh seed 9954, the same with the second's name read unsure, one of him and
    his housemates: SIGNER_ONE_OF, decided valid). A line whose name was read
    unsure (FIELD_LOW_CONFIDENCE on it) is not proved a duplicate by the voter it was matched
    to, the likeliest of those its name may be: it waits (fresh seed 9906: "Peggy P
    Willowmere" resolved at 0.60 as her housemate Bert, who signed an earlier sheet, was
    decided invalid as his duplicate)."""
    claims = Counter(
        v
        for j in judged
        if j.status not in (LineStatus.INVALID, LineStatus.BLANK)
        for v in _possible_signers(j)
    )
    first: dict[str, JudgedLine] = {}
    # the voters an earlier line in review may be (its match undecided): their candidates
    maybe: dict[str, JudgedLine] = {}
    out = []
    for j in judged:
        for v in _candidates_in_review(j):
            maybe.setdefault(v, j)
        if _one_of(j) and j.status not in (LineStatus.INVALID, LineStatus.BLANK):
            either = _possible_signers(j)
            if any(claims[v] > 1 or v in maybe for v in either):
                j = _one_of_shared(j, either, citation)
            for v in either:
                first.setdefault(v, j)
            out.append(j)
            continue
        if j.voter_id is None or j.status in (LineStatus.INVALID, LineStatus.BLANK):
            out.append(j)
            continue
        voter = j.voter_id
        earlier = first.get(voter) or maybe.get(voter)
        if earlier is None:
            first[voter] = j
            out.append(j)
            continue
        where = f"sheet {earlier.sheet_number or '?'} line {earlier.line.line_no}"
        # the line's own name read unsure: its voter is the likeliest of several, no proof
        # (until a person has said whose it is)
        unsure = j.decision is None and _name_in_doubt(j.findings)
        pending = earlier.status is LineStatus.NEEDS_REVIEW or unsure
        dup = finding(
            "DUPLICATE_SIGNER",
            Severity.REVIEW if pending else Severity.FATAL,
            citation,
            _duplicate_message(where, earlier, unsure=unsure, pending=pending),
            page_id=j.line.page_id,
            line_no=j.line.line_no,
            voter_id=voter,
            first_line_id=earlier.line.line_id,
        )
        status = LineStatus.NEEDS_REVIEW if pending else LineStatus.INVALID
        j = replace(j, status=status, findings=j.findings + (dup,))
        # (waiting on a line that may be the voter, it is the voter's first line if that one
        # is not: a later line of the voter waits on it)
        first.setdefault(voter, j)
        out.append(j)
    return out


def _duplicate_message(where: str, earlier: JudgedLine, *, unsure: bool, pending: bool) -> str:
    """Why a line is (or may be) the duplicate of the earlier line at `where`."""
    if unsure:
        return f"the name, read unsure, may be that of the signer of {where}: a person says who"
    if pending and earlier.voter_id:
        return (
            f"the same signer also signed on {where}, which is in review: this line counts "
            "only if that one is rejected"
        )
    if pending:
        return f"the signer of {where}, in review, may be this line's: a person says who"
    return f"the same signer already signed on {where}"


def _candidates_in_review(j: JudgedLine) -> tuple[str, ...]:
    """The voters a line in review whose match is undecided may be: its match's candidates."""
    if j.status is not LineStatus.NEEDS_REVIEW or j.match is None or j.voter_id:
        return ()
    if j.match.decision is not MatchDecision.REVIEW:
        return ()
    return tuple(c.voter_id for c in j.match.candidates)


def _one_of(j: JudgedLine) -> bool:
    """A line decided as one of several voters, not which (SIGNER_ONE_OF)."""
    return j.match is not None and any(f.code == "SIGNER_ONE_OF" for f in j.findings)


def _possible_signers(j: JudgedLine) -> tuple[str, ...]:
    """The voters a line may be: those SIGNER_ONE_OF names, or its matched voter."""
    if _one_of(j):
        assert j.match is not None
        return j.match.one_of
    return (j.voter_id,) if j.voter_id else ()


def _one_of_shared(j: JudgedLine, either: Sequence[str], citation: str) -> JudgedLine:
    """A SIGNER_ONE_OF line one of whose voters another line may be too: it waits."""
    dup = finding(
        "DUPLICATE_SIGNER",
        Severity.REVIEW,
        citation,
        "the signer is one of " + ", ".join(either) + ", and another line of the petition may "
        "be one of them too: a person says who signed which",
        page_id=j.line.page_id,
        line_no=j.line.line_no,
        voters=list(either),
    )
    return replace(j, status=LineStatus.NEEDS_REVIEW, findings=j.findings + (dup,))


def _about_the_petition(findings: Sequence[Finding]) -> tuple[str, str]:
    """The petition's own fatal defects and doubts (not a sheet's or a line's), as text."""
    whole = [f for f in findings if f.page_id is None]

    def text(severity: Severity) -> str:
        return "; ".join(f"{f.message} ({f.citation})" for f in whole if f.severity is severity)

    return text(Severity.FATAL), text(Severity.REVIEW)


@dataclass(frozen=True, slots=True)
class _CountDoubt:
    required_at_most: int  # the threshold if every unread row of the denominator's register counted
    valid_in_doubt: int  # valid lines whose voter's rows disagree
    could_be_found: int  # invalid lines whose signer may be on an unread row
    register: RegisterDoubt


def _doubt_text(doubt: RegisterDoubt, what: str) -> str:
    parts = []
    if doubt.unread_rows or doubt.denominator_rows:
        parts.append(
            f"{max(doubt.unread_rows, doubt.denominator_rows)} row(s) of {what} could not be read"
        )
    if doubt.conflicting_ids:
        parts.append(f"{len(doubt.conflicting_ids)} id(s) of {what} have rows that disagree")
    return (
        " and ".join(parts)
        + " (REGISTER_BAD_ROWS, REGISTER_CONFLICTING_IDS): the verdict depends on them"
    )


# Petition-level findings that keep any verdict from being decided (not only "sufficient"):
# what they leave open could move the count either way.
BLOCKING = frozenset({"DECISIONS_UNMATCHED", "DENOMINATOR_IMPLAUSIBLE"})


def _blocking(findings: Sequence[Finding]) -> str:
    return "; ".join(f.message for f in findings if f.code in BLOCKING)


def _unmatched_decisions(
    decisions: Mapping[str, ReviewDecision], judged: Sequence[JudgedLine], sheets: Sequence[Sheet]
) -> list[Finding]:
    """A reviewer's decision for a line id that is in no sheet of the case (or a sheet's page
    id that is no sheet of it) was not applied: said, never ignored (a re-scanned sheet, a
    decision file from another case)."""
    ids = {j.line.line_id for j in judged} | {s.page.page_id for s in sheets}
    unmatched = sorted(lid for lid in decisions if lid not in ids)
    if not unmatched:
        return []
    return [
        finding(
            "DECISIONS_UNMATCHED",
            Severity.REVIEW,
            "",
            f"{len(unmatched)} reviewer decision(s) name a line id that is in no sheet of this "
            f"case and were NOT applied (first: {unmatched[0]}): check the decisions file "
            "belongs to this case and its sheets were not re-scanned",
            count=len(unmatched),
            line_ids=unmatched[:50],
        )
    ]


def _no_threshold(threshold: Threshold) -> list[Finding]:
    """A count of 0 signatures required is no threshold at all: a wrong date or denominator."""
    if not isinstance(threshold, SignatureCount) or threshold.required > 0:
        return []
    return [
        finding(
            "DENOMINATOR_IMPLAUSIBLE",
            Severity.REVIEW,
            "",
            f"the threshold is {threshold.required} signatures (denominator "
            f"{threshold.denominator}): check the case file's dates and [denominator]",
            denominator=threshold.denominator,
        )
    ]


def _may_hold_more(standing: Standing) -> str:
    """What may hold signatures the count has not seen."""
    parts = []
    if standing.file_errors or standing.unread:
        parts.append(
            f"{len(standing.file_errors)} file(s) and {len(standing.unread)} page(s) could not "
            "be read and may hold more"
        )
    if standing.laid_out_in_doubt:
        parts.append(
            f"{len(standing.laid_out_in_doubt)} sheet(s) whose layout was not read with "
            "confidence may have rows the reader missed (LAYOUT_DOUBT)"
        )
    return "; ".join(parts)


def _verdict(standing: Standing, required: int, doubt: _CountDoubt) -> tuple[Verdict, str]:
    """The verdict by the count: sufficient only if enough lines are surely valid whatever the
    lines in review and the register's doubtful rows turn out to be; insufficient only if not
    even all of them would be enough; else undetermined, with what decides it."""
    totals, petition_findings = standing.totals, standing.about_petition
    fatal, doubts = _about_the_petition(petition_findings)
    if fatal:
        return Verdict.INSUFFICIENT, fatal
    valid, review = totals.valid, totals.needs_review
    blocking = _blocking(petition_findings)
    if blocking:
        return Verdict.UNDETERMINED, (
            f"{valid} valid signatures, {required} required, but a person must decide first: "
            f"{blocking}"
        )
    if doubts and valid + review >= required:
        return Verdict.UNDETERMINED, (
            f"{valid} valid signatures, {required} required, but a person must decide about "
            f"the petition itself: {doubts}"
        )
    surely_valid = valid - doubt.valid_in_doubt
    if surely_valid >= doubt.required_at_most:
        return Verdict.SUFFICIENT, (
            f"{valid} valid signatures, {required} required: {valid - required} above the "
            f"threshold whatever the {review} lines in review turn out to be"
        )
    if valid >= required:
        return Verdict.UNDETERMINED, (
            f"{valid} valid signatures, {required} required, but "
            f"{_doubt_text(doubt.register, 'the register')} (at most "
            f"{doubt.required_at_most} required, {surely_valid} valid whatever they hold)"
        )
    if standing.may_hold_more:
        return Verdict.UNDETERMINED, (
            f"{valid} valid signatures, {required} required; {_may_hold_more(standing)}: "
            "check them by hand"
        )
    if valid + review + doubt.could_be_found < required:
        return Verdict.INSUFFICIENT, (
            f"{valid} valid signatures, {required} required: even if all {review} lines in "
            f"review were valid the petition would be {required - valid - review} short"
        )
    if valid + review < required:
        return Verdict.UNDETERMINED, (
            f"{valid} valid signatures, {required} required, but "
            f"{_doubt_text(doubt.register, 'the register')}: up to {doubt.could_be_found} "
            "signers found not registered may be on them"
        )
    return Verdict.UNDETERMINED, (
        f"{valid} valid signatures, {required} required: the {review} lines in review decide "
        f"it (at least {required - valid} of them must be valid)"
    )
