"""The scoring half of `FSMatcher` on a large batch: each distinct pair of values compared once,
and only the pairs that can be among a line's best voters handed to Python.

A batch's candidate pairs (table `cand`: qid, a row of the lines' table `q`; rid, a row of the
register's `entries`; voter, the store's `vno`, one number per voter id; and per compared column
`k_<col>`, the 64-bit key of its pair of values, and `r_<col>`, the register's value:
`pair_columns`) repeat the same pairs of values many times over: a line's surname against the
same register surname in several passes, "12" against "14" for a thousand lines, two common
given names. `compare.compare_arrays` is elementwise (a pair's level and similarity depend on
that pair alone), so comparing each distinct pair once and spreading the result gives exactly the
same levels for a fraction of the work: on 50,000 lines against a 200,000-row register, 2.5
million pairs hold about 0.3 million distinct pairs a column. The line's values stay in `q` (a
few rows a line), read from there for the distinct pairs and for the pairs kept; the register is
read once, for `cand`.

The levels go back to DuckDB (each distinct pair looked up by its key when no two of a batch's
distinct pairs share it, which is checked; else by the two values), which sums each pair's
weight and keeps, per line, the pairs whose weight reaches the `keep`-th best voter's (each voter
at its best pair), less `EPSILON` for the two sums' rounding. The matcher's decision looks at a
line's `candidates + 1` best voters only, so it sees exactly what it would have seen with every
pair (`tests/test_match_scale.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import duckdb
import numpy as np
import pandas as pd

from .compare import Comparison, compare_arrays

__all__ = ["EPSILON", "best_pairs", "pair_columns"]

# Weights are sums of float64 in another order in SQL than in numpy: a pair is dropped only when
# its weight is below the threshold by more than this (they differ by about 1e-14).
EPSILON = 1e-6

# A pair's two values: the line's (in `q`) and the register's (in `cand`, aliased c)
_LINE = "coalesce(q.{0}, '')"
_REGISTER = "c.r_{0}"
_ENTRY = "coalesce(e.{0}, '')"  # the register's, read from `entries` for `cand`
_VALUES = "JOIN q ON q.qid = c.qid"
# A pair's key: 64 bits, of its two values
_KEY = "hash({a}, {b})"


def pair_columns(columns: Iterable[str]) -> str:
    """SQL select list for `cand`, in a query over q and entries (aliased e): for each column,
    `k_<col>`, the key `best_pairs` looks each pair's levels up by, and `r_<col>`, the
    register's value."""
    return ", ".join(
        f"{_KEY.format(a=_LINE.format(c), b=_ENTRY.format(c))} AS k_{c}, "
        f"{_ENTRY.format(c)} AS r_{c}"
        for c in columns
    )


