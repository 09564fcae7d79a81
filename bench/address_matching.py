"""Precision and recall of address matching on real US addresses with true ids.

Data: ../shared/reference/address-matching/chicago-early-childhood-sites-with-true-ids.csv
(Chicago early childhood sites from the dedupe project's examples; see the LICENSE file next to
it). Each record's address is matched against every other record's: two records are predicted
to be one site when their addresses match, and truly one site when they share `True Id`.
Pairwise precision and recall, for the matcher's address rule (house number EXACT and street
CLOSE or better, units not different) and for the looser rule (street LOOSE or better). Skips
cleanly (exit 0) when the file is absent.

    .venv/bin/python bench/address_matching.py
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections import defaultdict
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from matchers.compare import COMPARISONS, level  # noqa: E402
from matchers.normalize import split_street_address  # noqa: E402
from pipeline.records import ComparisonLevel as L  # noqa: E402

DEFAULT = (
    REPO.parent
    / "shared/reference/address-matching/chicago-early-childhood-sites-with-true-ids.csv"
)
BY_FIELD = {c.field: c for c in COMPARISONS}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--file", type=Path, default=DEFAULT)
    args = parser.parse_args()
    if not args.file.exists():
        print(f"{args.file} is absent; address-matching benchmark skipped")
        return 0
    started = time.perf_counter()
    records = []
    with args.file.open(encoding="utf-8", errors="replace", newline="") as fh:
        for row in csv.DictReader(fh):
            text = f"{row.get('Address', '')} {row.get('Zip', '')}".strip()
            a = split_street_address(text)
            records.append((row["True Id"], a))
    # blocking: the house number (and, for records without one, nothing: they cannot match)
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, (_, a) in enumerate(records):
        if a.house_number:
            blocks[a.house_number].append(i)
    truth = {
        (i, j) for i, j in combinations(range(len(records)), 2) if records[i][0] == records[j][0]
    }
    strict: set[tuple[int, int]] = set()
    loose: set[tuple[int, int]] = set()
    for members in blocks.values():
        for i, j in combinations(members, 2):
            a, b = records[i][1], records[j][1]
            street, _ = level(BY_FIELD["street"], a.street, b.street)
            unit, _ = level(BY_FIELD["unit"], a.unit, b.unit)
            if unit is L.DIFFERENT:
                continue
            if street in (L.EXACT, L.CLOSE):
                strict.add((i, j))
            if street in (L.EXACT, L.CLOSE, L.LOOSE):
                loose.add((i, j))
    seconds = time.perf_counter() - started
    no_number = sum(1 for _, a in records if not a.house_number)
    print(
        f"{len(records):,} records, {len({t for t, _ in records}):,} true ids, "
        f"{len(truth):,} true pairs; {no_number} records without a house number; "
        f"{seconds:.1f} s"
    )
    for name, pred in (("match rule (street close)", strict), ("loose (street loose)", loose)):
        tp = len(pred & truth)
        precision = tp / len(pred) if pred else 1.0
        recall = tp / len(truth) if truth else 1.0
        f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
        print(
            f"  {name:26s} predicted {len(pred):,} pairs: precision {precision:.4f}, "
            f"recall {recall:.4f}, F1 {f1:.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
