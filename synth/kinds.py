"""Synthetic cases for the other petition kinds, with their ground truth.

Three kinds, each a case folder (case.toml, register.csv and/or roll.csv, sheets/*.pdf,
truth.json, README.md), deterministic from a seed:

- `independent_nomination`: the village independent nominating petition, the statement of
  witness in the version in force on its date (before 2017-11-22: with village and county) or
  the notary's statement; the threshold from the population (subdivision 4).
- `improvement_district`: Town Law § 191, signed by owners on an assessment roll (our CSV
  layout), sufficient on the valuation (at least one-half; resident owners).
- `incorporation`: Village Law § 2-202 (seed text), by owners (more than fifty percent of the
  assessed valuation; exempt property counts) or by residents (20% of those qualified to vote).

The truth is written from what the generator planted, with its own arithmetic of the statutes
(never by running the pipeline): every line's fields, the register or roll id it belongs to, its
planted defects and expected status; the expected totals and verdict. Owner ids are the roll
reader's `owner_id(owner_name, mailing_address)`.

Each case comes typed (every entry in Helvetica: the committed fixtures/kinds/) or, with
`handwriting=True` (`--handwriting`), filled in by hand: the same signers, defects and verdict,
every entry in its signer's handwriting font with jitter in size, slant and baseline, the
signature in a script font, the dates as people write them (3/4/26, 03-04-2026, March 4), and
the statement's blanks (name, residence, count, village, county, date, signature; the jurat's
day and month) in the witness's or officer's hand. The truth then records each row's box and
the font of every field and blank. The fonts are Debian's (synth/handwriting.py);
without them the built-in Helvetica stands in, and the truth says so.

    python -m synth.kinds --kind improvement_district --variant sufficient --seed 7 \\
        --out DIR [--handwriting]

Synthetic: no real person's data.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any

from matchers.assessment_roll import owner_id

from .handwriting import Hand, HandFont, Stroke, available_fonts, pick_hand
from .kinds_draw import KIND_CLASSIC, Foot, Grid, PageLayout, PagePlan, PageStyle, write_pages
from .kinds_people import (
    AWAY_CITIES,
    AWAY_STREETS,
    OUTSIDE_STREETS,
    SURNAMES,
    VILLAGE_STREETS,
    NamePool,
    Owner,
    Parcel,
    Voter,
    rand_date,
    write_register,
    write_roll,
)
from .truth import MONTHS, format_date

__all__ = [
    "KINDS",
    "TRUTH_SCHEMA",
    "VARIANTS",
    "generate_kind",
    "main",
]

log = logging.getLogger(__name__)

TRUTH_SCHEMA = "petitions-truth/1"
EMPTY_BLANK = ".................."  # a blank of the printed statement left empty
FATAL, REVIEW = "fatal", "review"

VARIANTS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "independent_nomination": (
            "sufficient",
            "old-form",
            "insufficient",
            "party-name",
            "small-committee",
            "just-enough",
            "one-short",
            "sheet-defects",
            "witness-defects",
        ),
        "improvement_district": (
            "sufficient",
            "insufficient",
            "exactly-half",
            "resident-short",
            "witness-defects",
        ),
        "incorporation": (
            "owners-sufficient",
            "owners-exactly-half",
            "owners-two-towns",
            "residents",
        ),
    }
)
KINDS = tuple(VARIANTS)
# The signature table's fields per kind, in column order (the widest set a variant prints).
KIND_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "independent_nomination": ("date", "signature", "residence"),
        "incorporation": ("date", "signature", "residence", "valuation"),
        "improvement_district": ("date", "signature", "name", "residence"),
    }
)

VILLAGE, TOWN, COUNTY, COUNTY_CODE, ZIP5 = "Elmwood Falls", "Greenfield", "Albany", "01", "12999"
TERRITORY = "Maple Ridge"  # the proposed village (2-202) and the district's hamlet (191)
SECOND_TOWN = "Oakdale"  # 2-202 owners-two-towns: part of the territory lies in it
ELSEWHERE = "Cedar Hollow"  # another village: a witness of it cannot witness (nomination)


def _rate(town: str) -> Fraction:
    """The towns' equalization rates (full value = assessed / rate)."""
    return Fraction(17, 20) if town == SECOND_TOWN else Fraction(1)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _us(d: dt.date) -> str:
    return f"{d.month:02d}/{d.day:02d}/{d.year}"


def _written(d: dt.date, rng: random.Random) -> str:
    """A line's date as a signer writes it."""
    style = rng.random()
    if style < 0.6:
        return _us(d)
    if style < 0.85:
        return f"{d.month}/{d.day}/{d.year % 100:02d}"
    return f"{MONTHS[d.month - 1][:3]} {d.day}, {d.year}"


def _money(x: Fraction) -> str:
    if x.denominator == 1:
        return f"${x.numerator:,}"
    return f"${float(x):,.2f}"


# ---------------------------------------------------------------------------------------------
# Lines, sheets and their expected statuses
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    """One filled row: canonical field -> text, in the table's column order."""

    fields: tuple[tuple[str, str], ...]
    voter_id: str | None  # the register entry or roll owner the signer is
    defects: tuple[tuple[str, str], ...] = ()  # (code, severity) planted on the line

    def get(self, name: str) -> str:
        return dict(self.fields).get(name, "")


@dataclass(frozen=True, slots=True)
class Statement:
    form: str  # "witness-new", "witness-old", "notary", "affidavit"
    name: str
    residence: str
    date: dt.date
    stated_count: int
    village: str = ""  # the old witness form's
    county: str = ""  # the old form's (and the affidavit's venue)
    town: str = ""  # the affidavit's
    date_text: str = ""  # the date as written by hand ("" typed: MM/DD/YYYY)
    name_blank: bool = False  # the witness signed but left the name blank empty
    date_blank: bool = False  # the witness left the date empty (the witness forms)
    unsigned: bool = False  # the witness did not sign the statement (the witness forms)


@dataclass(frozen=True, slots=True)
class SheetSpec:
    number: int
    number_text: str  # "Sheet No. 3" or "Page No. 3"
    lines: tuple[Line, ...]
    rows: int  # rows of the table; the rest of `lines` are blank
    statement: Statement
    defects: tuple[tuple[str, str], ...] = ()  # sheet-level: cascade onto each signed line
    # Handwritten: each filled line's hand, the statement's writer's, and the wobble's seed.
    hands: tuple[Hand, ...] | None = None
    statement_hand: Hand | None = None
    jitter_seed: int = 0


def _statuses(sheets: Sequence[SheetSpec]) -> list[list[tuple[tuple[str, ...], str]]]:
    """Per sheet, per filled line: (defect codes, expected status). A fatal defect makes the
    line invalid; a review one (its own or the sheet's) sends it to a person; a signer counts
    once: the first line of theirs that is not invalid keeps them, later ones are invalid."""
    out: list[list[tuple[tuple[str, ...], str]]] = []
    first: set[str] = set()
    for sheet in sorted(sheets, key=lambda s: s.number):
        rows = []
        for line in sheet.lines:
            defects = list(line.defects) + list(sheet.defects)
            severities = {sev for _, sev in defects}
            status = "invalid" if FATAL in severities else "needs_review" if defects else "valid"
            if status != "invalid" and line.voter_id is not None:
                if line.voter_id in first:
                    defects.append(("DUPLICATE_SIGNER", FATAL))
                    status = "invalid"
                else:
                    first.add(line.voter_id)
            rows.append((tuple(code for code, _ in defects), status))
        out.append(rows)
    return out


def _count_verdict(
    valid: int, review: int, required: int, petition_fatal: bool, petition_doubt: bool
) -> str:
    """The verdict of a kind counted in signatures (README "Verdict")."""
    if petition_fatal:
        return "insufficient"
    if petition_doubt and valid + review >= required:
        return "undetermined"
    if valid >= required:
        return "sufficient"
    if valid + review < required:
        return "insufficient"
    return "undetermined"


# ---------------------------------------------------------------------------------------------
# The statements at the foot
# ---------------------------------------------------------------------------------------------


def _foot(s: Statement) -> Foot:
    """The statement's printed words with its blanks ({name}, {residence}, {count}, ...) and
    what is written in them. `s.date_text`, when given, is the date as the witness wrote it."""
    name = EMPTY_BLANK if s.name_blank else s.name
    residence = s.residence or EMPTY_BLANK
    blanks = {"name": name, "residence": residence, "count": str(s.stated_count)}
    written = "" if s.date_blank else s.date_text or _us(s.date)
    signed = "" if s.unsigned else s.name
    if s.form == "witness-new":
        return Foot(
            heading="STATEMENT OF WITNESS",
            template=(
                "I, {name} state that I am a duly qualified voter of the State of New York.",
                "I now reside at {residence} (residence address). Each of the voters whose",
                "names are subscribed to this petition sheet containing {count} (fill in number) "
                "signatures,",
                "subscribed his or her name in my presence. I understand that this statement "
                "will be",
                "accepted for all purposes as the equivalent of an affidavit and, if it contains "
                "a material",
                "false statement, shall subject me to the same penalties as if I had been duly "
                "sworn.",
            ),
            blanks=tuple((blanks | {"date": written, "signature": signed}).items()),
            values=(written, signed),
            captions=("Date", "Signature of witness"),
        )
    if s.form == "witness-old":
        county = s.county or EMPTY_BLANK
        return Foot(
            heading="STATEMENT OF WITNESS",
            template=(
                "I, {name} state that I am a duly qualified voter and now reside at {residence}",
                "(residence address) in the Village of {village} in the State of New York in the",
                "County of {county} . Each of the voters whose names are subscribed to this "
                "petition sheet",
                "containing {count} (fill in number) signatures, subscribed his or her name in my "
                "presence.",
                "I understand that this statement will be accepted for all purposes as the "
                "equivalent of an",
                "affidavit and, if it contains a material false statement, shall subject me to "
                "the same",
                "penalties as if I had been duly sworn.",
            ),
            blanks=tuple(
                (
                    blanks
                    | {"village": s.village, "county": county}
                    | {"date": written, "signature": signed}
                ).items()
            ),
            values=(written, signed),
            captions=("Date", "Signature of witness"),
        )
    if s.form == "notary":
        signature = f"{s.name}, Notary Public"
        return Foot(
            template=(
                "On the dates above indicated before me personally came each of the voters whose",
                "signatures appear on this petition sheet containing {count} (fill in number) "
                "signatures, who",
                "signed same in my presence and who, being by me duly sworn, each for himself or "
                "herself,",
                "said that the foregoing statement made and subscribed by him or her, was true.",
            ),
            blanks=(("count", blanks["count"]), ("date", written), ("signature", signature)),
            values=(f"Date: {written}", signature),
            captions=("", "(Signature and official title of officer administering oath)"),
            date_label="Date:",
        )
    if s.form == "affidavit":
        return Foot(
            template=(
                "STATE OF NEW YORK",
                "COUNTY OF {county} ss.:",
                "{name} being duly sworn,",
                "says: I reside at {residence} in the Town of {town} in the State of New York:",
                "I know each of the persons whose names are subscribed to the above sheet",
                "having {count} signatures; and each of them subscribed the same in my presence.",
            ),
            blanks=tuple(
                (
                    blanks
                    | {"county": s.county, "town": s.town}
                    | {"day": _ordinal(s.date.day), "month": MONTHS[s.date.month - 1]}
                    | {"signature": s.name}
                ).items()
            ),
            jurat="Sworn to before me This {day} day of {month}, " + str(s.date.year),
            values=("", s.name),
            captions=("", "(signature of witness)"),
        )
    raise ValueError(f"unknown statement form {s.form!r}")


