"""Small builders of records for unit tests. All names and addresses are invented."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from pipeline.case import CaseConfig
from pipeline.records import (
    Candidate,
    Field,
    Match,
    MatchDecision,
    PageKind,
    PageRef,
    RegisterEntry,
    Sheet,
    SheetHeader,
    SignatureLine,
    Source,
    WitnessStatement,
)

ADOPTED = dt.date(2026, 9, 14)
FILED = dt.date(2026, 10, 9)
ELECTION = dt.date(2026, 3, 17)


def case(**over: Any) -> CaseConfig:
    data: dict[str, Any] = {
        "name": "Village of Testville: referendum (synthetic)",
        "kind": "permissive_referendum",
        "proposition": "Local Law No. 1 of 2026",
        "sheets": [Path("sheets")],
        "municipality": {"village": "Testville", "town": "Greenfield", "county": "Albany"},
        "dates": {"adopted": ADOPTED, "filed": FILED, "previous_general_election": ELECTION},
        "register": {"path": Path("register.csv"), "format": "nysboe"},
    }
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return CaseConfig.model_validate(data)


def page(n: int = 1, kind: PageKind = PageKind.PDF_TEXT) -> PageRef:
    return PageRef(
        path=f"sheets/sheet-{n:02d}.pdf",
        page_index=0,
        content_hash=f"{n:02d}" * 32,
        kind=kind,
        width=612.0,
        height=792.0,
    )


def line(
    line_no: int = 1,
    *,
    page_n: int = 1,
    date: str = "10/01/2026",
    signature: str = "Ann B Carter",
    name: str = "Ann B Carter",
    residence: str = "12 Maple Ave",
    ward: str = "1",
    election_district: str = "2",
    blank: bool = False,
) -> SignatureLine:
    values = {
        "date": date,
        "signature": signature,
        "name": name,
        "residence": residence,
        "ward": ward,
        "election_district": election_district,
    }
    if blank:
        values = dict.fromkeys(values, "")
    return SignatureLine(
        page_id=page(page_n).page_id,
        line_no=line_no,
        fields=tuple(Field(k, v, 1.0, Source.TEXT_LAYER) for k, v in values.items()),
        blank=blank,
    )


def witness(
    *,
    name: str = "Wanda Witness",
    residence: str = "3 Oak St",
    count: str | None = "1",
    date: str = "10/05/2026",
    signature: str = "Wanda Witness",
) -> WitnessStatement:
    def f(n: str, v: str | None) -> Field | None:
        return None if v is None else Field(n, v, 1.0, Source.TEXT_LAYER)

    return WitnessStatement(
        form="witness",
        witness_name=f("witness_name", name),
        residence=f("residence", residence),
        village=f("village", "Testville"),
        county=f("county", "Albany"),
        stated_count=f("stated_count", count),
        date=f("date", date),
        signature=f("signature", signature),
    )


def sheet(
    lines: tuple[SignatureLine, ...] | None = None,
    *,
    n: int | None = 1,
    page_n: int | None = None,
    witness_statement: WitnessStatement | None | str = "auto",
) -> Sheet:
    page_n = page_n if page_n is not None else (n or 1)
    lines = lines if lines is not None else (line(1, page_n=page_n),)
    if witness_statement == "auto":
        witness_statement = witness(count=str(sum(1 for ln in lines if not ln.blank)))
    return Sheet(
        page=page(page_n),
        header=SheetHeader(),
        lines=lines,
        sheet_number=None
        if n is None
        else Field("sheet_number", f"Sheet No. {n}", 1.0, Source.TEXT_LAYER),
        witness=witness_statement,  # type: ignore[arg-type]
        columns=("date", "signature", "name", "residence", "ward", "election_district"),
    )


def entry(voter_id: str = "NY1", **over: Any) -> RegisterEntry:
    data: dict[str, Any] = {
        "voter_id": voter_id,
        "last_name": "CARTER",
        "first_name": "ANN",
        "middle_name": "B",
        "house_number": "12",
        "street_name": "MAPLE AVE",
        "town_city": "GREENFIELD",
        "ward": "1",
        "election_district": "2",
        "status": "A",
        "registration_date": dt.date(2020, 1, 1),
    }
    data.update(over)
    return RegisterEntry(**data)


def match(line_id: str, voter_id: str | None, decision: MatchDecision = MatchDecision.MATCH):
    candidates = (Candidate(voter_id, 100.0, ()),) if voter_id else ()
    return Match(
        line_id,
        decision,
        voter_id if decision is MatchDecision.MATCH else None,
        candidates,
        "test",
        "test match",
    )
