"""Varied synthetic 9-902 petitions, as hard as real ones: the corpus's planner.

`generate_case(..., variation=Variation())` uses this instead of the demo's fixed layout. A
varied case has sheets of 5 to 20 rows with blank rows at the foot, columns that differ from
case to case (a printed-name column or not, ward and election-district columns or not, titles
in several spellings), entries in handwriting-style fonts with jitter, dates as people write
them, nicknames on the sheet (Bill for a register's William), hyphenated surnames, and defects
planted with the pipeline's finding codes, each with the status the rules of
`pipeline/rules/village_9902.py` give it (README, "What is checked"):

- line, fatal: SIGNER_NOT_REGISTERED, SIGNER_PURGED, SIGNER_OUTSIDE_VILLAGE, LINE_UNDATED,
  DATE_AFTER_FILING, DUPLICATE_SIGNER, NO_SIGNATURE, RESIDENCE_MISSING
- line, review: DATE_BEFORE_ADOPTION, DATE_AFTER_WITNESS_DATE, ELECTION_DISTRICT_MISSING
- sheet, review (every signed line of the sheet waits): WITNESS_COUNT_MISMATCH,
  WITNESS_NAME_MISSING, WITNESS_RESIDENCE_MISSING, WITNESS_DATE_MISSING, WITNESS_NOT_OF_VILLAGE
  (an unqualified witness: lives in another village), SHEET_NUMBER_MISSING,
  SHEET_NUMBER_DUPLICATE
- sheet, fatal (every signed line falls): WITNESS_NOT_SIGNED
- petition, note: SHEET_NUMBERING_GAP

Targets: "sufficient", "insufficient", "undetermined", and "just-above" / "just-below" (the
valid lines equal the required number or one more; one or two short, with no line in review).
The number of sheets follows from the target and the rows drawn.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.columns import role_field

from .handwriting import Hand, available_fonts, pick_hand
from .layouts import draw_layout, families, hand_fonts_for, max_rows
from .people import NICKNAMES, Village, Voter, unregistered_signer
from .sheets import CLASSIC, COLUMNS, LinePlan, SheetPlan, WitnessPlan
from .truth import LineTruth, format_date

__all__ = [
    "LINE_FATAL",
    "LINE_REVIEW",
    "SHEET_FATAL",
    "SHEET_REVIEW",
    "VARIED_TARGETS",
    "Planned",
    "Variation",
    "pick_columns",
    "plan_varied",
]

VARIED_TARGETS = ("sufficient", "insufficient", "undetermined", "just-above", "just-below")
LINE_FATAL = (
    "SIGNER_NOT_REGISTERED",
    "SIGNER_PURGED",
    "SIGNER_OUTSIDE_VILLAGE",
    "LINE_UNDATED",
    "DATE_AFTER_FILING",
    "DUPLICATE_SIGNER",
    "NO_SIGNATURE",
    "RESIDENCE_MISSING",
)
LINE_REVIEW = ("DATE_BEFORE_ADOPTION", "DATE_AFTER_WITNESS_DATE", "ELECTION_DISTRICT_MISSING")
SHEET_REVIEW = (
    "WITNESS_COUNT_MISMATCH",
    "WITNESS_NAME_MISSING",
    "WITNESS_RESIDENCE_MISSING",
    "WITNESS_DATE_MISSING",
    "SHEET_NUMBER_MISSING",
    "SHEET_NUMBER_DUPLICATE",
    "WITNESS_NOT_OF_VILLAGE",
)
# Where a witness who does not live in the village says they live (an invented village).
_OTHER_VILLAGE = "Harrow Glen"
SHEET_FATAL = ("WITNESS_NOT_SIGNED",)
GAP = "SHEET_NUMBERING_GAP"
_PROPOSITION = "Local Law No. 3 of 2026, a local law amending the zoning code"
_FIELDS = ("date", "signature", "name", "residence", "ward", "election_district")


@dataclass(frozen=True, slots=True)
class Variation:
    """What a varied case varies. The defaults make the corpus's cases."""

    rows: tuple[int, int] = (5, 20)  # rows a sheet, inclusive
    handwriting: bool = True  # entries in handwriting fonts (else Helvetica, as the demo)
    system_fonts: bool = True  # use the installed handwriting fonts (False: built-ins only)
    vary_columns: bool = True  # column sets and titles vary from case to case
    nicknames: bool = True  # some signers write a nickname; some surnames are hyphenated
    line_defects: bool = True
    sheet_defects: bool = True
    # The witness statement's blanks (name, residence, village, county, count) written by hand
    # too; off by default so that the committed sample (fixtures/corpus-sample) is unchanged.
    written_statement: bool = False
    # Which handwriting fonts: "all", or a part of the fixed split, "dev" or "heldout"
    # (synth.handwriting.font_part).
    fonts: str = "all"
    # Layout families (synth/layouts.py) the case's sheets are set in: "dev",
    # "heldout", or None for the classic form only (the committed sample's); a corpus also
    # takes "both" (its cases alternate).
    layouts: str | None = None

    def as_json(self) -> dict[str, object]:
        """As truth.json and index.json record it; `written_statement` and `layouts` only when
        set, so the truth of a case made without them is what it was before they existed."""
        out = dataclasses.asdict(self)
        if not self.written_statement:
            del out["written_statement"]
        if self.fonts == "all":
            del out["fonts"]
        if self.layouts is None:
            del out["layouts"]
        return out