def _statement_truth(s: Statement) -> dict[str, Any]:
    """As the demo's truth gives the witness, plus the form; `date_text` is the date as
    printed (the jurat's words for the affidavit)."""
    foot = _foot(s)
    out: dict[str, Any] = {
        "form": s.form,
        "name": s.name if s.form != "notary" and not s.name_blank else "",
        "officer": s.name if s.form == "notary" else "",
        "residence": s.residence,
        "stated_count": s.stated_count,
        "date": "" if s.date_blank else s.date.isoformat(),
        "date_text": foot.filled(foot.jurat) if foot.jurat else foot.values[0],
        "signed": bool(foot.values[1]),
        "signature": foot.values[1],
    }
    if s.form == "witness-old":
        out |= {"village": s.village, "county": s.county}
    return out


# ---------------------------------------------------------------------------------------------
# Writing a case folder
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Columns:
    titles: tuple[str, ...]
    fields: tuple[str, ...]
    widths: tuple[float, ...]
    oblique: tuple[int, ...] = (1,)


@dataclass(frozen=True, slots=True)
class Drawn:
    """What a kind's planner hands to the writer."""

    title: str
    above: tuple[str, ...]
    columns: Columns
    sheets: tuple[SheetSpec, ...]
    case_toml: str
    between: tuple[str, ...] = ()
    aside: Grid | None = None
    style: PageStyle = KIND_CLASSIC


def _page(d: Drawn, sheet: SheetSpec) -> PagePlan:
    rows = [tuple(line.get(f) for f in d.columns.fields) for line in sheet.lines]
    rows += [("",) * len(d.columns.fields)] * (sheet.rows - len(sheet.lines))
    hands: tuple[Hand | None, ...] | None = None
    if sheet.hands is not None:
        hands = (*sheet.hands, *(None,) * (sheet.rows - len(sheet.lines)))
    return PagePlan(
        title=d.title,
        above=d.above,
        signatures=Grid(
            tuple(
                d.style.title(f, k) for f, k in zip(d.columns.fields, d.columns.titles, strict=True)
            ),
            d.columns.widths,
            tuple(rows),
            d.columns.oblique,
        ),
        foot=_foot(sheet.statement),
        number_text=sheet.number_text,
        between=d.between,
        aside=d.aside,
        fields=d.columns.fields,
        hands=hands,
        statement_hand=sheet.statement_hand,
        jitter_seed=sheet.jitter_seed,
        style=d.style,
    )


def _printed_number(text: str) -> int | None:
    """The number printed at the foot ("Sheet No. 3" -> 3), None when none is."""
    return int(text.split()[-1]) if text else None


def _sheets_truth(d: Drawn) -> tuple[list[dict[str, Any]], dict[str, int]]:
    statuses = _statuses(d.sheets)
    out = []
    counts = {"lines_read": 0, "blank": 0, "valid": 0, "invalid": 0, "needs_review": 0}
    for sheet, rows in zip(sorted(d.sheets, key=lambda s: s.number), statuses, strict=True):
        lines = []
        for k in range(sheet.rows):
            if k < len(sheet.lines):
                line = sheet.lines[k]
                codes, status = rows[k]
                fields = {f: line.get(f) for f in d.columns.fields}
                voter_id = line.voter_id
            else:
                codes, status = (), "blank"
                fields = {f: "" for f in d.columns.fields}
                voter_id = None
            counts["lines_read"] += 1
            counts[status] += 1
            lines.append(
                {
                    "line_no": k + 1,
                    "blank": status == "blank",
                    "fields": fields,
                    "voter_id": voter_id,
                    "defects": list(codes),
                    "expected_status": status,
                }
            )
        out.append(
            {
                "file": f"sheets/sheet-{sheet.number:02d}.pdf",
                "page_index": 0,
                "sheet_number": _printed_number(sheet.number_text),
                "defects": [code for code, _ in sheet.defects],
                "witness": _statement_truth(sheet.statement),
                "lines": lines,
            }
        )
    return out, counts


