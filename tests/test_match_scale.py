"""The matcher's large-batch machinery gives exactly what the plain computation gives.

`matchers.sql_pairs` compares each distinct pair of values once and spreads the levels over the
candidate pairs (only right while `compare.compare_arrays` is elementwise), then keeps a line's
pairs only if they may be among its best voters. These tests check both against the plain
computation, pair by pair, and the matcher's every Match against scoring every pair. All names
and addresses are invented.
"""

from __future__ import annotations

import random

import duckdb
import numpy as np
import pandas as pd
import pytest

from matchers import sql_pairs
from matchers.compare import COMPARISONS, FIELD_COLUMNS, compare_arrays
from matchers.sql_pairs import best_pairs
from matchers.weights import load_weights

_VALUES = {
    "n_first": ["JOHN", "JON", "JONH", "J", "PEGGY", "MARGARET", "MARY", "MARK", "LARNAR", ""],
    "n_middle": ["A", "ANN", "ANNE", "B", ""],
    "n_last": ["SMITH", "SMYTH", "SMITHE", "0SMOND", "OSMOND", "LAMAR", "LARNAR", "SM", ""],
    "n_suffix": ["JR", "SR", "II", ""],
    "n_house": ["12", "13", "121", "l47", "147", "7O", "70", "12 1/2", ""],
    "n_street": ["MAIN ST", "MAIN", "MAIN AVE", "N MAIN ST", "OAK CT", "OAK ST", "ELM RD", ""],
    "n_unit": ["2", "2B", ""],
    "n_zip": ["12345", "12346", ""],
}


def _cand(n: int, seed: int) -> pd.DataFrame:
    """n candidate pairs over a few lines, values drawn from small sets (many repeats): each
    pair (qid, rid) with the line's values (l_<col>) and the entry's (r_<col>)."""
    rng = random.Random(seed)
    lines = n // 10 + 1
    rows: dict[str, list[object]] = {
        "qid": sorted(rng.randrange(lines) for _ in range(n)),
        "rid": list(range(n)),
        "voter": [rng.randrange(n) for _ in range(n)],  # a voter's rows share a number
    }
    for col, values in _VALUES.items():
        line = [rng.choice(values) for _ in range(lines)]
        rows[f"l_{col}"] = [line[q] for q in rows["qid"]]  # type: ignore[index]
        rows[f"r_{col}"] = [rng.choice(values) for _ in range(n)]
    return pd.DataFrame(rows)


def _tables(frame: pd.DataFrame) -> duckdb.DuckDBPyConnection:
    """The tables `best_pairs` reads: the lines `q`, the register `entries` and the pairs
    `cand` (keyed as the matcher's prefilter keys them, `sql_pairs.pair_columns`)."""
    con = duckdb.connect(":memory:")
    lines = frame.drop_duplicates("qid")
    con.register("q_df", lines.rename(columns=lambda c: c.removeprefix("l_"))[["qid", *_VALUES]])
    con.register("e_df", frame.rename(columns=lambda c: c.removeprefix("r_"))[["rid", *_VALUES]])
    con.execute("CREATE TEMP TABLE q AS SELECT * FROM q_df")
    con.execute("CREATE TEMP TABLE entries AS SELECT * FROM e_df")
    con.register("pairs_df", frame[["qid", "rid", "voter"]])
    columns = sql_pairs.pair_columns(_VALUES)
    con.execute(
        f"CREATE TEMP TABLE cand AS SELECT p.qid, p.rid, p.voter, {columns} "
        "FROM pairs_df p JOIN q USING (qid) JOIN entries e USING (rid)"
    )
    return con


def test_each_distinct_pair_compared_once_gives_every_pair_its_own_levels():
    frame = _cand(3_000, seed=5)
    con = _tables(frame)
    distinct = con.execute(
        "SELECT count(DISTINCT (q.n_last, e.n_last)) FROM cand "
        "JOIN q USING (qid) JOIN entries e USING (rid)"
    ).fetchall()
    assert distinct[0][0] < len(frame) / 4  # the point: far fewer comparisons than pairs
    table = load_weights().table
    best_pairs(con, COMPARISONS, FIELD_COLUMNS, table, keep=None)  # keep every pair
    got = con.execute("SELECT * FROM scored ORDER BY rid").fetchnumpy()
    assert np.array_equal(got["rid"], np.arange(len(frame)))
    for i, cmp in enumerate(COMPARISONS):
        col = FIELD_COLUMNS[cmp.field]
        assert np.array_equal(got[f"l_{col}"], frame[f"l_{col}"].to_numpy(dtype=object))
        assert np.array_equal(got[f"r_{col}"], frame[f"r_{col}"].to_numpy(dtype=object))
        codes, sims = compare_arrays(cmp, frame[f"l_{col}"].tolist(), frame[f"r_{col}"].tolist())
        assert np.array_equal(got[f"c_{i}"], codes), cmp.field
        assert np.array_equal(got[f"s_{i}"], sims), cmp.field