@dataclass(frozen=True, slots=True)
class Planned:
    """One sheet as planned: what is drawn, what each row is, and the sheet's own defects."""

    plan: SheetPlan
    lines: tuple[LineTruth, ...]
    witness_date: dt.date | None
    defects: tuple[str, ...]


@dataclass(slots=True)
class _Draft:
    kind: str  # "clean" or the sheet defect it carries
    filled: int
    rows: int
    number: int | None = None


def pick_columns(rng: random.Random) -> tuple[tuple[str, str, float], ...]:
    """A column set as some village's printed form has it: titles in one of several spellings,
    a printed-name column or not, ward and election-district columns or not. Widths add up
    to the demo's table width (540 pt)."""
    widths = {"date": 60.0, "signature": 118.0, "name": 118.0, "residence": 136.0}
    titles = {
        "date": rng.choice(("Date", "Date Signed", "Date of\nSigning")),
        "signature": rng.choice(("Signature", "Signature of Signer", "Signature of\nSigner")),
        "name": rng.choice(("Printed Name", "Print Name", "Name Printed")),
        "residence": rng.choice(("Residence", "Residence Address", "Present Residence")),
        "ward": rng.choice(("Ward\n(if any)", "Ward")),
        "election_district": rng.choice(
            ("Village Election\nDistrict\n(if any)", "E.D.", "Election\nDistrict")
        ),
    }
    if rng.random() < 0.4:
        del widths["name"]
        widths["signature"] += 48
        widths["residence"] += 70
    if rng.random() < 0.5:
        widths["ward"] = 42.0
    else:
        widths["residence"] += 42
    if rng.random() < 0.7:
        widths["election_district"] = 66.0
    else:
        widths["residence"] += 36
        widths["signature"] += 30
    return tuple((titles[f], f, widths[f]) for f in _FIELDS if f in widths)


def _style(rng: random.Random, with_year: bool = False) -> str:
    styles = ("long", "short", "words", "dashes", "full", "month-day")
    weights = (4, 4, 1, 2, 1, 0 if with_year else 1)
    return rng.choices(styles, weights=weights)[0]