def _write(
    out: Path, d: Drawn, truth_head: dict[str, Any], readme: str, fill: Fill | None = None
) -> None:
    """Write the sheets, the case file, the README and the truth. Handwritten, the truth also
    gets where each row is and how each entry was drawn (`_drawn_truth`)."""
    (out / "sheets").mkdir(parents=True, exist_ok=True)
    layouts = {}
    for sheet in d.sheets:
        file = f"sheets/sheet-{sheet.number:02d}.pdf"
        layouts[file] = (sheet, write_pages(out / file, [_page(d, sheet)])[0])
    if fill is not None:
        _drawn_truth(truth_head, d, layouts)
        readme = readme.replace("--out <folder>", "--handwriting --out <folder>")
        readme = readme.replace(
            "born-digital signature sheets (PDF with a text layer)",
            "born-digital signature sheets (PDF with a text layer), filled in by hand in\n"
            "  handwriting-style fonts (recorded per field in truth.json)",
        )
    if d.style is not KIND_CLASSIC:  # the layout family and split it was set in
        truth_head["layout"] = d.style.as_json()
    (out / "case.toml").write_text(d.case_toml, encoding="utf-8")
    (out / "README.md").write_text(readme, encoding="utf-8")
    (out / "truth.json").write_text(
        json.dumps(truth_head, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


# ---------------------------------------------------------------------------------------------
# Filled in by hand
# ---------------------------------------------------------------------------------------------

# How people write a date on a line, and how often (synth/case.py's format_date).
_DATE_STYLES = ("long", "short", "words", "dashes", "full", "month-day")
_DATE_WEIGHTS = (4, 4, 1, 2, 1, 1)


@dataclass(frozen=True, slots=True)
class Fill:
    """A handwritten case: where its own random draws start (apart from the planner's, so
    the typed case of the same seed is unchanged) and the fonts to write in."""

    key: str
    fonts: tuple[HandFont, ...]


def _handwrite(d: Drawn, fill: Fill | None) -> Drawn:
    """The same sheets filled in by hand: each line's date rewritten as its signer writes
    dates (3/4/26, 03-04-2026, March 4, ...), a hand for each signer and for each statement's
    writer, and the statement's date as the writer writes it. Only the texts' form changes:
    every date keeps its day, so the statuses and the verdict are the typed case's."""
    if fill is None:
        return d
    rng = random.Random(f"{fill.key}/handwriting")
    sheets = []
    for sheet in d.sheets:
        lines, hands = [], []
        for ln in sheet.lines:
            # A date after the filing keeps its year: without one, a reader takes it for the
            # year before (pipeline/dates.py), as a person would.
            late = any(code == "DATE_AFTER_FILING" for code, _ in ln.defects)
            fields = tuple(
                (k, _rewrite_date(v, rng, yearless=not late) if k == "date" and v else v)
                for k, v in ln.fields
            )
            lines.append(replace(ln, fields=fields))
            hands.append(pick_hand(rng, fill.fonts))
        stmt = sheet.statement
        if stmt.form != "affidavit":  # the affidavit's date is the jurat's words
            style = rng.choices(_DATE_STYLES, weights=_DATE_WEIGHTS)[0]
            stmt = replace(stmt, date_text=format_date(stmt.date, style))
        sheets.append(
            replace(
                sheet,
                lines=tuple(lines),
                statement=stmt,
                hands=tuple(hands),
                statement_hand=pick_hand(rng, fill.fonts),
                jitter_seed=rng.randrange(2**31),
            )
        )
    return replace(d, sheets=tuple(sheets))


def _rewrite_date(text: str, rng: random.Random, yearless: bool = True) -> str:
    """The typed date `text` as a signer writes it; `yearless` allows "March 4"."""
    day = _parse(text, dt.date.today())
    assert day is not None
    weights = _DATE_WEIGHTS if yearless else _DATE_WEIGHTS[:-1] + (0,)
    return format_date(day, rng.choices(_DATE_STYLES, weights=weights)[0])


def _strokes(strokes: Sequence[tuple[str, Stroke]]) -> dict[str, dict[str, Any]]:
    return {
        name: {"font": s.font, "size": s.size, "slant": s.slant, "baseline": s.baseline}
        for name, s in strokes
    }


def _drawn_truth(
    truth: dict[str, Any], d: Drawn, layouts: Mapping[str, tuple[SheetSpec, PageLayout]]
) -> None:
    """Add to the truth how the handwritten sheets were drawn: the table's columns, each row's
    box (PDF points, origin top-left), the font of every filled field, and the statement's
    blanks with the font each was written in."""
    truth["style"] = "handwriting"
    truth["fonts"] = sorted(
        {s.font for _, lay in layouts.values() for row in lay.strokes for _, s in row}
        | {s.font for _, lay in layouts.values() for _, s in lay.statement_strokes}
    )
    for sheet in truth["sheets"]:
        spec, layout = layouts[sheet["file"]]
        sheet["columns"] = list(d.columns.fields)
        for row, box, strokes in zip(sheet["lines"], layout.row_boxes, layout.strokes, strict=True):
            row["box"] = [round(v, 2) for v in box]
            row["fonts"] = {name: s.font for name, s in strokes}
            row["strokes"] = _strokes(strokes)
        written = dict(_foot(spec.statement).blanks)
        sheet["witness"]["written"] = {name: written[name] for name, _ in layout.statement_strokes}
        sheet["witness"]["strokes"] = _strokes(layout.statement_strokes)


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _readme(kind: str, variant: str, seed: int, files: Sequence[str], what: str) -> str:
    listed = "".join(f"- {f}\n" for f in files)
    return (
        f"# Synthetic petition case: {kind}, {variant}\n\n"
        "Every file here is synthetic. It was generated by the `petitions` project's fixture\n"
        f"generator (`synth.kinds`) from seed {seed} and holds no real person's data:\n"
        "the village, the district, its voters, owners, streets and signers are invented from\n"
        "small built-in lists.\n\n"
        f"{what}\n\n"
        f"{listed}"
        "- `sheets/`: born-digital signature sheets (PDF with a text layer), one page each\n"
        "- `case.toml`: the case file\n"
        "- `truth.json`: what the generator intended (every line's fields, its register or roll\n"
        "  id, the planted defects and expected status; the expected totals and verdict)\n\n"
        "Regenerate (byte-identical for the same seed):\n\n"
        "```\n"
        f"python -m synth.kinds --kind {kind} --variant {variant} --seed {seed} "
        "--out <folder>\n"
        "```\n"
    )


def _chunks(items: Sequence[Line], sizes: Sequence[int]) -> list[list[Line]]:
    out, start = [], 0
    for n in sizes:
        out.append(list(items[start : start + n]))
        start += n
    return out


# The signature table of the petitions voters sign (the nominating petition; 2-202 by residents).
DATE_SIGNATURE_RESIDENCE = Columns(
    ("Date", "Signature", "Residence"),
    ("date", "signature", "residence"),
    (80.0, 200.0, 260.0),
)


def _case_toml(
    name: str,
    kind: str,
    filed: dt.date,
    section: str,
    *,
    village: str,
    eds: Sequence[str] = (),
    register: bool = True,
) -> str:
    """The case file every kind's case shares, then the kind's own section (its TOML text)."""
    return (
        "# Synthetic case generated by synth.kinds; no real person's data.\n"
        f"name = {_q(name)}\n"
        f'kind = "{kind}"\n'
        'sheets = ["sheets"]\n'
        "\n[municipality]\n"
        f"village = {_q(village)}\ntown = {_q(TOWN)}\ncounty = {_q(COUNTY)}\n"
        + (f"election_districts = [{', '.join(_q(e) for e in eds)}]\n" if eds else "")
        + f"\n[dates]\nfiled = {filed.isoformat()}\n"
        + ('\n[register]\npath = "register.csv"\nformat = "nysboe"\n' if register else "")
        + section
    )


def _signing_dates(lines: Sequence[Line], filed: dt.date) -> list[dt.date]:
    """The days the lines were signed, as written (an undated line has none)."""
    return [d for ln in lines if (d := _parse(ln.get("date"), filed)) is not None]


@dataclass(frozen=True, slots=True)
class Ask:
    """One case asked of `generate_kind`: its kind, variant and seed, filled in by hand
    (`fill`) or typed, set in a layout family's `style`."""

    kind: str
    variant: str
    seed: int
    fill: Fill | None
    style: PageStyle


def _finish(out: Path, ask: Ask, drawn: Drawn, facts: Petition) -> dict[str, Any]:
    """What every kind's case ends with, whatever the kind planned: the sheets filled in and
    set in the asked style, their truth, the kind's expected totals from the counts, the truth
    written with the sheets, the case file, its inputs (register or roll) and the README."""
    drawn = replace(_handwrite(drawn, ask.fill), style=ask.style)
    sheets_truth, counts = _sheets_truth(drawn)
    truth = {
        "schema": TRUTH_SCHEMA,
        "seed": ask.seed,
        "synthetic": True,
        "kind": ask.kind,
        "variant": ask.variant,
        **facts.head,
        "sheets": sheets_truth,
        **facts.tail,
        "expected": counts | facts.expected(counts),
    }
    facts.inputs(_mk(out))
    readme = _readme(ask.kind, ask.variant, ask.seed, facts.files, facts.what)
    _write(out, drawn, truth, readme, ask.fill)
    return truth


@dataclass(frozen=True, slots=True)
class Petition:
    """A kind's own part of its case's truth and files, beside its sheets (`Drawn`; `_finish`
    does the rest): `head` before the sheets' truth and `tail` after it, `expected(counts)`
    the expected threshold and verdict from the lines' counts, `inputs(folder)` writes the
    register or roll, which `files` names in the README with `what` the case shows."""

    head: dict[str, Any]
    expected: Callable[[dict[str, int]], dict[str, Any]]
    inputs: Callable[[Path], object]
    files: tuple[str, ...]
    what: str
    tail: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Voters (nominating petition; 2-202 by residents)
# ---------------------------------------------------------------------------------------------


def _voters(
    rng: random.Random,
    pool: NamePool,
    inside: int,
    outside: int,
    city: str,
    eds: Sequence[str],
    outside_eds: Sequence[str],
    registered_by: dt.date,
) -> tuple[list[Voter], list[Voter]]:
    serial = rng.randint(1000, 5000)
    ins: list[Voter] = []
    outs: list[Voter] = []
    for k in range(inside + outside):
        serial += rng.randint(1, 37)
        first, middle, last = pool.name()
        streets = VILLAGE_STREETS if k < inside else OUTSIDE_STREETS
        house, street = pool.address(streets)
        if k < inside:
            ed = eds[VILLAGE_STREETS.index(street) % len(eds)]
        else:
            ed = outside_eds[OUTSIDE_STREETS.index(street) % len(outside_eds)]
        v = Voter(
            sboeid=f"NY{serial:016d}",
            first=first,
            middle=middle,
            last=last,
            house=house,
            street=street,
            city=city if k < inside else TOWN,
            town=TOWN,
            ed=ed,
            ward="",
            reg_date=rand_date(rng, dt.date(1985, 1, 1), registered_by),
            dob=rand_date(rng, dt.date(1940, 1, 1), dt.date(1990, 12, 31)),
        )
        (ins if k < inside else outs).append(v)
    return ins, outs


def _drawn_from(
    rng: random.Random, inside: Sequence[Voter], plain: int, late: int
) -> tuple[list[Voter], list[Voter], list[Voter]]:
    """The village's voters in a random order, cut into the plain signers, those who register
    after signing, and the others (witnesses, candidates, committee, designees)."""
    order = list(inside)
    rng.shuffle(order)
    return order[:plain], order[plain : plain + late], order[plain + late :]


def _not_listed_address(pool: NamePool, suffix: str) -> str:
    """An address in the village on no register entry (a line whose signer is not found)."""
    house, street = pool.address(VILLAGE_STREETS)
    return f"{house} {street}{suffix}"


def _moved_in(inside: Sequence[Voter], moved: Sequence[Voter]) -> list[Voter]:
    """The register's voters with those the lines moved (a changed entry) as they are now."""
    now = {v.sboeid: v for v in moved}
    return [now.get(v.sboeid, v) for v in inside]


@dataclass(frozen=True, slots=True)
class VoterDefects:
    """Which line defects to plant and how severe the statute makes each."""

    codes: tuple[str, ...]
    registered_after: str = FATAL  # nominating petition: fatal; 2-202: review


def _voter_lines(
    rng: random.Random,
    pool: NamePool,
    signers: Sequence[Voter],
    outsiders: Sequence[Voter],
    late: Sequence[Voter],
    start: dt.date,
    end: dt.date,
    defects: VoterDefects,
    residence: Callable[[Voter], str],
    not_listed_address: Callable[[], str],
    purged: Sequence[Voter] = (),
    filed: dt.date | None = None,
) -> tuple[list[Line], list[Voter]]:
    """Lines for the signers (in a random order) with `defects.codes` planted, one line each;
    returns the lines and the late registrants with their registration dates moved after
    their signing."""
    lines: list[Line] = []
    moved: list[Voter] = []
    for v in signers:
        d = rand_date(rng, start, end)
        lines.append(
            Line(
                (
                    ("date", _written(d, rng)),
                    ("signature", v.printed),
                    ("residence", residence(v)),
                ),
                v.sboeid,
            )
        )
    late_iter, out_iter, purged_iter = iter(late), iter(outsiders), iter(purged)
    for code in defects.codes:
        d = rand_date(rng, start, end)
        if code == "SIGNER_PURGED":
            v = next(purged_iter)
            line = Line(
                (("date", _written(d, rng)), ("signature", v.printed), ("residence", residence(v))),
                v.sboeid,
                ((code, FATAL),),
            )
        elif code == "SIGNER_NOT_REGISTERED":
            first, _, last = pool.not_listed()
            line = Line(
                (
                    ("date", _written(d, rng)),
                    ("signature", f"{first} {last}"),
                    ("residence", not_listed_address()),
                ),
                None,
                ((code, FATAL),),
            )
        elif code == "SIGNER_OUTSIDE_VILLAGE":
            v = next(out_iter)
            line = Line(
                (
                    ("date", _written(d, rng)),
                    ("signature", v.printed),
                    ("residence", residence(v)),
                ),
                v.sboeid,
                ((code, FATAL),),
            )
        elif code == "SIGNER_REGISTERED_AFTER_SIGNING":
            v = next(late_iter)
            registered = d + dt.timedelta(days=rng.randint(1, 4))
            moved.append(replace(v, reg_date=registered))
            line = Line(
                (("date", _us(d)), ("signature", v.printed), ("residence", residence(v))),
                v.sboeid,
                ((code, defects.registered_after),),
            )
        elif code in ("DATE_AFTER_FILING", "DATE_AFTER_WITNESS_DATE") and filed is not None:
            # After the filing (and so after the witness's date); or the day before the filing,
            # after the sheet's witness dated the statement (`_nomination` keeps such lines
            # out of the witness's date).
            v = next(late_iter)
            codes: tuple[tuple[str, str], ...]
            if code == "DATE_AFTER_FILING":
                d = filed + dt.timedelta(days=rng.randint(1, 4))
                codes = ((code, FATAL), ("DATE_AFTER_WITNESS_DATE", REVIEW))
            else:
                d, codes = filed - dt.timedelta(days=1), ((code, REVIEW),)
            line = Line(
                (("date", _written(d, rng)), ("signature", v.printed), ("residence", residence(v))),
                v.sboeid,
                codes,
            )
        elif code in ("LINE_UNDATED", "RESIDENCE_MISSING"):
            v = next(late_iter)
            line = Line(
                (
                    ("date", "" if code == "LINE_UNDATED" else _written(d, rng)),
                    ("signature", v.printed),
                    ("residence", "" if code == "RESIDENCE_MISSING" else residence(v)),
                ),
                v.sboeid,
                ((code, FATAL),),
            )
        else:
            raise ValueError(f"cannot plant {code}")
        lines.insert(rng.randint(0, len(lines)), line)
    return lines, moved


# ---------------------------------------------------------------------------------------------
# independent_nomination
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NominationVariant:
    form: str  # "new": witnessed from 2017-11-22; "old": before
    population: int
    voters_at_last_election: int | None
    sheet_sizes: tuple[int, ...]
    rows: int
    line_defects: tuple[str, ...]
    notary_sheets: tuple[int, ...] = ()
    mismatch_sheets: tuple[int, ...] = ()
    county_missing_sheets: tuple[int, ...] = ()
    body_name: str = "Lakeside Neighbors"
    committee_size: int = 3
    # The register as hard as a real one: households, a Jr beside his father, an apartment, a
    # fractional house number, an inactive voter who signs (valid) and a purged one.
    rich_register: bool = False
    unnumbered_sheets: tuple[int, ...] = ()  # no number printed at the foot
    renumbered_sheets: tuple[int, ...] = ()  # printed with the previous sheet's number
    nameless_sheets: tuple[int, ...] = ()  # the witness's name blank left empty
    outsider_sheets: tuple[int, ...] = ()  # old form: the witness states another village
    homeless_sheets: tuple[int, ...] = ()  # the witness's residence blank left empty
    unsigned_sheets: tuple[int, ...] = ()  # the witness did not sign the statement
    what: str = ""

    def sheet_defective(self, i: int) -> bool:
        """Sheet i carries a sheet-level defect (all its lines go to a person, or fall)."""
        duplicated = {j for r in self.renumbered_sheets for j in (r - 1, r)}
        flawed = {*self.mismatch_sheets, *self.county_missing_sheets, *self.unnumbered_sheets}
        witness = {*self.outsider_sheets, *self.homeless_sheets, *self.unsigned_sheets}
        return i in flawed | set(self.nameless_sheets) | duplicated | witness


NOMINATION_VARIANTS: Mapping[str, NominationVariant] = MappingProxyType(
    {
        "sufficient": NominationVariant(
            form="new",
            population=2400,
            voters_at_last_election=None,
            sheet_sizes=(12, 12, 12, 12, 12, 10),
            rows=12,
            line_defects=(
                "SIGNER_NOT_REGISTERED",
                "SIGNER_NOT_REGISTERED",
                "SIGNER_REGISTERED_AFTER_SIGNING",
                "SIGNER_OUTSIDE_VILLAGE",
                "LINE_UNDATED",
                "RESIDENCE_MISSING",
            ),
            notary_sheets=(2, 5),
            mismatch_sheets=(3,),
            what="A village of 2,400 people (50 signatures required), witnessed in 2027 (the "
            "statement in force from 2017-11-22) and two sheets under the notary's statement.",
        ),
        "old-form": NominationVariant(
            form="old",
            population=800,
            voters_at_last_election=412,
            sheet_sizes=(10, 10, 10, 5),
            rows=10,
            line_defects=(
                "SIGNER_NOT_REGISTERED",
                "SIGNER_REGISTERED_AFTER_SIGNING",
                "LINE_UNDATED",
            ),
            notary_sheets=(2,),
            county_missing_sheets=(4,),
            what="A village of 800 people with 412 voters at the last election (5%: 21 required), "
            "witnessed in 2017 before 2017-11-22 (the old statement, with village and county).",
        ),
        "insufficient": NominationVariant(
            form="new",
            population=800,
            voters_at_last_election=600,
            sheet_sizes=(10, 10, 8),
            rows=10,
            line_defects=("SIGNER_OUTSIDE_VILLAGE", "RESIDENCE_MISSING", "SIGNER_NOT_REGISTERED"),
            mismatch_sheets=(3,),
            what="A village of 800 people with 600 voters at the last election (30 required); "
            "fewer lines than that were signed.",
        ),
        "party-name": NominationVariant(
            form="new",
            population=800,
            voters_at_last_election=300,
            sheet_sizes=(10, 9),
            rows=10,
            line_defects=("SIGNER_NOT_REGISTERED",),
            body_name="Lakeside Working Neighbors",
            what="Enough valid signatures (15 required), but the independent body's name includes "
            "a word of an existing party's name (Working Families): a person decides (subd. 3).",
        ),
        "small-committee": NominationVariant(
            form="new",
            population=900,
            voters_at_last_election=240,
            sheet_sizes=(8, 8),
            rows=10,
            line_defects=("LINE_UNDATED",),
            committee_size=2,
            what="Enough valid signatures (12 required), but the committee to fill vacancies names "
            "two persons, not at least three: a person decides (subd. 1).",
        ),
        "just-enough": NominationVariant(
            form="new",
            population=900,
            voters_at_last_election=313,
            sheet_sizes=(10, 9),
            rows=10,
            line_defects=("SIGNER_NOT_REGISTERED", "SIGNER_PURGED", "DUPLICATE_SIGNER"),
            rich_register=True,
            what="Just enough: a village of 900 people with 313 voters at the last election (5% "
            "is 15.65, rounded up: 16 required) and exactly 16 valid signatures, among them a Jr "
            "whose father is also registered, an inactive voter, an apartment and a fractional "
            "house number; a purged voter and a signer who signed twice are invalid.",
        ),
        "one-short": NominationVariant(
            form="new",
            population=900,
            voters_at_last_election=330,
            sheet_sizes=(10, 9),
            rows=10,
            line_defects=("SIGNER_NOT_REGISTERED", "SIGNER_PURGED", "DUPLICATE_SIGNER"),
            rich_register=True,
            what="One short: 330 voters at the last election (5% is 16.5: 17 required) and 16 "
            "valid signatures, no line in review: insufficient.",
        ),
        "sheet-defects": NominationVariant(
            form="new",
            population=800,
            voters_at_last_election=400,
            sheet_sizes=(8, 8, 8, 8, 8, 6),
            rows=10,
            line_defects=("DATE_AFTER_FILING", "DATE_AFTER_WITNESS_DATE", "SIGNER_NOT_REGISTERED"),
            unnumbered_sheets=(2,),
            renumbered_sheets=(5,),
            nameless_sheets=(3,),
            what="Sheets as they come: one without a number, two with the same number (sheets 4 "
            "and 5 both say 4), one whose witness left the name blank (each: every line of the "
            "sheet to a person), a gap in the numbers (not a defect here: 'shall be numbered', "
            "not consecutively), a line dated after the filing and one after the witness's date "
            "(20 required: undetermined).",
        ),
        "witness-defects": NominationVariant(
            form="old",
            population=800,
            voters_at_last_election=300,
            sheet_sizes=(6, 6, 6, 10),
            rows=10,
            line_defects=("SIGNER_NOT_REGISTERED",),
            outsider_sheets=(1,),
            homeless_sheets=(2,),
            unsigned_sheets=(3,),
            what="Witnessed before 2017-11-22 (the old statement): sheet 1's witness states a "
            "residence in another village (the statement says 'in the Village of ...': to a "
            "person), sheet 2's left the residence blank (to a person), sheet 3's did not sign "
            "(nothing on it is witnessed: its lines are invalid); 15 required: undetermined.",
        ),
    }
)


def _witness_flaws(
    spec: NominationVariant, i: int, stmt: Statement, pool: NamePool
) -> tuple[Statement, tuple[tuple[str, str], ...]]:
    """Sheet i's planted statement of witness flaws (pipeline/rules/village_nomination.py,
    `witnessed`): a witness of another village (the old form's "now reside at ... in the
    Village of ..."; a person decides), the residence blank (a person decides), the statement
    not signed (nothing on the sheet is witnessed: every line falls)."""
    if i in spec.outsider_sheets:
        first, _, last = pool.name()
        house, street = pool.address(OUTSIDE_STREETS)
        outsider = f"{first} {last}"
        return replace(stmt, name=outsider, residence=f"{house} {street}", village=ELSEWHERE), (
            ("WITNESS_NOT_OF_VILLAGE", REVIEW),
        )
    if i in spec.homeless_sheets:
        return replace(stmt, residence=""), (("WITNESS_RESIDENCE_MISSING", REVIEW),)
    if i in spec.unsigned_sheets:
        return replace(stmt, unsigned=True), (("WITNESS_NOT_SIGNED", FATAL),)
    return stmt, ()


def replace_date(line: Line, date: str) -> tuple[tuple[str, str], ...]:
    """A line's fields with another date."""
    return tuple((k, date if k == "date" else v) for k, v in line.fields)


def _enrich(
    rng: random.Random,
    pool: NamePool,
    inside: list[Voter],
    signers: list[Voter],
    others: list[Voter],
    start: dt.date,
) -> tuple[list[Voter], list[Voter], list[Voter]]:
    """Make the register as hard as a real one (the variants with `rich_register`): among the
    signers a Jr whose father (Sr, same name, same house) is registered too and does not sign,
    one in an apartment, one at a fractional house number, one inactive (still registered:
    valid); a household member beside a signer; and a voter purged before the signing, who
    signs. Returns the register's village part, the signers and the purged signer."""
    changed: dict[str, Voter] = {}
    jr, apt, half, inactive = signers[:4]
    changed[jr.sboeid] = replace(jr, suffix="Jr", middle="")
    changed[apt.sboeid] = replace(apt, apartment=rng.choice(("2", "3B", "1R")))
    changed[half.sboeid] = replace(half, half="1/2")
    changed[inactive.sboeid] = replace(inactive, status="I")
    purged = replace(
        others[0], status="P", purge_date=start - dt.timedelta(days=rng.randint(30, 300))
    )
    changed[purged.sboeid] = purged
    serial = 9 * 10**15 + max(int(v.sboeid[2:]) for v in inside)  # above every other id
    father = replace(
        jr,
        sboeid=f"NY{serial + 11:016d}",
        middle="",
        suffix="Sr",
        reg_date=jr.reg_date - dt.timedelta(days=rng.randint(400, 4000)),
        dob=jr.dob - dt.timedelta(days=rng.randint(8000, 12000)),
    )
    mate = signers[4]
    first, middle, last = pool.name(mate.last)
    spouse = replace(mate, sboeid=f"NY{serial + 23:016d}", first=first, middle=middle, last=last)
    inside = [changed.get(v.sboeid, v) for v in inside] + [father, spouse]
    signers = [changed.get(v.sboeid, v) for v in signers]
    return inside, signers, [purged]


def _required_nomination(population: int, voters: int | None) -> int:
    if population >= 5000:
        return 100
    if population >= 3000:
        return 75
    if population >= 1000:
        return 50
    assert voters is not None
    return -(-voters * 5 // 100)


def _nomination(rng: random.Random, kind: str, variant: str) -> tuple[Drawn, Petition]:
    spec = NOMINATION_VARIANTS[variant]
    pool = NamePool(rng)
    if spec.form == "new":
        election, filed = dt.date(2027, 3, 16), dt.date(2027, 2, 9)
        start, end = dt.date(2027, 1, 4), dt.date(2027, 2, 2)
    else:
        election, filed = dt.date(2017, 3, 21), dt.date(2017, 2, 14)
        start, end = dt.date(2017, 1, 3), dt.date(2017, 2, 6)
    eds = ("1", "2", "3", "4")
    n_lines = sum(spec.sheet_sizes)
    plain = n_lines - len(spec.line_defects)
    n_late = sum(
        1
        for c in spec.line_defects
        if c
        in (
            "SIGNER_REGISTERED_AFTER_SIGNING",
            "LINE_UNDATED",
            "RESIDENCE_MISSING",
            "DATE_AFTER_FILING",
            "DATE_AFTER_WITNESS_DATE",
        )
    )
    inside, outside = _voters(
        rng, pool, plain + n_late + 40, 10, VILLAGE, eds, ("5", "6"), start - dt.timedelta(300)
    )
    signers, late, others = _drawn_from(rng, inside, plain, n_late)
    n_dup = spec.line_defects.count("DUPLICATE_SIGNER")
    purged: list[Voter] = []
    if spec.rich_register:
        inside, signers, purged = _enrich(rng, pool, inside, signers, others, start)

    lines, moved = _voter_lines(
        rng,
        pool,
        signers,
        outside,
        late,
        start,
        end,
        VoterDefects(tuple(c for c in spec.line_defects if c != "DUPLICATE_SIGNER")),
        lambda v: v.residence,
        partial(_not_listed_address, pool, ""),
        purged,
        filed,
    )
    inside = _moved_in(inside, moved)
    # A signer who signs again, on the last sheet: no code of its own, `_statuses` gives
    # DUPLICATE_SIGNER to the line counted second.
    again = [
        Line(replace_date(ln, _written(rand_date(rng, start, end), rng)), ln.voter_id)
        for ln in rng.sample([ln for ln in lines if not ln.defects], k=n_dup)
    ]

    # Defect lines go on sheets that are not otherwise defective, so the counts stay plain.
    plain_lines = [ln for ln in lines if not ln.defects]
    bad_lines = [ln for ln in lines if ln.defects]
    clean_sheets = [i for i in range(1, len(spec.sheet_sizes) + 1) if not spec.sheet_defective(i)]
    per_sheet: dict[int, list[Line]] = {i: [] for i in range(1, len(spec.sheet_sizes) + 1)}
    for k, ln in enumerate(bad_lines):
        per_sheet[clean_sheets[k % len(clean_sheets)]].append(ln)
    it = iter(plain_lines)
    for i, size in enumerate(spec.sheet_sizes, start=1):
        while len(per_sheet[i]) < size - (len(again) if i == len(spec.sheet_sizes) else 0):
            per_sheet[i].append(next(it))
        rng.shuffle(per_sheet[i])
    per_sheet[len(spec.sheet_sizes)] += again

    sheets = []
    for i in range(1, len(spec.sheet_sizes) + 1):
        sheet_lines = tuple(per_sheet[i])
        in_time = [
            ln for ln in sheet_lines if not any(c.startswith("DATE_AFTER") for c, _ in ln.defects)
        ]
        signed = max(_signing_dates(in_time, filed))
        witnessed = min(signed + dt.timedelta(days=rng.randint(0, 3)), filed)
        witness = others[i % len(others)]
        count = len(sheet_lines)
        defects: tuple[tuple[str, str], ...] = ()
        if i in spec.mismatch_sheets:
            count += 1
            defects = (("WITNESS_COUNT_MISMATCH", REVIEW),)
        if i in spec.notary_sheets:
            first, _, last = pool.name()
            stmt = Statement("notary", f"{first} {last}", "", witnessed, count)
            number_text = f"Page No. {i}"
        elif spec.form == "new":
            stmt = Statement(
                "witness-new",
                witness.printed,
                f"{witness.residence}, {VILLAGE}",
                witnessed,
                count,
                name_blank=i in spec.nameless_sheets,
            )
            number_text = f"Sheet No. {i}"
            if i in spec.nameless_sheets:
                defects += (("WITNESS_NAME_MISSING", REVIEW),)
        else:
            missing = i in spec.county_missing_sheets
            stmt = Statement(
                "witness-old",
                witness.printed,
                witness.residence,
                witnessed,
                count,
                village=VILLAGE,
                county="" if missing else COUNTY,
            )
            if missing:
                defects += (("WITNESS_COUNTY_MISSING", REVIEW),)
            number_text = f"Sheet No. {i}"
        stmt, planted = _witness_flaws(spec, i, stmt, pool)
        defects += planted
        if i in spec.unnumbered_sheets:
            number_text = ""
            defects += (("SHEET_NUMBER_MISSING", REVIEW),)
        elif i in spec.renumbered_sheets or i + 1 in spec.renumbered_sheets:
            if i in spec.renumbered_sheets:  # the previous sheet's number, again
                number_text = f"{number_text.rsplit(' ', 1)[0]} {i - 1}"
            defects += (("SHEET_NUMBER_DUPLICATE", REVIEW),)
        sheets.append(SheetSpec(i, number_text, sheet_lines, spec.rows, stmt, defects))

    candidates = [others[-1], others[-2]]
    committee = others[-3 : -3 - spec.committee_size : -1]
    body = spec.body_name
    emblem = "a lighthouse"
    above = (
        "I, the undersigned, do hereby state that I am a registered voter of the Village of "
        f"{VILLAGE}, that my present place of residence is truly stated opposite my signature, "
        "and I do hereby nominate the following named person (or persons) as a candidate (or as "
        "candidates) for election to public office (or public offices) to be voted for at the "
        f"election to be held on the {_ordinal(election.day)} day of "
        f"{MONTHS[election.month - 1]}, {election.year}, and that I select the name {body} "
        f"(fill in name) as the name of the independent body making the nomination (or "
        f"nominations) and {emblem} (fill in emblem) as the emblem of such body.",
    )
    aside = Grid(
        ("Name of Candidate", "Public Office", "Term", "Residence"),
        (170.0, 110.0, 70.0, 190.0),
        tuple((c.printed, "Trustee", "2 years", c.residence) for c in candidates),
    )
    between = (
        "I do hereby appoint "
        + "; ".join(f"{p.printed}, {p.residence}, {VILLAGE}" for p in committee)
        + " as a committee to fill vacancies in accordance with the provisions of the election "
        "law.",
        "In witness whereof, I have signed this petition on the day and year stated before my "
        "signature.",
    )
    parties = "Working Families" if "Working" in body else ""
    required = _required_nomination(spec.population, spec.voters_at_last_election)
    section = (
        f"\n[nomination]\nelection = {election.isoformat()}\npopulation = {spec.population}\n"
        + (
            f"voters_at_last_election = {spec.voters_at_last_election}\n"
            if spec.voters_at_last_election is not None
            else ""
        )
        + f"body_name = {_q(body)}\nemblem = {_q(emblem)}\n"
        "candidates = [\n"
        + "".join(
            f'  {{ name = {_q(c.printed)}, office = "Trustee", term = "2 years", '
            f"residence = {_q(c.residence)} }},\n"
            for c in candidates
        )
        + "]\ncommittee = [\n"
        + "".join(
            f"  {{ name = {_q(p.printed)}, address = {_q(f'{p.residence}, {VILLAGE}')} }},\n"
            for p in committee
        )
        + "]\n"
    )
    name = f"Village of {VILLAGE}: {body} independent nominating petition (synthetic)"
    drawn = Drawn(
        title="VILLAGE INDEPENDENT NOMINATING PETITION",
        above=above,
        columns=DATE_SIGNATURE_RESIDENCE,
        sheets=tuple(sheets),
        case_toml=_case_toml(name, kind, filed, section, village=VILLAGE, eds=eds),
        between=between,
        aside=aside,
    )
    doubts = []
    if parties:
        doubts.append("BODY_NAME_USES_PARTY_NAME")
    if spec.committee_size < 3:
        doubts.append("COMMITTEE_TOO_SMALL")

    def expected(counts: dict[str, int]) -> dict[str, Any]:
        valid, review = counts["valid"], counts["needs_review"]
        verdict = _count_verdict(valid, review, required, False, bool(doubts))
        if spec.population >= 1000:
            how = f"a village of {spec.population:,} people: {required} signatures (subd. 4)"
        else:
            how = (
                f"a village of {spec.population:,} people: 5% of the "
                f"{spec.voters_at_last_election} voters at the last regular village election, "
                f"rounded up: {required} (subd. 4)"
            )
        how += (
            f"; {valid} valid, {review} in review"
            + (f"; petition-level review: {', '.join(doubts)}" if doubts else "")
            + f": {verdict}."
        )
        return {
            "denominator": spec.voters_at_last_election if spec.population < 1000 else None,
            "required": required,
            "verdict": verdict,
            "how": how,
        }

    facts = Petition(
        head={
            "witness_form": "before-2017-11-22" if spec.form == "old" else "from-2017-11-22",
            "petition_defects": doubts,
        },
        expected=expected,
        inputs=partial(_register_file, inside + outside),
        files=("`register.csv`: the village register in the NYS BOE 45-field voter-export layout",),
        what=spec.what,
    )
    return drawn, facts


def _register_file(voters: Sequence[Voter], folder: Path) -> None:
    write_register(voters, COUNTY_CODE, ZIP5, folder / "register.csv")


def _mk(out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    return out


def _parse(text: str, reference: dt.date) -> dt.date | None:
    """The generator's own reading of the dates it wrote (three styles)."""
    if not text:
        return None
    if "/" in text:
        m, d, y = (int(x) for x in text.split("/"))
        return dt.date(y if y > 100 else 2000 + y, m, d)
    mon, day, year = text.replace(",", "").split()
    return dt.date(int(year), [m[:3] for m in MONTHS].index(mon) + 1, int(day))


# ---------------------------------------------------------------------------------------------
# incorporation by residents (2-202(1)(a)(1))
# ---------------------------------------------------------------------------------------------


def _incorporation_residents(rng: random.Random, kind: str, variant: str) -> tuple[Drawn, Petition]:
    pool = NamePool(rng)
    filed = dt.date(2026, 10, 13)
    start, end = dt.date(2026, 9, 1), dt.date(2026, 9, 30)
    eds = ("7", "8", "9")
    sizes, rows = (9, 9), 10
    codes = ("SIGNER_NOT_REGISTERED", "SIGNER_OUTSIDE_VILLAGE", "SIGNER_REGISTERED_AFTER_SIGNING")
    plain = sum(sizes) - len(codes)
    inside, outside = _voters(
        rng, pool, 60, 8, TOWN, eds, ("10", "11"), start - dt.timedelta(days=200)
    )
    signers, late, others = _drawn_from(rng, inside, plain, 1)

    def residence(v: Voter) -> str:
        return f"{v.residence}, {TOWN}"

    lines, moved = _voter_lines(
        rng,
        pool,
        signers,
        outside,
        late,
        start,
        end,
        VoterDefects(codes, registered_after=REVIEW),
        residence,
        partial(_not_listed_address, pool, f", {TOWN}"),
    )
    inside = _moved_in(inside, moved)
    sheets = []
    for i, chunk in enumerate(_chunks(lines, sizes), start=1):
        sworn = max(_signing_dates(chunk, filed)) + dt.timedelta(days=rng.randint(1, 5))
        w = others[i]
        stmt = Statement(
            "affidavit", w.printed, w.residence, sworn, len(chunk), county=COUNTY, town=TOWN
        )
        sheets.append(SheetSpec(i, f"Page No. {i}", tuple(chunk), rows, stmt))
    residents = sum(1 for v in inside if v.reg_date <= filed)
    required = -(-residents // 5)
    designees = others[-3:]
    case_toml = _case_toml(
        f"Incorporation of the Village of {TERRITORY} (residents; synthetic)",
        kind,
        filed,
        _incorporation_toml("residents", _designees(designees), owners_roll=False),
        village=TERRITORY,
        eds=eds,
    )
    drawn = Drawn(
        title=f"PETITION FOR THE INCORPORATION OF THE VILLAGE OF {TERRITORY.upper()}",
        above=(
            "SIGNATURE PAGE. We, the undersigned, residents of the territory described in the "
            f"annexed description, qualified to vote for town officers in the Town of {TOWN}, "
            f"petition for its incorporation as the Village of {TERRITORY}. This petition is "
            "signed on the basis of Village Law section 2-202(1)(a)(1). Each of us is familiar "
            "with the contents and purpose of the petition and with the boundaries of the "
            "territory sought to be incorporated.",
        ),
        columns=DATE_SIGNATURE_RESIDENCE,
        sheets=tuple(sheets),
        case_toml=case_toml,
    )

    def expected(counts: dict[str, int]) -> dict[str, Any]:
        valid, review = counts["valid"], counts["needs_review"]
        verdict = _count_verdict(valid, review, required, False, False)
        return {
            "denominator": residents,
            "required": required,
            "verdict": verdict,
            "how": (
                f"at least 20% of the {residents} residents of the territory qualified to vote "
                f"(register entries in EDs {', '.join(eds)} registered by the filing): "
                f"{required} (2-202(1)(a)(1)); {valid} valid, "
                f"{review} in review (registered after signing is review here): "
                f"{verdict}."
            ),
        }

    facts = Petition(
        head={"basis": "residents", "petition_defects": []},
        expected=expected,
        inputs=partial(_register_file, inside + outside),
        files=("`register.csv`: the town's register in the NYS BOE 45-field voter-export layout",),
        what=(
            f"A petition to incorporate the territory of {TERRITORY} signed by residents "
            f"qualified to vote (Village Law § 2-202(1)(a)(1), the seed text)."
        ),
    )
    return drawn, facts


def _designees(people: Sequence[Voter]) -> list[tuple[str, str, bool]]:
    return [(p.printed, f"{p.residence}, {TOWN}", True) for p in people]


def _incorporation_toml(
    basis: str,
    designees: Sequence[tuple[str, str, bool]],
    owners_roll: bool,
    towns: Sequence[str] = (TOWN,),
) -> str:
    listed = ", ".join(
        f'{{ name = "{t}", equalization_rate = {float(_rate(t))} }}'
        if len(towns) > 1
        else f'{{ name = "{t}" }}'
        for t in towns
    )
    return (
        f'\n[incorporation]\nbasis = "{basis}"\nvillage_name = {_q(TERRITORY)}\n'
        "population_alleged = 640\n"
        "designees = [\n"
        + "".join(
            f"  {{ name = {_q(n)}, address = {_q(a)}, resides_in_territory = "
            f"{'true' if r else 'false'} }},\n"
            for n, a, r in designees
        )
        + "]\n"
        + f"towns = [{listed}]\n"
        + "territory_described = true\ninhabitants_listed = true\n"
        + ('roll = { path = "roll.csv" }\n' if owners_roll else "")
    )


# ---------------------------------------------------------------------------------------------
# Owners on a roll (Town Law § 191; 2-202 by owners)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OwnersVariant:
    statute: str  # "191" | "2202"
    p_resident: float  # chance that a resident owner signs
    p_away: float  # chance that an owner living elsewhere signs
    target: Fraction | None  # the valid lines' share to aim at; None: exactly one-half
    intended: str  # the verdict the variant is built to reach
    resident_rule: str = ""  # 191: "meet" or "short" (of half the resident-owned valuation)
    mismatch_sheet: bool = False
    away_scale: int = 1  # multiplies the value of property owned from elsewhere
    second_town: bool = False  # 2-202: part of the territory in a second town
    printed_name: bool = True  # 191: a "Printed Name" column; without it the signature names
    witness_defects: bool = False  # 191: a statement not signed, and one without its date
    what: str = ""


OWNERS_VARIANTS: Mapping[tuple[str, str], OwnersVariant] = MappingProxyType(
    {
        ("improvement_district", "sufficient"): OwnersVariant(
            "191",
            0.75,
            0.5,
            Fraction(62, 100),
            "sufficient",
            "meet",
            mismatch_sheet=True,
            what="Owners of about 62% of the district's taxable assessed valuation signed, and "
            "resident owners more than half of theirs (Town Law § 191: at least one-half).",
        ),
        ("improvement_district", "insufficient"): OwnersVariant(
            "191",
            0.35,
            0.25,
            Fraction(36, 100),
            "insufficient",
            mismatch_sheet=True,
            what="Owners of well under half the taxable assessed valuation signed, even counting "
            "the lines in review.",
        ),
        ("improvement_district", "exactly-half"): OwnersVariant(
            "191",
            0.8,
            0.5,
            None,
            "sufficient",
            "meet",
            what="The signers own exactly one-half of the taxable assessed valuation: sufficient, "
            "since Town Law § 191 asks for 'at least one-half'.",
        ),
        ("improvement_district", "resident-short"): OwnersVariant(
            "191",
            0.2,
            1.0,
            Fraction(58, 100),
            "insufficient",
            "short",
            away_scale=3,
            what="Owners of more than half the taxable valuation signed, but resident owners of "
            "less than half the resident-owned valuation: insufficient (Town Law § 191's proviso).",
        ),
        ("improvement_district", "witness-defects"): OwnersVariant(
            "191",
            0.75,
            0.5,
            Fraction(55, 100),
            "undetermined",
            printed_name=False,
            witness_defects=True,
            what="The sheets have no printed-name column (the signature names the signer). Sheet "
            "1's statement of witness is not signed, so none of its lines is authenticated "
            "(invalid); sheet 3's has no date (its lines go to review). Town Law § 191: "
            "'authenticated in the manner provided by the election law for the authentication "
            "of nominating petitions'. The valid lines hold under half the valuation, those in "
            "review would make it more than half: undetermined.",
        ),
        ("incorporation", "owners-sufficient"): OwnersVariant(
            "2202",
            0.7,
            0.5,
            Fraction(62, 100),
            "sufficient",
            what="Owners of about 62% of the territory's assessed valuation (exempt property "
            "included) signed: more than fifty percent (Village Law § 2-202(1)(a)(2)).",
        ),
        ("incorporation", "owners-two-towns"): OwnersVariant(
            "2202",
            0.7,
            0.5,
            Fraction(62, 100),
            "insufficient",
            second_town=True,
            what="The territory lies in two towns: the signers own more than half the full "
            f"valuation of the {TOWN} part but not of the {SECOND_TOWN} part (equalization "
            "rate 0.85), and 2-202 computes each part separately: insufficient.",
        ),
        ("incorporation", "owners-exactly-half"): OwnersVariant(
            "2202",
            0.8,
            0.5,
            None,
            "insufficient",
            what="The signers own exactly half the territory's assessed valuation: insufficient, "
            "since 2-202 asks for 'more than fifty percent'.",
        ),
    }
)


@dataclass(frozen=True, slots=True)
class Roll:
    parcels: tuple[Parcel, ...]
    persons: tuple[Owner, ...]  # owners who can sign (people)


def _oid(o: Owner) -> str:
    return owner_id(o.roll_name, o.mailing)


def _person(pool: NamePool, mailing: str, resident: bool, last: str | None = None) -> Owner:
    first, middle, surname = pool.name(last)
    roll = " ".join(p for p in (surname.upper(), first.upper(), middle[:1].upper()) if p)
    return Owner(roll, mailing, resident, first, middle, surname)


def _roll(rng: random.Random, pool: NamePool, spec: OwnersVariant) -> Roll:
    """The parcels of the district or territory, without the balancing parcel."""
    parcels: list[Parcel] = []
    persons: list[Owner] = []
    serial = [0]

    def pid() -> str:
        serial[0] += 1
        return f"{rng.randint(40, 99)}.{rng.randint(1, 20)}-{serial[0]}-{rng.randint(1, 30)}"

    def value(scale: int = 1) -> int:
        return 1200 * rng.randint(50, 250) * scale

    def home() -> tuple[str, str]:
        house, street = pool.address(VILLAGE_STREETS)
        return f"{house} {street}", f"{house} {street}, {TOWN}"

    def away() -> str:
        house, street = pool.address(AWAY_STREETS)
        return f"{house} {street}, {rng.choice(AWAY_CITIES)}"

    for _ in range(10):  # resident owners of their homes
        prop, mail = home()
        o = _person(pool, mail, True)
        persons.append(o)
        parcels.append(Parcel(pid(), prop, value(), (o,)))
    for _ in range(3):  # couples
        prop, mail = home()
        a = _person(pool, mail, True)
        b = _person(pool, mail, True, a.last)
        persons += [a, b]
        parcels.append(Parcel(pid(), prop, value(), (a, b)))
    prop, mail = home()  # a resident with a second parcel (a vacant lot)
    o = _person(pool, mail, True)
    persons.append(o)
    parcels.append(Parcel(pid(), prop, value(), (o,)))
    lot, _ = home()
    parcels.append(Parcel(pid(), f"{lot} (vacant land)", value(), (o,)))
    for _ in range(4):  # owners living elsewhere
        o = _person(pool, away(), False)
        persons.append(o)
        parcels.append(Parcel(pid(), home()[0], value(spec.away_scale), (o,)))
    farm = _person(pool, away(), False)  # a farm partly inside
    persons.append(farm)
    parcels.append(
        Parcel(pid(), f"{home()[0]} (farm)", value(2 * spec.away_scale), (farm,), share="0.5")
    )
    trust = Owner(f"{rng.choice(SURNAMES).upper()} FAMILY TRUST", away(), False)
    parcels.append(Parcel(pid(), home()[0], value(), (trust,)))
    church = Owner(f"FIRST CHURCH OF {TERRITORY.upper()}", home()[1], False)
    parcels.append(Parcel(pid(), home()[0], value(), (church,), taxable=False))
    if spec.second_town:  # the part in the second town: owned from elsewhere
        for _ in range(3):
            o = _person(pool, away(), False)
            persons.append(o)
            house, street = pool.address(OUTSIDE_STREETS)
            parcels.append(Parcel(pid(), f"{house} {street}", value(), (o,), town=SECOND_TOWN))
    return Roll(tuple(parcels), tuple(persons))


def _credit(p: Parcel) -> Fraction:
    """One owner's credit in a parcel: the value inside divided among the owners
    (2-202(1)(a)(2); 191 read the same way)."""
    return Fraction(p.value) * Fraction(p.share) / len(p.owners)


@dataclass(frozen=True, slots=True)
class Part:
    label: str
    total: Fraction
    signed: Fraction
    rule: str

    @property
    def met(self) -> bool:
        if self.rule == "more than 1/2":
            return self.total > 0 and self.signed * 2 > self.total
        return self.total > 0 and self.signed * 2 >= self.total

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "total": str(self.total),
            "signed": str(self.signed),
            "share": f"{float(self.signed / self.total):.6f}" if self.total else "0",
            "rule": self.rule,
            "met": self.met,
        }


def _assessed(parcels: Sequence[Parcel], signers: set[str] | None = None) -> Fraction:
    """The value inside of the parcels (signers given: what they are credited with)."""
    if signers is None:
        return sum((Fraction(p.value) * Fraction(p.share) for p in parcels), Fraction(0))
    return sum((_credit(p) for p in parcels for o in p.owners if _oid(o) in signers), Fraction(0))


def _valuation(statute: str, parcels: Sequence[Parcel], signers: set[str]) -> list[Part]:
    if statute == "2202":  # each town's part separately, in full valuation if several
        towns = sorted({p.town or TOWN for p in parcels})
        parts = []
        for town in towns:
            inside = [p for p in parcels if (p.town or TOWN) == town]
            rate = _rate(town) if len(towns) > 1 else Fraction(1)
            parts.append(
                Part(
                    f"{town}: {'full' if len(towns) > 1 else 'assessed'} valuation",
                    _assessed(inside) / rate,
                    _assessed(inside, signers) / rate,
                    "more than 1/2",
                )
            )
        return parts
    taxable = [p for p in parcels if p.taxable]
    total = sum((Fraction(p.value) * Fraction(p.share) for p in taxable), Fraction(0))
    signed = sum((_credit(p) for p in taxable for o in p.owners if _oid(o) in signers), Fraction(0))
    parts = [Part("all taxable property", total, signed, "at least 1/2")]
    r_total = sum((_credit(p) for p in taxable for o in p.owners if o.resident), Fraction(0))
    if r_total:
        r_signed = sum(
            (_credit(p) for p in taxable for o in p.owners if o.resident and _oid(o) in signers),
            Fraction(0),
        )
        parts.append(
            Part("taxable property owned by resident owners", r_total, r_signed, "at least 1/2")
        )
    return parts


def _owner_lines(
    rng: random.Random,
    pool: NamePool,
    roll: Roll,
    spec: OwnersVariant,
    start: dt.date,
    end: dt.date,
) -> list[Line]:
    """One line per signing owner, plus the planted defect lines (not on the roll; unsigned or
    without a residence; 191: a signer twice)."""
    signers = [
        o for o in roll.persons if rng.random() < (spec.p_resident if o.resident else spec.p_away)
    ]
    non_signers = [o for o in roll.persons if o not in signers]
    credited: dict[str, Fraction] = {}
    for p in roll.parcels:
        for o in p.owners:
            credited[_oid(o)] = credited.get(_oid(o), Fraction(0)) + _credit(p)

    def line(o: Owner, defects: tuple[tuple[str, str], ...] = (), **blank: bool) -> Line:
        d = rand_date(rng, start, end)
        fields = [
            ("date", _written(d, rng)),
            ("signature", "" if blank.get("signature") else o.printed),
        ]
        if spec.statute == "191":
            fields += [("name", o.printed)] if spec.printed_name else []
            fields += [("residence", o.mailing)]
        else:
            fields += [
                ("residence", "" if blank.get("residence") else o.mailing),
                ("valuation", _money(credited[_oid(o)])),
            ]
        return Line(tuple(fields), _oid(o), defects)

    lines = [line(o) for o in signers]
    rng.shuffle(lines)
    first, _, last = pool.not_listed()
    house, street = pool.address(VILLAGE_STREETS)
    stranger = Owner("", f"{house} {street}, {TOWN}", True, first, "", last)
    d = rand_date(rng, start, end)
    fields = [("date", _written(d, rng)), ("signature", stranger.printed)]
    if spec.statute == "191":
        fields += [("name", stranger.printed)] if spec.printed_name else []
        fields += [("residence", stranger.mailing)]
    else:
        fields += [("residence", stranger.mailing), ("valuation", "$96,000")]
    defect_lines = [Line(tuple(fields), None, (("SIGNER_NOT_OWNER", FATAL),))]
    if non_signers:
        o = non_signers[0]
        if spec.statute == "191":
            unsigned = line(o, (("NO_SIGNATURE", FATAL),), signature=True)
            # With no printed name, nothing on the line names the owner.
            defect_lines.append(unsigned if spec.printed_name else replace(unsigned, voter_id=None))
        else:
            defect_lines.append(line(o, (("RESIDENCE_MISSING", FATAL),), residence=True))
    for dl in defect_lines:
        lines.insert(rng.randint(min(1, len(lines)), len(lines)), dl)
    again = next((ln for ln in lines if not ln.defects), None)
    if spec.statute == "191" and again is not None:  # a signer who signs again at the end
        lines.append(replace(again, fields=tuple(
            (k, _written(rand_date(rng, start, end), rng) if k == "date" else v)
            for k, v in again.fields
        )))  # fmt: skip
    return lines


def _witness_defect(stmt: Statement, number: int) -> tuple[Statement, tuple[tuple[str, str], ...]]:
    """191's planted statement defects (pipeline/rules/town_191.py, `authenticated`): sheet 1's
    witness does not sign (nothing on it is authenticated: every line falls); sheet 3's leaves
    the date empty (a person decides). § 191 asks no residence of the witness beyond the
    statement's, and no witness of the village, so neither is planted."""
    if number == 1:
        return replace(stmt, unsigned=True), (("WITNESS_NOT_SIGNED", FATAL),)
    return replace(stmt, date_blank=True), (("WITNESS_DATE_MISSING", REVIEW),)


def _owners(rng: random.Random, kind: str, variant: str) -> tuple[Drawn, Petition]:
    spec = OWNERS_VARIANTS[(kind, variant)]
    rows = 10
    if spec.statute == "191":
        filed = dt.date(2026, 10, 20)
        start, end = dt.date(2026, 9, 1), dt.date(2026, 10, 10)
    else:
        filed = dt.date(2026, 10, 13)
        start, end = dt.date(2026, 9, 1), dt.date(2026, 9, 30)
    for _attempt in range(200):
        pool = NamePool(rng)
        roll = _roll(rng, pool, spec)
        lines = _owner_lines(rng, pool, roll, spec, start, end)
        n_sheets = -(-len(lines) // (rows - 1))
        size = -(-len(lines) // n_sheets)
        chunks = _chunks(lines, [size] * n_sheets)
        mismatch = n_sheets if spec.mismatch_sheet and n_sheets >= 2 else None
        sheets = []
        for i, chunk in enumerate(chunks, start=1):
            signed = max(_signing_dates(chunk, filed))
            sworn = min(signed + dt.timedelta(days=rng.randint(1, 4)), filed)
            count = len(chunk) + (1 if i == mismatch else 0)
            defects: tuple[tuple[str, str], ...] = (
                (("WITNESS_COUNT_MISMATCH", REVIEW),) if i == mismatch else ()
            )
            residents = [o for o in roll.persons if o.resident]
            w = residents[(i * 7) % len(residents)]
            if spec.statute == "2202":
                house_street = w.mailing.split(",")[0]
                stmt = Statement(
                    "affidavit", w.printed, house_street, sworn, count, county=COUNTY, town=TOWN
                )
                number_text = f"Page No. {i}"
            elif i % 3 == 2:
                first, _, last = pool.name()
                stmt = Statement("notary", f"{first} {last}", "", sworn, count)
                number_text = f"Sheet No. {i}"
            else:
                stmt = Statement("witness-new", w.printed, w.mailing, sworn, count)
                number_text = f"Sheet No. {i}"
            if spec.witness_defects and i in (1, 3):
                stmt, defects = _witness_defect(stmt, i)
            sheets.append(SheetSpec(i, number_text, tuple(chunk), rows, stmt, defects))
        statuses = _statuses(sheets)
        valid_ids = {
            ln.voter_id
            for sheet, st in zip(sheets, statuses, strict=True)
            for ln, (_, status) in zip(sheet.lines, st, strict=True)
            if status == "valid" and ln.voter_id
        }
        possible = valid_ids | {
            ln.voter_id
            for sheet, st in zip(sheets, statuses, strict=True)
            for ln, (_, status) in zip(sheet.lines, st, strict=True)
            if status == "needs_review" and ln.voter_id
        }
        # The balancing parcel: a company's, that never signs, sized to the target share.
        # Built to fall short: aimed with every line in review counted; else with the valid.
        # Undetermined: aimed with the lines in review counted, and checked short without them.
        aim = valid_ids if spec.intended == "sufficient" else possible
        base = _valuation(spec.statute, roll.parcels, aim)[0]
        if spec.target is None:
            balance = 2 * base.signed - base.total
        else:
            balance = Fraction(int(base.signed / spec.target - base.total) // 100 * 100)
        if balance < 1200 or balance.denominator != 1:
            continue
        company = Owner("ELMWOOD HOLDINGS LLC", "200 State St, Albany", False)
        site = f"{pool.address(VILLAGE_STREETS)[0]} Route 9"
        parcels = roll.parcels + (Parcel("90.1-1-1", site, int(balance), (company,)),)
        if spec.second_town:  # the second town's part: a quarry sized to 40% signed there
            there = [p for p in parcels if p.town == SECOND_TOWN]
            quarry = int(_assessed(there, aim) / Fraction(2, 5) - _assessed(there)) // 100 * 100
            if quarry < 1200:
                continue
            owner = Owner(f"{SECOND_TOWN.upper()} QUARRY INC", "1 Quarry Rd, Oakdale", False)
            site = f"{pool.address(OUTSIDE_STREETS)[0]} Quarry Rd"
            parcels += (Parcel("91.1-1-1", site, quarry, (owner,), town=SECOND_TOWN),)
        now = _valuation(spec.statute, parcels, valid_ids)
        best = _valuation(spec.statute, parcels, possible)
        now_met, best_met = all(p.met for p in now), all(p.met for p in best)
        verdict = "sufficient" if now_met else "insufficient" if not best_met else "undetermined"
        if verdict != spec.intended:
            continue
        if spec.resident_rule == "short" and (len(now) < 2 or now[1].met or not now[0].met):
            continue
        if spec.resident_rule == "meet" and (len(now) < 2 or not now[1].met):
            continue
        if spec.target is None and now[0].signed * 2 != now[0].total:
            continue
        if spec.second_town and (len(now) != 2 or not now[0].met or now[1].met):
            continue
        break
    else:
        raise RuntimeError(f"no roll reached the variant {variant!r} in 200 attempts")

    if spec.statute == "191":
        title = f"PETITION FOR THE ESTABLISHMENT OF THE {TERRITORY.upper()} SEWER DISTRICT"
        above = (
            f"To the Town Board of the Town of {TOWN}, County of {COUNTY}: The undersigned, "
            f"owners of taxable real property situate in the proposed {TERRITORY} Sewer "
            f"District in the Town of {TOWN}, petition the Town Board for the establishment of "
            "the district, whose boundaries are described in Schedule A annexed as in a deed of "
            "conveyance, and for the construction of a sanitary sewer system to serve it. The "
            "maximum amount proposed to be expended for the improvement is $1,250,000.",
        )
        columns = Columns(
            ("Date", "Signature", "Printed Name", "Address"),
            ("date", "signature", "name", "residence"),
            (70.0, 150.0, 140.0, 180.0),
        )
        if not spec.printed_name:
            columns = Columns(
                ("Date", "Signature", "Address"),
                ("date", "signature", "residence"),
                (70.0, 230.0, 240.0),
            )
        case_toml = _case_toml(
            f"Town of {TOWN}: petition for the {TERRITORY} Sewer District (synthetic)",
            kind,
            filed,
            f"\n[district]\nname = {_q(f'{TERRITORY} Sewer District')}\n"
            'roll = { path = "roll.csv" }\n'
            "boundaries_described = true\nmaximum_amount = 1250000\n",
            village=TERRITORY,
            register=False,
        )
    else:
        title = f"PETITION FOR THE INCORPORATION OF THE VILLAGE OF {TERRITORY.upper()}"
        above = (
            "SIGNATURE PAGE. We, the undersigned, owners of more than fifty percent in assessed "
            "valuation of the real property in the territory described in the annexed "
            f"description, assessed upon the last completed assessment roll of the Town of "
            f"{TOWN}, petition for its incorporation as the Village of {TERRITORY}. This "
            "petition is signed on the basis of Village Law section 2-202(1)(a)(2). Each of us "
            "is familiar with the contents and purpose of the petition and with the boundaries "
            "of the territory sought to be incorporated.",
        )
        columns = Columns(
            ("Date", "Signature", "Residence", "Assessed Valuation"),
            ("date", "signature", "residence", "valuation"),
            (70.0, 170.0, 200.0, 100.0),
        )
        residents = [o for o in roll.persons if o.resident]
        designees = [(o.printed, o.mailing, True) for o in residents[-3:]]
        case_toml = _case_toml(
            f"Incorporation of the Village of {TERRITORY} (owners; synthetic)",
            kind,
            filed,
            _incorporation_toml(
                "owners",
                designees,
                owners_roll=True,
                towns=(TOWN, SECOND_TOWN) if spec.second_town else (TOWN,),
            ),
            village=TERRITORY,
            register=False,
        )
    drawn = Drawn(title, above, columns, tuple(sheets), case_toml)
    cite = "Town Law § 191" if spec.statute == "191" else "Village Law § 2-202(1)(a)(2)"
    how = (
        f"{cite}: "
        + "; ".join(
            f"{p.label}: signed {p.signed} of {p.total} ({float(p.signed / p.total):.4%}), "
            f"{p.rule} required, {'met' if p.met else 'not met'}"
            for p in now
        )
        + f"; with every line in review counted: {'met' if best_met else 'not met'}: {verdict}."
    )
    facts = Petition(
        head={"basis": "owners" if spec.statute == "2202" else None, "petition_defects": []},
        tail={
            "valuation": [p.as_json() for p in now],
            "valuation_best": [p.as_json() for p in best],
        },
        expected=lambda counts: {
            "denominator": None,
            "required": None,
            "verdict": verdict,
            "how": how,
        },
        inputs=lambda folder: write_roll(parcels, TOWN, folder / "roll.csv"),
        files=(
            "`roll.csv`: the town's latest completed assessment roll in our CSV layout (one "
            "row per owner of a parcel; matchers/assessment_roll.py)",
        ),
        what=spec.what,
    )
    return drawn, facts


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def generate_kind(
    out: str | Path,
    kind: str,
    variant: str,
    seed: int,
    *,
    handwriting: bool = False,
    system_fonts: bool = True,
    fonts: str = "all",
    layouts: str | None = None,
) -> dict[str, Any]:
    """Write one synthetic case of `kind` / `variant` into `out` (created if missing) and
    return its truth (also written to truth.json). Deterministic from the seed (and, with
    `handwriting`, the handwriting fonts installed; `system_fonts=False` uses the built-ins;
    `fonts` picks a part of the fonts' fixed split, "dev" or "heldout").

    Typed (the default), every entry is Helvetica. With `handwriting` the same case (the same
    signers, defects, statuses and verdict) is filled in by hand: see `_handwrite`. With
    `layouts` ("dev" or "heldout") the signature table and the number are set as one of that
    split's layout families sets them (`layouts.kind_style`: rules, row heights, titles, the
    number's place), recorded in the truth; the same case otherwise."""
    if kind not in VARIANTS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    if variant not in VARIANTS[kind]:
        raise ValueError(
            f"unknown variant {variant!r} of {kind}; one of {', '.join(VARIANTS[kind])}"
        )
    out = _mk(Path(out))
    key = f"{kind}/{variant}/{seed}"
    rng = random.Random(key)
    fill = Fill(key, available_fonts(system_fonts, fonts)) if handwriting else None
    style = KIND_CLASSIC
    if layouts is not None:
        from .layouts import hand_fonts_for, kind_style

        style = kind_style(random.Random(f"{key}/layout"), layouts, KIND_FIELDS[kind])
        if fill is not None:  # the split's handwriting fonts
            fill = Fill(key, hand_fonts_for(system_fonts, fonts, layouts))
    plan = (
        _nomination
        if kind == "independent_nomination"
        else _incorporation_residents
        if variant == "residents"
        else _owners
    )
    drawn, facts = plan(rng, kind, variant)
    return _finish(out, Ask(kind, variant, seed, fill, style), drawn, facts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m synth.kinds",
        description="Write a synthetic petition case (no real person's data) of another kind.",
    )
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument(
        "--handwriting",
        action="store_true",
        help="fill the sheets in by hand (handwriting fonts, when installed) instead of typed",
    )
    parser.add_argument(
        "--builtin-fonts",
        action="store_true",
        help="with --handwriting: Helvetica even when handwriting fonts are installed",
    )
    args = parser.parse_args(argv)
    try:
        truth = generate_kind(
            args.out,
            args.kind,
            args.variant,
            args.seed,
            handwriting=args.handwriting,
            system_fonts=not args.builtin_fonts,
        )
    except ValueError as err:
        print(err, file=sys.stderr)
        return 64
    e = truth["expected"]
    print(
        f"{args.kind}/{args.variant} seed {args.seed} -> {args.out}: {e['verdict']} "
        f"({e['valid']} valid, {e['needs_review']} in review, {e['invalid']} invalid)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