def best_pairs(
    con: duckdb.DuckDBPyConnection,
    comparisons: Sequence[Comparison],
    field_columns: Mapping[str, str],
    table: np.ndarray,
    keep: int | None,
) -> None:
    """From `cand`, the table `scored` (qid, rid, voter, c_<i> level code and s_<i>
    similarity of comparison i, l_<col>, r_<col> the two values) of the pairs that may be among
    their line's `keep` best voters (None: every pair), ordered by qid. `table[i, code]` is
    comparison i's weight."""
    columns = tuple(dict.fromkeys(field_columns[c.field] for c in comparisons))
    hashed = {
        col: _compare_distinct(con, comparisons, field_columns, col, table) for col in columns
    }
    joins = " ".join(_join_levels(col, hashed[col]) for col in columns)
    # the values, only where some column's keys are not unique (looked up by value)
    by_value = "" if all(hashed.values()) else _VALUES
    # Every pair's weight (each column's part looked up by its key); the levels and values are
    # fetched for the pairs kept only, a few percent of them.
    con.execute(
        "CREATE OR REPLACE TEMP TABLE w AS SELECT c.rowid AS rn, c.qid, c.voter, "
        + " + ".join(f"lv_{col}.w" for col in columns)
        + f" AS weight FROM cand c {by_value} {joins}"
    )
    levels = ", ".join(
        f"lv_{field_columns[cmp.field]}.c_{i}, lv_{field_columns[cmp.field]}.s_{i}"
        for i, cmp in enumerate(comparisons)
    )
    values = ", ".join(
        f"{_LINE.format(col)} AS l_{col}, {_REGISTER.format(col)} AS r_{col}" for col in columns
    )
    # the pairs kept: those reaching their line's keep-th best voter's weight (each voter at its
    # best pair), all of a line's that has fewer voters
    kept = (
        "SELECT * FROM cand"
        if keep is None
        else f"""WITH v AS (SELECT qid, voter, max(weight) AS weight FROM w GROUP BY qid, voter),
t AS (SELECT qid, max(weight, {int(keep)})[{int(keep)}] AS weight FROM v GROUP BY qid)
SELECT * FROM cand WHERE rowid IN (SELECT w.rn FROM w LEFT JOIN t USING (qid)
WHERE t.weight IS NULL OR w.weight >= t.weight - {EPSILON})"""
    )
    con.execute(
        f"""
CREATE OR REPLACE TEMP TABLE scored AS
WITH c AS ({kept})
SELECT c.qid, c.rid, c.voter, {levels}, {values}
FROM c {_VALUES} {joins}
ORDER BY c.qid
"""
    )
    con.execute("DROP TABLE w")
    for col in columns:
        con.execute(f"DROP TABLE lv_{col}")


def _join_levels(col: str, hashed: bool) -> str:
    if hashed:  # one 64-bit key, not two strings, for each of the many pairs
        return f"JOIN lv_{col} ON lv_{col}.h = c.k_{col}"
    return (
        f"JOIN lv_{col} ON lv_{col}.a = {_LINE.format(col)} "
        f"AND lv_{col}.b = {_REGISTER.format(col)}"
    )


def _compare_distinct(
    con: duckdb.DuckDBPyConnection,
    comparisons: Sequence[Comparison],
    field_columns: Mapping[str, str],
    col: str,
    table: np.ndarray,
) -> bool:
    """The table `lv_<col>` (h, c_<i>, s_<i>, w; a, b): every distinct pair of values (a, b) of
    `cand`'s pairs in column col, with its key h (`pair_columns`), the level code and similarity
    of each comparison i on that column and the sum w of their weights. True when no two of its
    pairs share h (then a pair of `cand` is looked up by its key alone: it is one of these
    pairs, so it finds only its own row, and a and b are left out), False otherwise (looked up
    by its two values)."""
    distinct = (
        f"SELECT DISTINCT {_LINE.format(col)} AS a, {_REGISTER.format(col)} AS b "
        f"FROM cand c {_VALUES}"
    )
    got = con.execute(
        f"SELECT a, b, {_KEY.format(a='a', b='b')} AS h FROM ({distinct})"
    ).fetchnumpy()
    aa, bb = list(got["a"]), list(got["b"])
    h = np.asarray(got["h"], dtype=np.uint64)
    # sorted, not np.unique: numpy's hash-based unique took 0.3-1 s a column on a batch's
    # million distinct pairs, the sort a hundredth of it
    ordered = np.sort(h)
    unique = not bool((ordered[1:] == ordered[:-1]).any())
    # the two values only where they are looked up by (unique: the key alone)
    frame: dict[str, object] = {"h": h} if unique else {"h": h, "a": aa, "b": bb}
    weight = np.zeros(len(h))
    for i, cmp in enumerate(comparisons):
        if field_columns[cmp.field] == col:
            codes, sims = compare_arrays(cmp, aa, bb)
            frame[f"c_{i}"], frame[f"s_{i}"] = codes, sims
            weight = weight + table[i][codes]
    frame["w"] = weight
    con.register("lv_df", pd.DataFrame(frame))
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE lv_{col} AS SELECT * FROM lv_df")
    finally:
        con.unregister("lv_df")
    return unique