def _valid_target(rng: random.Random, target: str, required: int) -> tuple[int, int | None, int]:
    """(valid lines, the most lines in review allowed or None, the fewest needed)."""
    if target == "sufficient":
        return required + rng.randint(2, 8), None, 0
    if target == "just-above":
        return required + rng.randint(0, 1), None, 0
    if target == "just-below":
        return max(0, required - rng.randint(1, 2)), 0, 0
    if target == "insufficient":
        valid = max(1, required * rng.randint(40, 70) // 100)
        return valid, max(0, required - valid - 1), 0
    valid = max(0, required - rng.randint(1, 4))
    return valid, None, required - valid


def _registered_before(day: dt.date) -> Callable[[Voter], bool]:
    return lambda v: v.reg_date < day


def _line(fields: dict[str, str], drawn: set[str], town: str = "") -> LinePlan:
    """A row's plan: the fields its columns show. With a town column the residence is the
    street and the town, as the reader joins them ("12 Oak St, Elmwood Falls")."""
    if town and fields.get("residence"):
        fields = fields | {"residence": f"{fields['residence']}, {town}"}
    return LinePlan(tuple((f, fields.get(f, "")) for f in _FIELDS if f in drawn))


def plan_varied(
    rng: random.Random,
    voters: Sequence[Voter],
    village: Village,
    required: int,
    target: str,
    variation: Variation,
    *,
    adopted: dt.date,
    filed: dt.date,
) -> tuple[list[Planned], tuple[str, ...]]:
    """Plan a varied case's sheets in filing order; also the petition-level defects."""
    if target not in VARIED_TARGETS:
        raise ValueError(f"target must be one of {', '.join(VARIED_TARGETS)}, not {target!r}")
    lo, hi = variation.rows
    if not 2 <= lo <= hi:
        raise ValueError("rows must be (lo, hi) with 2 <= lo <= hi")
    fonts = (
        available_fonts(variation.system_fonts, variation.fonts) if variation.handwriting else ()
    )
    columns = pick_columns(rng) if variation.vary_columns else COLUMNS
    layout = CLASSIC
    if variation.layouts is not None:
        family = rng.choice(families(variation.layouts))
        layout, columns = draw_layout(rng, family, columns)
        fonts = (
            hand_fonts_for(variation.system_fonts, variation.fonts, layout.split) if fonts else ()
        )
        hi = min(hi, max_rows(layout))
        lo = min(lo, hi)
    roles = {r for _, r, _ in columns}
    drawn = {f for r in roles if (f := role_field(r)) is not None}
    if "signature_residence" in roles:  # one cell holds both
        drawn.add("residence")
    town = village.village if "town" in roles else ""
    first_sign = adopted + dt.timedelta(days=1)
    last_sign = filed - dt.timedelta(days=1)

    valid_n, review_cap, review_min = _valid_target(rng, target, required)

    # -- what is planted --------------------------------------------------------------------
    line_codes: list[str] = []
    if variation.line_defects:
        line_codes = rng.sample(LINE_FATAL, k=rng.randint(3, len(LINE_FATAL)))
        review_pool = [c for c in LINE_REVIEW if c != "ELECTION_DISTRICT_MISSING"]
        if "election_district" in drawn and village.village_eds:
            review_pool.append("ELECTION_DISTRICT_MISSING")
        n_review = rng.randint(0, 2)
        if review_cap is not None:
            n_review = min(n_review, review_cap)
        line_codes += rng.sample(review_pool, k=n_review)
    if valid_n == 0 and "DUPLICATE_SIGNER" in line_codes:
        line_codes.remove("DUPLICATE_SIGNER")
    review_used = sum(c in LINE_REVIEW for c in line_codes)

    drafts: list[_Draft] = []
    gap = False
    if variation.sheet_defects:
        chosen = rng.sample(SHEET_REVIEW + SHEET_FATAL + (GAP,), k=rng.randint(1, 3))
        for sheet_kind in chosen:
            if sheet_kind == GAP:
                gap = True
                continue
            pair = 2 if sheet_kind == "SHEET_NUMBER_DUPLICATE" else 1
            n = rng.randint(2, 6)
            if sheet_kind in SHEET_REVIEW and review_cap is not None:
                n = min(n, (review_cap - review_used) // pair)
                if n < 1:
                    continue
            for _ in range(pair):
                drafts.append(_Draft(sheet_kind, n, rng.randint(max(lo, n), max(hi, n))))
            if sheet_kind in SHEET_REVIEW:
                review_used += n * pair
    while review_used < review_min:  # undetermined: enough lines in review to decide it
        n = min(review_min - review_used, hi)
        drafts.append(_Draft("WITNESS_COUNT_MISMATCH", n, rng.randint(max(lo, n), max(hi, n))))
        review_used += n

    remaining = valid_n + len(line_codes)
    while remaining > 0:
        n_rows = rng.randint(lo, hi)
        blanks = rng.choice((0, 1, 1, 2, 3, 5))
        filled = max(1, min(remaining, n_rows - blanks))
        drafts.append(_Draft("clean", filled, n_rows))
        remaining -= filled
    if not drafts:
        drafts.append(_Draft("clean", 0, rng.randint(lo, hi)))

    # Filing order: shuffled, the two sheets of a duplicate number side by side.
    units: list[list[_Draft]] = []
    for d in drafts:
        if d.kind == "SHEET_NUMBER_DUPLICATE" and units and units[-1][0].kind == d.kind:
            units[-1].append(d)
        else:
            units.append([d])
    rng.shuffle(units)
    order = [d for unit in units for d in unit]
    numberable = [
        i
        for i, d in enumerate(order)
        if d.kind != "SHEET_NUMBER_MISSING"
        and not (i > 0 and d.kind == "SHEET_NUMBER_DUPLICATE" == order[i - 1].kind)
    ]
    gap_at = rng.choice(numberable) if gap and numberable else None
    counter = 0
    for i, d in enumerate(order):
        if d.kind == "SHEET_NUMBER_MISSING":
            continue
        if i > 0 and d.kind == "SHEET_NUMBER_DUPLICATE" == order[i - 1].kind:
            d.number = order[i - 1].number
            continue
        counter += 2 if i == gap_at else 1
        d.number = counter
    petition_defects = (GAP,) if gap_at is not None else ()
    # The order the judge counts lines in: by printed number, unnumbered sheets last.
    judge_order = sorted(
        range(len(order)), key=lambda i: (order[i].number is None, order[i].number or 0, i)
    )

    # -- who signs --------------------------------------------------------------------------
    eligible = [
        v
        for v in voters
        if v.ed in village.village_eds and v.status in ("A", "I") and v.reg_date < first_sign
    ]
    rng.shuffle(eligible)
    wanted: tuple[Callable[[Voter], bool], ...] = (
        lambda v: v.status == "I",
        lambda v: bool(v.half_code),
        lambda v: bool(v.apartment),
        lambda v: bool(v.suffix),
        lambda v: "-" in v.last_name,
    )
    front: list[Voter] = []
    for test in wanted:
        hit = next((v for v in eligible if test(v) and v not in front), None)
        if hit is not None:
            front.append(hit)
    pool = front + [v for v in eligible if v not in front]
    special = {v.sboeid for v in front}
    purged = [v for v in voters if v.status == "P" and v.ed in village.village_eds]
    outside = [v for v in voters if v.ed not in village.village_eds and v.status == "A"]
    registered = {(v.first_name, v.last_name) for v in voters}

    def take(test: Callable[[Voter], bool] = lambda v: True, plain: bool = False) -> Voter | None:
        for k, v in enumerate(pool):
            if test(v) and not (plain and v.sboeid in special):
                return pool.pop(k)
        return None

    def must(v: Voter | None) -> Voter:
        if v is None:
            raise ValueError("village_size is too small for this many signed lines")
        return v

    # Line defects on the clean sheets' rows: the duplicate on the last row counted, the rest
    # anywhere; nicknames on a few of the valid rows.
    clean_slots = [
        (i, r) for i in judge_order if order[i].kind == "clean" for r in range(order[i].filled)
    ]
    slot_code: dict[tuple[int, int], str] = {}
    codes = list(line_codes)
    if "DUPLICATE_SIGNER" in codes and len(clean_slots) >= 2:
        slot_code[clean_slots[-1]] = "DUPLICATE_SIGNER"
        codes.remove("DUPLICATE_SIGNER")
    elif "DUPLICATE_SIGNER" in codes:
        codes.remove("DUPLICATE_SIGNER")
    free = [s for s in clean_slots if s not in slot_code]
    # Keep the first clean row valid, so a duplicate has a line to repeat.
    spots = rng.sample(free[1:], k=min(len(codes), max(0, len(free) - 1)))
    for planted, slot in zip(codes, spots, strict=False):
        slot_code[slot] = planted
    valid_slots = [s for s in clean_slots if s not in slot_code]
    nick_slots: set[tuple[int, int]] = set()
    if variation.nicknames and len(valid_slots) > 1:  # never the first: a duplicate repeats it
        k = min(len(valid_slots) - 1, rng.randint(1, 3))
        nick_slots = set(rng.sample(valid_slots[1:], k=k))

    planned: dict[int, Planned] = {}
    first_valid: list[Voter] = []
    for i in judge_order:
        d = order[i]
        sheet_code: str | None = None if d.kind == "clean" else d.kind
        base_dates = sorted(
            first_sign + dt.timedelta(days=rng.randint(0, (last_sign - first_sign).days))
            for _ in range(d.filled)
        )
        normal = [
            base_dates[r]
            for r in range(d.filled)
            if slot_code.get((i, r))
            not in ("DATE_AFTER_FILING", "DATE_BEFORE_ADOPTION", "DATE_AFTER_WITNESS_DATE")
        ]
        witness_date: dt.date | None = min(
            last_sign, (max(normal) if normal else first_sign) + dt.timedelta(rng.randint(0, 1))
        )
        sheet_lines: list[LineTruth] = []
        hands: list[Hand | None] = []
        for r in range(d.filled):
            code = slot_code.get((i, r))
            if code == "DUPLICATE_SIGNER" and not first_valid:
                code = None  # nobody to repeat: an ordinary line instead
            signed_on = base_dates[r]
            with_year = False
            codes_here: tuple[str, ...] = (code,) if code else ()
            if code == "DATE_AFTER_FILING":
                signed_on = filed + dt.timedelta(days=rng.randint(1, 4))
                with_year = True
                codes_here = (code, "DATE_AFTER_WITNESS_DATE")
            elif code == "DATE_BEFORE_ADOPTION":
                signed_on = adopted - dt.timedelta(days=rng.randint(1, 25))
                with_year = True
            elif code == "DATE_AFTER_WITNESS_DATE" and witness_date is not None:
                signed_on = witness_date + dt.timedelta(
                    days=rng.randint(1, max(1, (filed - witness_date).days))
                )
            when = format_date(signed_on, _style(rng, with_year))
            nick = ""
            voter: Voter | None
            if code == "SIGNER_NOT_REGISTERED":
                voter = None
                name, residence, ed = unregistered_signer(rng, registered, village)
                fields = {
                    "date": when,
                    "signature": name,
                    "name": name,
                    "residence": residence,
                    "ward": village.ward_of(ed),
                    "election_district": ed,
                }
            else:
                if code == "SIGNER_PURGED":
                    voter = rng.choice(purged)
                elif code == "SIGNER_OUTSIDE_VILLAGE":
                    voter = rng.choice(outside)
                elif code == "DUPLICATE_SIGNER":
                    voter = rng.choice(first_valid)
                elif (i, r) in nick_slots:
                    voter = take(lambda v: v.first_name in NICKNAMES and not v.suffix)
                    if voter is not None:
                        nick = rng.choice(NICKNAMES[voter.first_name])
                    else:
                        voter = must(take())
                elif code == "DATE_BEFORE_ADOPTION":
                    voter = must(take(_registered_before(signed_on), plain=True))
                else:
                    voter = must(take(plain=code is not None or sheet_code is not None))
                printed = voter.printed_name
                if nick:
                    printed = printed.replace(voter.first_name, nick, 1)
                fields = {
                    "date": when,
                    "signature": printed,
                    "name": printed,
                    "residence": voter.residence,
                    "ward": voter.ward,
                    "election_district": voter.ed,
                }
            if code == "LINE_UNDATED":
                fields["date"] = ""
            elif code == "NO_SIGNATURE":
                fields["signature"] = ""
            elif code == "RESIDENCE_MISSING":
                fields["residence"] = ""
            elif code == "ELECTION_DISTRICT_MISSING":
                fields["election_district"] = ""
            if code in LINE_FATAL:
                status = "invalid"
            elif code in LINE_REVIEW:
                status = "needs_review"
            elif sheet_code in SHEET_FATAL:
                status, codes_here = "invalid", (sheet_code,)
            elif sheet_code is not None:
                status, codes_here = "needs_review", (sheet_code,)
            else:
                status = "valid"
            if status == "valid" and voter is not None and not nick:
                first_valid.append(voter)
            notes = (f"nickname: {nick} for {voter.first_name}",) if nick and voter else ()
            sheet_lines.append(
                LineTruth(
                    _line(fields, drawn, town),
                    voter.sboeid if voter is not None else None,
                    codes_here,
                    status,
                    notes,
                )
            )
            hands.append(pick_hand(rng, fonts) if fonts else None)
        empty = _line({}, drawn)
        sheet_lines.extend(LineTruth(empty, None, (), "blank") for _ in range(d.rows - d.filled))
        hands.extend(None for _ in range(d.rows - d.filled))

        wv = must(take(plain=True))
        stated = d.filled
        if d.kind == "WITNESS_COUNT_MISMATCH":
            stated = d.filled + rng.choice((-2, -1, 1, 2))
            if stated <= 0:
                stated = d.filled + 1
        if d.kind == "WITNESS_DATE_MISSING":
            witness_date = None
        witness = WitnessPlan(
            name="" if d.kind == "WITNESS_NAME_MISSING" else wv.printed_name,
            residence="" if d.kind == "WITNESS_RESIDENCE_MISSING" else wv.residence,
            stated_count=str(stated),
            date_text=format_date(witness_date, _style(rng)) if witness_date else "",
            signature="" if d.kind == "WITNESS_NOT_SIGNED" else wv.printed_name,
            village=_OTHER_VILLAGE if d.kind == "WITNESS_NOT_OF_VILLAGE" else None,
        )
        plan = SheetPlan(
            number=d.number,
            village=village.village,
            county=village.county,
            proposition=_PROPOSITION,
            lines=tuple(t.plan for t in sheet_lines),
            witness=witness,
            columns=columns,
            hands=tuple(hands) if fonts else None,
            witness_hand=pick_hand(rng, fonts) if fonts else None,
            jitter_seed=rng.randrange(2**31),
            written_statement=variation.written_statement,
            layout=layout,
            of=len(order) if layout is not CLASSIC else None,
        )
        sheet_defects = () if sheet_code is None else (sheet_code,)
        planned[i] = Planned(plan, tuple(sheet_lines), witness_date, sheet_defects)
    return [planned[i] for i in range(len(order))], petition_defects