def test_pairs_whose_keys_collide_are_looked_up_by_their_values(monkeypatch):
    """Should two distinct pairs of values share a key, the levels are looked up by value (the
    same levels as by key). Forced here with a key that is 0 for every pair."""
    import matchers.sql_pairs as sql_pairs

    monkeypatch.setattr(sql_pairs, "_KEY", "CAST(0 AS UBIGINT)")
    frame = _cand(500, seed=7)
    con = _tables(frame)
    best_pairs(con, COMPARISONS, FIELD_COLUMNS, load_weights().table, keep=None)
    got = con.execute("SELECT * FROM scored ORDER BY rid").fetchnumpy()
    assert np.array_equal(got["rid"], np.arange(len(frame)))
    for i, cmp in enumerate(COMPARISONS):
        col = FIELD_COLUMNS[cmp.field]
        codes, _ = compare_arrays(cmp, frame[f"l_{col}"].tolist(), frame[f"r_{col}"].tolist())
        assert np.array_equal(got[f"c_{i}"], codes), cmp.field


def test_only_pairs_that_cannot_be_among_the_best_voters_are_dropped():
    frame = _cand(3_000, seed=6)
    con = _tables(frame)
    table = load_weights().table
    best_pairs(con, COMPARISONS, FIELD_COLUMNS, table, keep=3)
    got = con.execute("SELECT * FROM scored").df()
    every = np.zeros(len(frame))
    for i, cmp in enumerate(COMPARISONS):
        col = FIELD_COLUMNS[cmp.field]
        codes, _ = compare_arrays(cmp, frame[f"l_{col}"].tolist(), frame[f"r_{col}"].tolist())
        every += table[i][codes]
    frame = frame.assign(weight=every)
    assert 0 < len(got) < len(frame)
    for qid, pairs in frame.groupby("qid"):
        voters = pairs.groupby("voter").weight.max().sort_values(ascending=False)
        floor = voters.iloc[2] if len(voters) > 2 else -np.inf
        must = set(pairs.rid[pairs.weight >= floor])
        kept = set(got.rid[got.qid == qid])
        assert must <= kept, qid  # every pair of the 3 best voters (and ties) is kept
        assert kept <= set(pairs.rid[pairs.weight >= floor - 1e-6]), qid


@pytest.mark.slow
def test_keeping_only_the_best_voters_decides_as_scoring_every_pair(tmp_path, monkeypatch):
    """FSMatcher hands its decision only the pairs that may be among a line's best
    `candidates + 1` voters; with every pair kept, every Match (decision, voter, candidates,
    evidence, reason) is the same. A synthetic register dense enough that lines have many
    candidates (a register of invented voters, noisy invented signers)."""
    import matchers.matcher as matcher_module
    from matchers.store import open_store
    from matchers.weights import noisy_signer, write_synthetic_register
    from pipeline.case import MatchingConfig, RegisterConfig
    from pipeline.records import Field, SignatureLine, Source

    path = tmp_path / "register.csv"
    write_synthetic_register(path, 20_000, 3)
    store = open_store(RegisterConfig(path=path), tmp_path / "cache")
    rng = random.Random(4)
    entries = store.by_rid(store.sample_rids(300, 4))
    lines = []
    for k, e in enumerate(entries):
        name, residence = noisy_signer(e, rng, handwriting=k % 2 == 1)
        fields = (
            Field("name", name, 1.0, Source.TEXT_LAYER),
            Field("residence", residence, 1.0, Source.TEXT_LAYER),
        )
        lines.append(SignatureLine(f"{k // 20:012x}", k % 20 + 1, fields))
    cfg = MatchingConfig(candidates=2)
    original = matcher_module.best_pairs
    counts = []

    def counted(keep_all):
        def best(con, comparisons, columns, table, keep):
            original(con, comparisons, columns, table, None if keep_all else keep)
            counts.append(
                con.execute("SELECT (SELECT count(*) FROM cand), count(*) FROM scored").fetchall()[
                    0
                ]
            )

        return best

    monkeypatch.setattr(matcher_module, "best_pairs", counted(False))
    pruned = matcher_module.FSMatcher(store, cfg).match_all(lines)
    monkeypatch.setattr(matcher_module, "best_pairs", counted(True))
    full = matcher_module.FSMatcher(store, cfg).match_all(lines)
    (n_cand, n_pruned), (n_cand_full, n_scored) = counts
    assert n_cand == n_cand_full and n_scored == n_cand  # every pair was kept in the second run
    assert n_pruned < n_cand / 2  # most pairs were dropped in the first
    assert sum(m.voter_id is not None for m in full) > len(lines) / 2
    assert [_steady(m) for m in pruned] == [_steady(m) for m in full]


def _steady(match):
    """A Match without the surname check's choice among equally close register surnames (its
    tie is broken arbitrarily by DuckDB's arg_max, run to run)."""
    import dataclasses
    import re

    return dataclasses.replace(
        match, reason=re.sub(r"closest (surname )?[A-Z]+ (\d+)", r"closest \2", match.reason)
    )
