"""Write the synthetic register in the NYS Board of Elections voter-export layout.

The layout (NYSVoter "Data File Layout for voter list exports"): 45 fields, every field quoted,
no header row, CR-LF record separator, dates YYYYMMDD. The newer 47-field export (with
RAPARTMENTTYPE and RADDRNONSTD after RAPARTMENT) is only ever read, never written here.
"""

from __future__ import annotations

import csv
import datetime as dt
import logging
from collections.abc import Iterable
from pathlib import Path

from .people import Village, Voter

__all__ = ["NYSBOE_FIELDS", "register_row", "write_register"]

log = logging.getLogger(__name__)

NYSBOE_FIELDS = (
    "LASTNAME",
    "FIRSTNAME",
    "MIDDLENAME",
    "NAMESUFFIX",
    "RADDNUMBER",
    "RHALFCODE",
    "RAPARTMENT",
    "RPREDIRECTION",
    "RSTREETNAME",
    "RPOSTDIRECTION",
    "RCITY",
    "RZIP5",
    "RZIP4",
    "MAILADD1",
    "MAILADD2",
    "MAILADD3",
    "MAILADD4",
    "DOB",
    "GENDER",
    "ENROLLMENT",
    "OTHERPARTY",
    "COUNTYCODE",
    "ED",
    "LD",
    "TOWNCITY",
    "WARD",
    "CD",
    "SD",
    "AD",
    "LASTVOTEDDATE",
    "PREVYEARVOTED",
    "PREVCOUNTY",
    "PREVADDRESS",
    "PREVNAME",
    "COUNTYVRNUMBER",
    "REGDATE",
    "VRSOURCE",
    "IDREQUIRED",
    "IDMET",
    "STATUS",
    "REASONCODE",
    "INACT_DATE",
    "PURGE_DATE",
    "SBOEID",
    "VoterHistory",
)


def _ymd(d: dt.date | None) -> str:
    return d.strftime("%Y%m%d") if d is not None else ""


def register_row(v: Voter, village: Village) -> list[str]:
    """One voter as the 45 fields of the export, in layout order."""
    history = ""
    if v.last_voted is not None:
        history = f"{v.last_voted.year} General Election(GE)"
    values = {
        "LASTNAME": v.last_name,
        "FIRSTNAME": v.first_name,
        "MIDDLENAME": v.middle_name,
        "NAMESUFFIX": v.suffix,
        "RADDNUMBER": v.house_number,
        "RHALFCODE": v.half_code,
        "RAPARTMENT": v.apartment,
        "RSTREETNAME": v.street_name,
        "RCITY": v.city,
        "RZIP5": v.zip5,
        "DOB": _ymd(v.dob),
        "GENDER": v.gender,
        "ENROLLMENT": v.enrollment,
        "COUNTYCODE": village.county_code,
        "ED": v.ed,
        "LD": "",
        "TOWNCITY": v.town,
        "WARD": v.ward,
        "CD": "20",
        "SD": "46",
        "AD": "109",
        "LASTVOTEDDATE": _ymd(v.last_voted),
        "COUNTYVRNUMBER": v.county_vr,
        "REGDATE": _ymd(v.reg_date),
        "VRSOURCE": v.vr_source,
        "IDREQUIRED": "N",
        "IDMET": "Y",
        "STATUS": v.status,
        "REASONCODE": v.reason_code,
        "INACT_DATE": _ymd(v.inactive_date),
        "PURGE_DATE": _ymd(v.purge_date),
        "SBOEID": v.sboeid,
        "VoterHistory": history,
    }
    return [values.get(name, "") for name in NYSBOE_FIELDS]


def write_register(voters: Iterable[Voter], village: Village, path: Path) -> int:
    """Write the register file: all fields quoted, no header, CR-LF. Returns the row count."""
    n = 0
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        for v in voters:
            writer.writerow(register_row(v, village))
            n += 1
    log.debug("wrote %d register rows to %s", n, path)
    return n
