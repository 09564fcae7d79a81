"""Speed of the baseline matcher: 1,000 petition lines against a 5,000-entry register.

Synthetic data only (names and streets drawn from small invented lists with a fixed seed; no
real person's data). Prints the figures; run with `.venv/bin/python bench/match_baseline.py`.

The lines are a mix a real petition might have: copied from the register, with a typo in the
name, with the address written out ("Street", "Apt."), and signers not on the register.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from matchers.baseline import BaselineMatcher
from pipeline.case import MatchingConfig
from pipeline.records import Field, MatchDecision, RegisterEntry, SignatureLine, Source

FIRST = (
    "Ansel",
    "Odile",
    "Ysolde",
    "Caius",
    "Merritt",
    "Thora",
    "Bram",
    "Linnea",
    "Osric",
    "Delphine",
    "Ivo",
    "Rosamund",
    "Tobiah",
    "Wren",
    "Eamon",
    "Sabine",
    "Lorcan",
    "Petra",
    "Hollis",
    "Mireille",
    "Cassius",
    "Elowen",
    "Fenwick",
    "Ines",
)
LAST = (
    "Quillfeather",
    "Marchbanks",
    "Tremaine",
    "Ostrander",
    "Pellow",
    "Vantassel",
    "Birchall",
    "Hawthorne",
    "Lindqvist",
    "Okonkwo",
    "Devereux",
    "Castellano",
    "Ferrante",
    "Galbraith",
    "Halloran",
    "Ingersoll",
    "Jessup",
    "Kettering",
    "Lachance",
    "Mulcahy",
    "Nordquist",
    "Oyelaran",
    "Pemberton",
    "Rutledge",
    "Szabo",
    "Thistlewood",
    "Underhill",
    "Varga",
    "Whitcombe",
    "Yarborough",
)
STREETS = (
    "Main St",
    "Oak Ave",
    "Elm Rd",
    "Broadway",
    "Cedar Ct",
    "Maple Ln",
    "Orchard Rd",
    "Hillside Ter",
    "Lake Shore Blvd",
    "Mill Pl",
    "Spring St",
    "Church St",
    "Park Ave",
    "Ridge Rd",
    "Valley View Dr",
    "Prospect Pl",
    "Washington Ave",
    "Highland Ave",
)
SUFFIXES = ("", "", "", "", "", "", "", "", "JR", "SR", "III")


def make_register(n: int, rng: random.Random) -> list[RegisterEntry]:
    out = []
    for i in range(n):
        out.append(
            RegisterEntry(
                voter_id=f"NY{i:018d}",
                last_name=rng.choice(LAST).upper(),
                first_name=rng.choice(FIRST).upper(),
                middle_name=rng.choice(("", "", rng.choice(FIRST).upper())),
                suffix=rng.choice(SUFFIXES),
                house_number=str(rng.randint(1, 600)),
                street_name=rng.choice(STREETS).upper(),
                apartment=rng.choice(("", "", "", "", str(rng.randint(1, 12)))),
                city="HARROWGATE",
                status=rng.choice(("A", "A", "A", "A", "I", "P")),
            )
        )
    return out


def typo(s: str, rng: random.Random) -> str:
    if len(s) < 3:
        return s
    i = rng.randrange(len(s) - 1)
    return s[:i] + s[i + 1] + s[i] + s[i + 2 :]


def make_lines(
    n: int, register: list[RegisterEntry], rng: random.Random
) -> tuple[list[SignatureLine], list[str | None]]:
    """The lines, and for each the voter it was made from (None: not on the register)."""
    lines = []
    truth: list[str | None] = []
    for i in range(n):
        kind = rng.random()
        if kind < 0.1:  # not on the register
            name = f"{rng.choice(FIRST)} Zwillinger"
            residence = f"{rng.randint(700, 900)} Nowhere Rd"
            truth.append(None)
        else:
            e = rng.choice(register)
            truth.append(e.voter_id)
            name = f"{e.first_name.title()} {e.last_name.title()}"
            residence = e.address
            if kind < 0.4:
                name = typo(name, rng)
            elif kind < 0.6:
                residence = (
                    residence.replace(" ST", " Street")
                    .replace(" AVE", " Avenue")
                    .replace("Apt", "Apt.")
                    + ", Harrowgate NY 12345"
                )
        fields = (
            Field("name", name, 0.9, Source.OCR),
            Field("residence", residence, 0.9, Source.OCR),
        )
        lines.append(SignatureLine(page_id=f"p{i // 10:011d}", line_no=i % 10 + 1, fields=fields))
    return lines, truth


def timed(fn, repeat: int) -> tuple[float, object]:
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=5000)
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(20261129)
    register = make_register(args.entries, rng)
    lines, truth = make_lines(args.lines, register, rng)
    cfg = MatchingConfig()

    print(
        f"baseline matcher: {args.lines} lines x {args.entries} register entries "
        f"(median of {args.repeat})"
    )
    results = []
    for workers in (1, -1):
        build, matcher = timed(lambda w=workers: BaselineMatcher(register, cfg, workers=w), 1)
        secs, matches = timed(lambda m=matcher: m.match_all(lines), args.repeat)
        results.append(matches)
        print(
            f"  workers={workers:>2}: build {build * 1000:7.1f} ms   match_all {secs:6.3f} s   "
            f"{args.lines / secs:8.0f} lines/s"
        )
    assert results[0] == results[1], "the result depends on the number of workers"
    assert isinstance(matches, tuple)
    decisions = Counter(m.decision.value for m in matches)
    print("  decisions:", ", ".join(f"{k} {v}" for k, v in sorted(decisions.items())))
    matched = [
        (m.voter_id, t)
        for m, t in zip(matches, truth, strict=True)
        if m.decision is MatchDecision.MATCH
    ]
    wrong = sum(1 for v, t in matched if v != t)
    absent = [m for m, t in zip(matches, truth, strict=True) if t is None]
    print(f"  MATCH decisions naming the wrong voter: {wrong} of {len(matched)}")
    print(
        f"  signers not on the register: {len(absent)}, of them NO_MATCH "
        f"{sum(m.decision is MatchDecision.NO_MATCH for m in absent)}, REVIEW "
        f"{sum(m.decision is MatchDecision.REVIEW for m in absent)}"
    )


if __name__ == "__main__":
    main()
