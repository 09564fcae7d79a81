"""Speed and accuracy of the blocked Fellegi-Sunter matcher (matchers.matcher.FSMatcher).

Synthetic data only: a NYS-layout register of invented voters generated in SQL
(matchers.weights.synthetic_register_sql), and signer lines written from random entries with
noise (matchers.weights.noisy_signer: typed, or handwriting-like OCR confusions), plus signers
who are not on the register (invented surnames the register does not have). No real person.

    .venv/bin/python bench/match_speed.py                      # 200,000 rows, 50,000 lines
    .venv/bin/python bench/match_speed.py --rows 13000000      # the state-sized register
    .venv/bin/python bench/match_speed.py --rows 13000000 --work /tmp/mb --keep-import  # again

Wall-clock lines/s depend on what else the machine runs; the match phase's CPU seconds (all its
threads) and the load average are printed beside them, for comparing runs on a shared machine.

Each phase (generate, import, match) runs in its own process, so the peak memory printed for it
(ru_maxrss of that process) is its own. Prints: generation and import time and peak memory,
lines per second and peak memory of matching, per-pass blocking recall, and match precision,
recall and F1 for typed and handwriting-like lines, with the confident wrong matches counted.
splink (DuckDB backend) runs on the same lines if it can be imported (`--splink`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from matchers.matcher import BLOCK_BUDGET, MAX_BLOCK  # noqa: E402
from matchers.store import BLOCKING_KEYS, open_store  # noqa: E402
from matchers.weights import noisy_signer, write_synthetic_register  # noqa: E402
from pipeline.case import MatchingConfig, RegisterConfig  # noqa: E402
from pipeline.records import Field, MatchDecision, SignatureLine, Source  # noqa: E402


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _phase(args: argparse.Namespace, name: str) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--phase", name, *sys.argv[1:]]
    out = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(out.stderr)  # a failed phase's traceback too
    out.check_returncode()
    return json.loads(out.stdout.strip().splitlines()[-1])


# The confidence of a handwriting-like line's fields: a name read from a hand-filled scan, sure
# enough to be matched (rules.reading's thresholds: 0.80 read by OCR, 0.90 resolved by the closed
# world), below a text layer's certainty.
HAND_CONFIDENCE = 0.95


def _lines(args: argparse.Namespace, store) -> tuple[list[SignatureLine], list, list[str]]:
    rng = random.Random(args.seed + 1)
    rids = store.sample_rids(args.lines, args.seed + 1)
    entries = store.by_rid(rids)
    lines, truth, kinds = [], [], []
    for k, e in enumerate(entries):
        handwriting = k % 2 == 1
        name, residence = noisy_signer(e, rng, handwriting=handwriting)
        voter = e.voter_id
        if rng.random() < args.absent:
            # Not registered. Half are a housemate of the entry (its surname and address, a
            # given name the generator never makes); half a stranger (a surname it never
            # makes) at another entry's address.
            invented = "Q" + "".join(rng.choice("uxzjkv") for _ in range(3)) + "ina"
            if rng.random() < 0.5:
                name = f"{invented} {e.last_name.title()}"
            else:
                name = f"{e.first_name.title()} {invented}son"
                residence = noisy_signer(entries[rng.randrange(len(entries))], rng)[1]
            voter = None
        # A typed line is a text layer's; a handwriting-like one is what the product hands the
        # matcher from a hand-filled scan: an OCR read (HAND_CONFIDENCE).
        source, confidence = (
            (Source.OCR, HAND_CONFIDENCE) if handwriting else (Source.TEXT_LAYER, 1.0)
        )
        fields = (
            Field("name", name, confidence, source),
            Field("residence", residence, confidence, source),
        )
        lines.append(SignatureLine(f"{k // 20:012x}", k % 20 + 1, fields))
        truth.append(voter)
        kinds.append("handwriting" if handwriting else "typed")
    return lines, truth, kinds


def phase_generate(args: argparse.Namespace) -> dict[str, float]:
    t = time.perf_counter()
    write_synthetic_register(args.register, args.rows, args.seed)
    return {"seconds": time.perf_counter() - t, "peak_mb": _peak_mb()}


def phase_import(args: argparse.Namespace) -> dict[str, float]:
    t = time.perf_counter()
    store = open_store(
        RegisterConfig(path=args.register), args.cache, progress=args.progress, threads=2
    )
    info = store.info
    return {
        "seconds": time.perf_counter() - t,
        "peak_mb": _peak_mb(),
        "entries": info.entries,
        "bad_rows": info.bad_rows,
    }


def phase_match(args: argparse.Namespace) -> dict[str, float]:
    from matchers.matcher import FSMatcher

    store = open_store(
        RegisterConfig(path=args.register), args.cache, threads=2, memory_limit="1GB"
    )
    lines, truth, kinds = _lines(args, store)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    c0 = time.process_time()
    matcher = FSMatcher(
        store, MatchingConfig(), max_block=args.max_block, block_budget=args.block_budget
    )
    t1 = time.perf_counter()
    c1 = time.process_time()
    matches = matcher.match_all(lines)
    t2 = time.perf_counter()
    c2 = time.process_time()
    digest = _decisions(matches, kinds, truth, args.decisions)
    out: dict[str, float] = {
        "build_seconds": t1 - t0,
        "build_cpu_seconds": c1 - c0,
        "match_seconds": t2 - t1,
        "lines_per_second": len(lines) / (t2 - t1),
        # CPU time of the process (all its threads): comparable on a shared, loaded machine
        "match_cpu_seconds": c2 - c1,
        "lines_per_cpu_second": len(lines) / (c2 - c1),
        "load_before": load,
        "load_after": os.getloadavg()[0],
        "peak_mb": _peak_mb(),
        "decisions_sha256": digest,
    }
    for kind in ("typed", "handwriting"):
        idx = [i for i, k in enumerate(kinds) if k == kind]
        tp = sum(
            1
            for i in idx
            if matches[i].decision is MatchDecision.MATCH and matches[i].voter_id == truth[i]
        )
        wrong = sum(
            1
            for i in idx
            if matches[i].decision is MatchDecision.MATCH and matches[i].voter_id != truth[i]
        )
        positives = sum(1 for i in idx if truth[i] is not None)
        predicted = tp + wrong
        precision = tp / predicted if predicted else 1.0
        recall = tp / positives if positives else 1.0
        out[f"{kind}_f1"] = 2 * precision * recall / (precision + recall) if tp else 0.0
        out[f"{kind}_precision"] = precision
        out[f"{kind}_recall"] = recall
        out[f"{kind}_wrong_matches"] = wrong
        out[f"{kind}_review"] = sum(
            1 for i in idx if matches[i].decision is MatchDecision.REVIEW
        ) / len(idx)
        out[f"{kind}_no_match_registered"] = sum(
            1 for i in idx if matches[i].decision is MatchDecision.NO_MATCH and truth[i]
        )
        absent = [i for i in idx if truth[i] is None]
        out[f"{kind}_absent_no_match"] = (
            sum(1 for i in absent if matches[i].decision is MatchDecision.NO_MATCH) / len(absent)
            if absent
            else 0.0
        )
    tp = sum(1 for m, t in zip(matches, truth, strict=True) if m.voter_id and m.voter_id == t)
    called = sum(1 for m in matches if m.decision is MatchDecision.MATCH)
    positives = sum(1 for t in truth if t is not None)
    out["all_f1"] = 2 * tp / (called + positives) if tp else 0.0  # both kinds together
    # Blocking recall per pass, on a sample of registered signers.
    sample = [i for i, v in enumerate(truth) if v is not None][: args.recall_sample]
    texts = [(lines[i].text("name"), lines[i].text("residence")) for i in sample]
    pairs = matcher.candidate_pairs(texts)
    found = {
        (int(q), str(v)): int(p)
        for q, v, p in zip(pairs.qid, pairs.voter_id, pairs.passes, strict=True)
    }
    hits = [found.get((k, str(truth[i])), 0) for k, i in enumerate(sample)]
    for bit, key in enumerate(BLOCKING_KEYS):
        out[f"recall_{key}"] = sum(1 for h in hits if h & (1 << bit)) / len(sample)
    out["recall_union"] = sum(1 for h in hits if h) / len(sample)
    out["pairs_per_line"] = len(pairs) / len(sample)
    if args.splink:
        out.update(_splink(args, store, lines, truth))
    return out


def _decisions(matches, kinds, truth, path: Path | None) -> str:
    """The sha256 of every line's decision, voter, probability, reason and candidates with
    their evidence (two runs decide alike exactly when the hashes are equal); written one line
    a signer to `path` (JSON lines) when given."""
    import hashlib

    digest = hashlib.sha256()
    out = path.open("w", encoding="utf-8") if path else None
    try:
        for m, kind, voter in zip(matches, kinds, truth, strict=True):
            row = json.dumps(
                {
                    "line": m.line_id,
                    "kind": kind,
                    "truth": voter,
                    "decision": m.decision.value,
                    "voter": m.voter_id,
                    "probability": m.probability,
                    "reason": m.reason,
                    "candidates": [
                        [
                            c.voter_id,
                            c.score,
                            [[e.field, e.level.value, e.score] for e in c.evidence],
                        ]
                        for c in m.candidates
                    ],
                }
            )
            digest.update(row.encode())
            if out:
                out.write(row + "\n")
    finally:
        if out:
            out.close()
    return digest.hexdigest()


def _splink(args, store, lines, truth) -> dict[str, float]:
    """The same lines against splink (DuckDB backend), set up as its documentation recommends
    for people data: the same normalized fields; `ForenameSurnameComparison` (swapped names
    among its levels) with term-frequency adjustments on the full name, `NameComparison` on
    each name with term frequencies, house number, street (Jaro-Winkler, term frequencies) and
    ZIP; the prior from deterministic rules (`estimate_probability_two_random_records_match`),
    u by random sampling, m by EM on two blocking rules that do not block on the fields they
    train; predictions on our blocking keys and splink's own name and address rules. Training
    counts in its time. A line's best pair with probability >= 0.99 is its match."""
    if args.splink_path:
        sys.path.insert(0, str(args.splink_path))
    try:
        import splink.comparison_library as cl
        from splink import Linker, SettingsCreator, block_on
        from splink.backends.duckdb import DuckDBAPI
    except ImportError as err:
        print(f"splink is not importable here ({err}); skipped", file=sys.stderr)
        return {}
    import duckdb

    from matchers.lines import line_frame

    cols = (
        "n_first, n_middle, n_last, n_house, n_street, n_zip, k_address, k_name, "
        "k_surname_house, k_qgram"
    )
    t0 = time.perf_counter()
    c0 = time.process_time()
    texts = [(ln.signer_name, ln.text("residence")) for ln in lines]
    with store.cursor() as c:
        reg = c.execute(f"SELECT voter_id AS unique_id, {cols} FROM entries").df()
        q = line_frame(c, texts, ())
    q = q.assign(unique_id=q.qid.astype(str))[["unique_id", *[c.strip() for c in cols.split(",")]]]
    q = q.replace({"": None})
    reg = reg.replace({"": None})
    for frame in (reg, q):
        frame["full_name"] = frame["n_first"].fillna("") + " " + frame["n_last"].fillna("")
    con = duckdb.connect(":memory:")
    db = DuckDBAPI(connection=con)
    left = db.register(reg, dataset_display_name="register")
    right = db.register(q, dataset_display_name="lines")
    settings = SettingsCreator(
        link_type="link_only",
        comparisons=[
            cl.ForenameSurnameComparison(
                "n_first", "n_last", forename_surname_concat_col_name="full_name"
            ),
            cl.ExactMatch("n_house"),
            cl.JaroWinklerAtThresholds("n_street", [0.9, 0.8]).configure(
                term_frequency_adjustments=True
            ),
            cl.ExactMatch("n_zip").configure(term_frequency_adjustments=True),
        ],
        blocking_rules_to_generate_predictions=[
            block_on("k_address"),
            block_on("k_name"),
            block_on("k_surname_house"),
            block_on("k_qgram"),
            block_on("n_last", "n_first"),
        ],
        retain_intermediate_calculation_columns=False,
    )
    linker = Linker([left, right], settings, log_level="WARNING")
    linker.training.estimate_probability_two_random_records_match(
        [block_on("n_first", "n_last", "n_house", "n_street")], recall=0.7
    )
    linker.training.estimate_u_using_random_sampling(max_pairs=1e7, seed=1)
    linker.training.estimate_parameters_using_expectation_maximisation(
        block_on("n_house", "n_street"), record_sample_proportion=1.0
    )
    linker.training.estimate_parameters_using_expectation_maximisation(
        block_on("n_last", "n_first"), record_sample_proportion=1.0
    )
    t1 = time.perf_counter()
    pred = linker.inference.predict(threshold_match_probability=0.5).as_pandas_dataframe()
    t2 = time.perf_counter()
    c2 = time.process_time()
    left_id = "unique_id_l" if "unique_id_l" in pred else "unique_id_r"
    pred["voter"] = pred[left_id].where(pred["source_dataset_l"] == "register", pred["unique_id_r"])
    pred["line"] = pred["unique_id_r"].where(pred["source_dataset_l"] == "register", pred[left_id])
    best = pred.sort_values("match_probability", ascending=False).drop_duplicates("line")
    chosen = {int(r.line): r.voter for r in best.itertuples() if r.match_probability >= 0.99}
    tp = sum(1 for i, v in chosen.items() if v == truth[i])
    wrong = len(chosen) - tp
    positives = sum(1 for v in truth if v is not None)
    precision = tp / len(chosen) if chosen else 1.0
    recall = tp / positives if positives else 1.0
    return {
        "splink_train_seconds": t1 - t0,
        "splink_predict_seconds": t2 - t1,
        # CPU time of the process (all its threads, DuckDB's too), as for ours
        "splink_cpu_seconds": c2 - c0,
        "splink_f1": 2 * precision * recall / (precision + recall) if tp else 0.0,
        "splink_precision": precision,
        "splink_recall": recall,
        "splink_wrong_matches": wrong,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--absent", type=float, default=0.15, help="share of unregistered signers")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--work", type=Path, default=REPO / "bench" / "out" / "match_speed")
    parser.add_argument("--recall-sample", type=int, default=5_000)
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--max-block", type=int, default=MAX_BLOCK, help="FSMatcher max_block")
    parser.add_argument(
        "--block-budget", type=int, default=BLOCK_BUDGET, help="FSMatcher block_budget"
    )
    parser.add_argument(
        "--keep-import", action="store_true", help="reuse an earlier import (time matching only)"
    )
    parser.add_argument("--splink", action="store_true", help="also run splink (if importable)")
    parser.add_argument("--splink-path", type=Path, help="a folder splink is installed in")
    parser.add_argument("--phase", choices=("generate", "import", "match"))
    parser.add_argument(
        "--decisions", type=Path, help="write every line's decision here (JSON lines)"
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    args.register = args.work / f"register-{args.rows}-{args.seed}.csv"
    args.cache = args.work / "cache"
    if args.phase:
        fn = {"generate": phase_generate, "import": phase_import, "match": phase_match}
        print(json.dumps(fn[args.phase](args)))
        return 0
    if not args.register.exists():
        g = _phase(args, "generate")
        print(f"generated {args.rows:,} rows in {g['seconds']:.1f} s (peak {g['peak_mb']:.0f} MB)")
    if not args.keep_import:
        for p in args.cache.glob("register-*.duckdb"):
            p.unlink()  # time a fresh import
    imp = _phase(args, "import")
    print(
        f"import: {imp['entries']:,} entries, {imp['bad_rows']:,} bad rows, "
        f"{imp['seconds']:.1f} s, peak {imp['peak_mb']:.0f} MB"
    )
    m = _phase(args, "match")
    print(
        f"match: {args.lines:,} lines in {m['match_seconds']:.1f} s = "
        f"{m['lines_per_second']:,.0f} lines/s (matcher built in {m['build_seconds']:.1f} s), "
        f"peak {m['peak_mb']:.0f} MB"
    )
    print(
        f"  CPU {m['match_cpu_seconds']:.1f} s = {m['lines_per_cpu_second']:,.0f} lines per "
        f"CPU-second; load average {m['load_before']:.1f} before, {m['load_after']:.1f} after "
        f"({os.cpu_count()} CPUs)"
    )
    print(f"  decisions sha256 {m['decisions_sha256'][:16]}")
    for kind in ("typed", "handwriting"):
        print(
            f"  {kind:11s} F1 {m[f'{kind}_f1']:.4f} (precision {m[f'{kind}_precision']:.4f}, "
            f"recall {m[f'{kind}_recall']:.4f}), confident wrong matches "
            f"{m[f'{kind}_wrong_matches']:.0f}, review {100 * m[f'{kind}_review']:.1f}%, "
            f"registered called not registered {m[f'{kind}_no_match_registered']:.0f}, "
            f"unregistered found absent {100 * m[f'{kind}_absent_no_match']:.1f}%"
        )
    print(f"blocking recall ({args.recall_sample:,} registered signers):")
    for key in (*BLOCKING_KEYS, "union"):
        print(f"  {key:16s} {100 * m[f'recall_{key}']:.2f}%")
    print(f"  candidate pairs per line: {m['pairs_per_line']:.1f}")
    if "splink_f1" in m:
        print(
            f"splink (DuckDB, same normalized fields and blocking keys): F1 {m['splink_f1']:.4f} "
            f"(precision {m['splink_precision']:.4f}, recall {m['splink_recall']:.4f}), "
            f"confident wrong matches {m['splink_wrong_matches']:.0f}; "
            f"train {m['splink_train_seconds']:.1f} s, predict {m['splink_predict_seconds']:.1f} s"
            f" = {args.lines / m['splink_predict_seconds']:,.0f} lines/s (ours: "
            f"{m['lines_per_second']:,.0f} lines/s, F1 typed {m['typed_f1']:.4f} / "
            f"handwriting {m['handwriting_f1']:.4f})"
        )
        ours = m["build_seconds"] + m["match_seconds"]
        theirs = m["splink_train_seconds"] + m["splink_predict_seconds"]
        print(
            f"  same lines, same run: F1 ours {m['all_f1']:.4f} / splink {m['splink_f1']:.4f}; "
            f"wall time with training ours {ours:.1f} s / splink {theirs:.1f} s "
            f"({theirs / ours:.2f}x); CPU with training ours "
            f"{m['build_cpu_seconds'] + m['match_cpu_seconds']:.1f} s / splink "
            f"{m['splink_cpu_seconds']:.1f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
