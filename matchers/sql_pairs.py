"""The scoring half of `FSMatcher` on a large batch: each distinct pair of values compared once,
and only the pairs that can be among a line's best voters handed to Python.

A batch's candidate pairs (table `cand`: qid, rid, voter (the store's `vno`, one number per voter
id), and each compared column twice, `l_<col>` the line's value and `r_<col>` the register's) repeat
the same pairs of values many times over: a line's surname against the same register surname in
several passes, "12" against "14" for a thousand lines, two common given names.
`compare.compare_arrays` is elementwise (a pair's level and similarity depend on that pair alone),
so comparing each distinct pair once and spreading the result gives exactly the same levels for a
fraction of the work: on 50,000 lines against a 200,000-row register, 2.5 million pairs hold about
0.3 million distinct pairs a column.

The levels go back to DuckDB (each distinct pair keyed by one 64-bit hash of its two values
when no two of a batch's pairs share it, which is checked; else by the two values), which sums
each pair's weight and keeps, per line, the pairs whose weight reaches the `keep`-th best
voter's (each voter at its best pair), less `EPSILON` for the two sums' rounding. The matcher's
decision looks at a line's `candidates + 1` best voters only, so it sees exactly what it would
have seen with every pair (`tests/test_match_scale.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import duckdb
import numpy as np
import pandas as pd

from .compare import Comparison, compare_arrays

__all__ = ["EPSILON", "best_pairs"]

# Weights are sums of float64 in another order in SQL than in numpy: a pair is dropped only when
# its weight is below the threshold by more than this (they differ by about 1e-14).
EPSILON = 1e-6


def best_pairs(
    con: duckdb.DuckDBPyConnection,
    comparisons: Sequence[Comparison],
    field_columns: Mapping[str, str],
    table: np.ndarray,
    keep: int,
) -> None:
    """From `cand`, the table `scored` (qid, rid, voter, c_<i> level code and s_<i>
    similarity of comparison i, l_<col>, r_<col>) of the pairs that may be among their line's
    `keep` best voters, ordered by qid. `table[i, code]` is comparison i's weight."""
    columns = tuple(dict.fromkeys(field_columns[c.field] for c in comparisons))
    hashed = {
        col: _compare_distinct(con, comparisons, field_columns, col, table) for col in columns
    }
    joins = " ".join(_join_levels(col, hashed[col]) for col in columns)
    # Every pair's weight (each column's part looked up by its pair of values); the levels and
    # values are fetched for the pairs kept only, a few percent of them.
    con.execute(
        "CREATE OR REPLACE TEMP TABLE w AS SELECT c.qid, c.rid, c.voter, "
        + " + ".join(f"lv_{col}.w" for col in columns)
        + " AS weight FROM cand c "
        + joins
    )
    levels = ", ".join(
        f"lv_{field_columns[cmp.field]}.c_{i}, lv_{field_columns[cmp.field]}.s_{i}"
        for i, cmp in enumerate(comparisons)
    )
    values = ", ".join(f"c.l_{col}, c.r_{col}" for col in columns)
    con.execute(
        f"""
CREATE OR REPLACE TEMP TABLE scored AS
WITH v AS (SELECT qid, voter, max(weight) AS weight FROM w GROUP BY qid, voter),
t AS (SELECT qid, weight FROM (SELECT qid, weight,
    row_number() OVER (PARTITION BY qid ORDER BY weight DESC) AS n FROM v) WHERE n = {int(keep)}),
k AS (SELECT w.qid, w.rid FROM w LEFT JOIN t USING (qid)
    WHERE t.weight IS NULL OR w.weight >= t.weight - {EPSILON})
SELECT c.qid, c.rid, c.voter, {levels}, {values}
FROM k JOIN cand c ON c.qid = k.qid AND c.rid = k.rid {joins}
ORDER BY c.qid
"""
    )
    con.execute("DROP TABLE w")
    for col in columns:
        con.execute(f"DROP TABLE lv_{col}")


def _join_levels(col: str, hashed: bool) -> str:
    if hashed:  # one 64-bit key, not two strings, for each of the many pairs
        return f"JOIN lv_{col} ON lv_{col}.h = hash(c.l_{col}, c.r_{col})"
    return f"JOIN lv_{col} ON lv_{col}.a = c.l_{col} AND lv_{col}.b = c.r_{col}"


def _compare_distinct(
    con: duckdb.DuckDBPyConnection,
    comparisons: Sequence[Comparison],
    field_columns: Mapping[str, str],
    col: str,
    table: np.ndarray,
) -> bool:
    """The table `lv_<col>` (a, b, c_<i>, s_<i>, w, h): every distinct (l_<col>, r_<col>) pair
    of `cand`, with the level code and similarity of each comparison i on that column, the sum
    w of their weights, and h = hash(a, b). True when no two of its pairs share h (then a pair
    of `cand` is looked up by its hash alone: it is one of these pairs, so it finds only its
    own row), False otherwise (looked up by its two values)."""
    got = con.execute(f"SELECT DISTINCT l_{col} AS a, r_{col} AS b FROM cand").fetchnumpy()
    a = np.asarray(got["a"], dtype=object)
    b = np.asarray(got["b"], dtype=object)
    frame = {"a": a, "b": b}
    aa, bb = a.tolist(), b.tolist()
    weight = np.zeros(len(a))
    for i, cmp in enumerate(comparisons):
        if field_columns[cmp.field] == col:
            frame[f"c_{i}"], frame[f"s_{i}"] = compare_arrays(cmp, aa, bb)
            weight = weight + table[i][frame[f"c_{i}"]]
    frame["w"] = weight
    con.register("lv_df", pd.DataFrame(frame))
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE lv_{col} AS SELECT *, hash(a, b) AS h FROM lv_df"
        )
    finally:
        con.unregister("lv_df")
    unique = con.execute(f"SELECT count(*) = count(DISTINCT h) FROM lv_{col}").fetchall()
    return bool(unique[0][0])
