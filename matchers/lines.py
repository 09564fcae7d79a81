"""A batch's lines prepared for matching: the table `q` of a store cursor.

`line_frame(con, texts, places)` splits each (name, residence) text the way the matcher reads it
(the name every way `normalize.name_readings` gives, and, where no voter has its first word as
a given name, `normalize.initial_run_apart`'s, each reading but the first costing
READING_PENALTY bits; the residence into house number, street, unit and postcode, a trailing
place name the register knows dropped, every way `normalize.street_readings` gives) and
normalizes it in SQL exactly as the register was (`store.NORMALIZED_SQL`, with the same
blocking keys). Used by the matcher and by the weights'
estimate of m, so both read lines one way.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import pandas as pd

from .nicknames import KNOWN_GIVEN_NAMES
from .normalize import (
    PersonName,
    initial_run_apart,
    name_readings,
    split_person_name,
    split_street_address,
    street_readings,
)
from .store import NORMALIZED_SQL

__all__ = ["READING_PENALTY", "line_frame"]

READING_PENALTY = 2.0  # bits: a name read another way than usual (normalize.name_readings)

_PLACE_WORDS = ("OF", "VILLAGE", "TOWN", "CITY", "VILL")


def _strip_place(street: str, places: frozenset[str], longest: int) -> str:
    tokens = street.split()
    for k in range(min(longest, len(tokens) - 1), 0, -1):
        if " ".join(tokens[-k:]) in places:
            rest = tokens[:-k]
            while rest and rest[-1] in _PLACE_WORDS:
                rest.pop()
            return " ".join(rest)
    return street


def _run_apart(
    con: duckdb.DuckDBPyConnection, lines: Sequence[tuple[str, str]]
) -> dict[int, tuple[PersonName, ...]]:
    """Per line (its position), the readings of a single letter between two words as the
    given name's last, run apart (`normalize.initial_run_apart`: "Cnono R Stitz" as CNONOR
    STITZ), for the lines whose first word is no voter's given name (the store's
    `given_names`) nor a name of the nickname table: "John A Smith" is JOHN with a middle
    initial, and is not read again."""
    extra = {n: initial_run_apart(name) for n, (name, _) in enumerate(lines)}
    extra = {n: got for n, got in extra.items() if got}
    if not extra:
        return {}
    # the first word: the joined given name less the letter
    firsts = {n: got[0].first[:-1] for n, got in extra.items()}
    known = {
        str(a)
        for (a,) in con.execute(
            "SELECT n_first FROM given_names WHERE n_first IN (SELECT unnest(?))",
            [sorted(set(firsts.values()))],
        ).fetchall()
    }
    return {
        n: got
        for n, got in extra.items()
        if firsts[n] not in known and firsts[n] not in KNOWN_GIVEN_NAMES
    }


def line_frame(
    con: duckdb.DuckDBPyConnection,
    lines: Sequence[tuple[str, str]],
    places: Sequence[str],
    *,
    readings: bool = False,
    columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """(name, residence) texts -> the temp table `q` of `con` (a store's cursor: normalized
    fields and blocking keys, `qid` = row, `line` = the text's position, `penalty` = bits the
    reading costs), returned as a frame in qid order. With `readings`, each name read every way
    `name_readings` gives, with each way `street_readings` reads the residence (consecutive rows
    of one line; the usual reading first, penalty 0, each other way of the name or of the
    residence READING_PENALTY); else one row a line (qid = line). The frame holds `columns`
    (default: all of them)."""
    place_set = frozenset(p for p in places if p)
    longest = max((len(p.split()) for p in place_set), default=0)
    rows: list[tuple[object, ...]] = []
    run_apart = _run_apart(con, lines) if readings else {}
    for n, (name, residence) in enumerate(lines):
        people = (
            name_readings(name) + run_apart.get(n, ()) if readings else (split_person_name(name),)
        )
        addresses = street_readings(residence) if readings else (split_street_address(residence),)
        for a, address in enumerate(addresses):
            street = (
                _strip_place(address.street, place_set, longest) if place_set else address.street
            )
            if a and (not street or street in place_set):
                continue  # the part read as a street is the register's place name
            for k, person in enumerate(people):
                rows.append(
                    (
                        len(rows),
                        n,
                        READING_PENALTY * ((k > 0) + (a > 0)),
                        person.first,
                        person.middle,
                        person.last,
                        person.suffix,
                        address.house_number,
                        "",
                        address.unit,
                        "",
                        street,
                        "",
                        address.zip5,
                    )
                )
    frame = pd.DataFrame(
        rows,
        columns=[
            "qid",
            "line",
            "penalty",
            "first_name",
            "middle_name",
            "last_name",
            "suffix",
            "house_number",
            "half_code",
            "apartment",
            "pre_direction",
            "street_name",
            "post_direction",
            "zip5",
        ],
    ).astype({c: "object" for c in ("first_name", "last_name", "street_name")})
    frame = frame.astype({"qid": "int64", "line": "int64", "penalty": "float64"})
    con.register("q_df", frame)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE q AS "
            + NORMALIZED_SQL.format(src="q_df")
            + " ORDER BY qid"
        )
    finally:
        con.unregister("q_df")
    return con.execute(f"SELECT {', '.join(columns or ('*',))} FROM q ORDER BY qid").df()
