"""The blocked Fellegi-Sunter matcher: who on the register signed each line.

Same interface as `BaselineMatcher` (the `matchers.protocol.Matcher` both satisfy):
`FSMatcher(entries or a RegisterStore, cfg)`, `.match(line)`, `.match_all(lines)`. Each
`match_all` runs its SQL on a cursor of its own (`RegisterStore.cursor()`), so its tables below
are its own. Per batch of lines:

1. Prepare (`matchers.lines.line_frame`): the signer's name (the printed name, else the
   signature's text) split into given, middle, surname and suffix, every way
   `normalize.name_readings` reads it (as written; two words the other way round; one word as
   a given name too; three words with two run apart, joined), each reading a row of `q`
   costing READING_PENALTY bits but the first; the residence into house number, street, unit
   and postcode (4 or 5 digits; a trailing place name the register knows is dropped).
   Normalized in SQL exactly as the register was (`matchers.store.NORMALIZED_SQL`), with the
   same blocking keys.
2. Block: the union of every pass in `store.BLOCKING_KEYS` (address; surname+given phonetic;
   surname+house; ZIP+initials; given+house; a surname q-gram; surname+street; the whole
   surname or given name with part of the other; the given name's start with the house number
   or the street inside the postcode, for a changed surname), for every reading. A reading takes its
   passes' blocks smallest first while those taken hold fewer than `block_budget` entries (the
   smallest always); a block larger than `max_block` entries is never taken. So one common name
   does not flood the scorer, and a state's register, where the common keys' blocks hold
   thousands, still gives each reading its specific blocks. Each pass is one join on the key's
   hash, the block sizes counted once at import (`store.HASH_COLUMNS`, the `blocks` table).
   `candidate_pairs` exposes the pairs and which passes found them (bench/match_speed.py
   measures each pass's recall).
3. Score: every comparison of `matchers.compare.COMPARISONS` (vectorized), summed into a match
   weight with the Fellegi-Sunter weights of `matchers.weights` (default: the stored
   `matchers/weights/default.json`, u re-estimated on this register by `for_register`). Each
   distinct pair of values is compared once per batch, and only the pairs that can be among a
   reading's `candidates + 1` best voters by those weights are kept (`matchers.sql_pairs`; the
   fit and the decision see exactly those rows whether or not the others were pruned). Then,
   from the lines at hand (`weights.fit_to_lines`, EM with the stored m as priors): m, and
   the share of lines whose signer is registered, so that the prior odds that a line is one
   given entry are registered / ((1 - registered) * register size). Agreements that are not
   independent are corrected (`_joint_bits`): house number, street and ZIP agree together at
   one address, and a household's members share a surname there too.
4. Decide, per line, on the best voter (one row per voter id, its best reading) and the next:
   - MATCH: the posterior probability that the line is that voter (`_posterior`: the best
     voter's odds against the others' and against the signer not being on the register) at
     least thresholds.match_probability (the same on a register of 500 and of 13 million), the
     fields' own weight at least thresholds.match or the register's size in bits if smaller
     (enough to single a voter out of it), a lead over the next voter of at least
     thresholds.margin, and a name agreeing (CLOSE or better: equal, one slip, a nickname),
     what the other name and the address add or take away being the posterior's to weigh (the m
     fitted to the lines say how often signers change or leave out a name; the household shares
     of `_joint_bits` how often a housemate shares surname and address). Except: a given name
     only an initial (INITIAL) or a likeness (LOOSE: a housemate's name may be like the
     line's) or a slip that spells a given name some voter on the register has, or one of the
     nickname table's (`KNOWN_GIVEN_NAMES`; "MARK" for "MARY": maybe an unregistered housemate)
     needs the surname, house number, street and an initial or the middle name to agree (a likeness
     that is no voter's given name may still be a real name a small register lacks: a
     housemate's "MARCUS" at MARCIA's address); an initial, which names nobody else, agrees
     with the surname and the street and a house number one slip off, or with the middle name
     where no part of the address is against it; a line of one name needs the street or the
     house number to agree (or, a likeness only, the address); and a line with neither name
     agreeing matches only on the whole address (house number, street, postcode) of a voter no
     other voter lives with
     (`_alone`: the address's term frequency on the register is one), where the posterior still
     has to reach the threshold. An address alone never matches a household's member;
   - NO_MATCH: only when sure, all three: the best weight is below thresholds.no_match (the
     evidence is against every candidate), no candidate shares the surname (even loosely:
     Jaro-Winkler >= 0.80) together with the given name or the house number (or a misread of
     it), nor the given name with the address (a changed surname), and no surname on the
     register resembles the signer's (Jaro-Winkler >= 0.88 among the surnames sharing its
     first two letters, its last three, or its first and last two: blocking can miss a voter,
     this check does not rely on it). A line with an address and a surname for which no pass
     proposed anyone is NO_MATCH on the surname check alone, at the looser 0.80; a name of one
     word (which may be a given name) is never NO_MATCH;
     NO_MATCH also needs a printed name read with confidence >= 0.9: a name that is only a
     signature's text, or read unsurely, never rules a voter out (the line is matched by its
     address and whatever the name gives, and goes to review);
   - REVIEW otherwise, and always for a line with no name, with the candidates and the reason.
     A Jr/Sr pair told apart only by the written suffix is a MATCH only when the name comes
     from a text layer (confidence >= 0.99): a reader easily takes "Jr" for "Sr". A given
     name read from a signature that is only near the voter's, another voter of her surname
     living at the address, is a REVIEW: cursive misreads further than a slip.

Candidates carry per-field `FieldEvidence`; `Candidate.score` is the posterior probability
(0..100) that the line is that voter, `Match.probability` the best candidate's (0..1), and the
reason names the probability and the weight in bits. A single line matched alone is decided on
the stored weights (its priors dominate the fit); a petition's lines are matched together.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import duckdb
import numpy as np
import pandas as pd

from pipeline.casefile import MatchingConfig
from pipeline.records import (
    Candidate,
    FieldEvidence,
    Match,
    MatchDecision,
    RegisterEntry,
    SignatureLine,
    Source,
)

from .compare import (
    CLOSE,
    COMPARISONS,
    DIFFERENT,
    EXACT,
    FIELD_COLUMNS,
    INITIAL,
    LEVELS,
    LOOSE,
    MISSING,
    one_slip,
)
from .lines import line_frame
from .nicknames import KNOWN_GIVEN_NAMES, same_given_name
from .normalize import name_suffix
from .sql_pairs import EPSILON, best_pairs, pair_columns
from .store import BLOCKING_KEYS, HASH_COLUMNS, RegisterStore
from .weights import Weights, fit_to_lines, for_register, load_weights

__all__ = ["METHOD", "FSMatcher"]

log = logging.getLogger(__name__)

METHOD = "fs-blocked/1"

MAX_BLOCK = 500  # entries per reading per pass; a larger block is skipped for that pass
# entries per reading: its blocks taken smallest first up to this. 150, not 300: on the
# development seeds (200,000 and 1,000,000 voters) no decision changed and the candidate pairs a
# line fell from 170 to 139 and from 406 to 239; at 100, one match went to review at 1,000,000
BLOCK_BUDGET = 150
SURNAME_RESEMBLES = 0.88  # Jaro-Winkler: a register surname this close means "maybe registered"
NAME_TRUST_NO_MATCH = 0.9  # a printed name read at least this sure may rule a voter out
NAME_TRUST_SUFFIX = 0.99  # ... and tell a Jr from a Sr by the suffix alone (a text layer)
NOT_A_TEXT_LAYER = 0.98  # a resolved name's, an OCR signature's: neither a text layer's
SURNAME_LIKE_AT_ALL = 0.80  # ... and, when no candidate was found at all, this close
# The name read the other way resembles only surnames within this many letters of its length.
OTHER_READING_LENGTH_SLACK = 2
SURNAME_LIKE = 80.0  # a candidate's surname this like (Jaro-Winkler 0..100) keeps NO_MATCH off
PREFILTER = 0.75  # Jaro-Winkler of a surname below which a pair is not scored (see _prefilter)

# the columns of the lines' table `q` the decision reads (in Python)
_Q_COLUMNS = ("qid", "line", "penalty", "n_first", "n_last", "n_house", "n_street")
_FIELD_INDEX = {c.field: i for i, c in enumerate(COMPARISONS)}
_COLUMNS = tuple(dict.fromkeys(FIELD_COLUMNS.values()))
_OPTIONAL = frozenset({"suffix", "unit", "zip5"})  # evidence shown only when the line has one
_FIRST = _FIELD_INDEX["first_name"]
_LAST = _FIELD_INDEX["last_name"]
_HOUSE = _FIELD_INDEX["house_number"]
_STREET = _FIELD_INDEX["street"]
_MIDDLE = _FIELD_INDEX["middle_name"]
_SUFFIX = _FIELD_INDEX["suffix"]


def _name_trust(line: SignatureLine) -> float:
    """How far the name can be trusted to rule a voter out: the printed name's confidence.
    A signature read by OCR is 0.0 (a reader rarely gets handwriting right, and it is never
    enough to say "not registered"); a signature in a PDF's text layer, or typed in by a
    reviewer, is the name as written and counts as printed."""
    f = line.signer_name_field
    if f is None:
        return 0.0
    if f.name == "name" or f.source in (Source.TEXT_LAYER, Source.REVIEWER):
        return f.confidence
    return 0.0


def _name_confidence(line: SignatureLine) -> float:
    """The confidence of the field the name was taken from (printed name, else signature).
    Neither a name the closed world read among the voters (`Field.resolved`: its confidence is
    its voter's probability) nor a signature read by OCR (its confidence is the ink test's:
    1.0 for any clear stroke) says how well its letters were read, so both stay under
    NAME_TRUST_SUFFIX, as a printed name OCR read all but never reaches it: a suffix is told
    only from a text layer. On development sheets a handwritten "Jr" resolved
    as "Sr" at 0.99+, and another read "Sr" in a signature, matched the father at the son's
    address."""
    f = line.signer_name_field
    if f is None:
        return 0.0
    not_letters = f.resolved or (f.name == "signature" and f.source is Source.OCR)
    return min(f.confidence, NOT_A_TEXT_LAYER) if not_letters else f.confidence


@dataclass(frozen=True, slots=True)
class _LineInfo:
    line: int  # position in the batch
    qid: int  # the reading the decision is about (that of the best candidate)
    n_first: str
    n_last: str
    n_house: str
    n_street: str
    trust: float  # _name_trust
    confidence: float  # _name_confidence


@dataclass(frozen=True, slots=True)
class _Scored:
    """Every candidate pair of a batch, sorted by line then weight (best first)."""

    line: np.ndarray  # the line's position in the batch
    qid: np.ndarray  # the reading of the line's name (a row of `q`)
    rid: np.ndarray
    voter: np.ndarray  # one number per voter id (`vno`: a repeated id's rows share it)
    weight: np.ndarray  # bits, less the reading's penalty, with `_joint_bits`
    joint: np.ndarray  # the `_joint_bits` in the weight
    codes: np.ndarray  # (pairs, fields) level codes
    sims: np.ndarray  # (pairs, fields) similarity 0..100
    line_values: dict[str, np.ndarray]
    reg_values: dict[str, np.ndarray]


@dataclass(frozen=True, slots=True)
class _NameChecks:
    """`FSMatcher._surname_check`'s findings for a batch, for `_decide`."""

    surnames: dict[int, tuple[str, float]]  # line -> closest register surname, similarity
    other_readings: dict[int, float]  # line -> the same for its other readings' surnames
    given_known: frozenset[str]  # line given names that are given names on the register
    alone: frozenset[int] = frozenset()  # rids of best candidates no other voter lives with
    given_on_street: frozenset[int] = frozenset()  # lines without candidates: see `_on_street`
    # rids of best candidates, their given name not their line's, with a housemate of their
    # surname (`_with_housemates`)
    housemates: frozenset[int] = frozenset()


class _Decided(NamedTuple):
    """A line's decision, its one-line reason, and, for a line in review, how many of its
    leading candidates it surely is one of (`Match.one_of`; 0: no such bound)."""

    decision: MatchDecision
    why: str
    one_of: int = 0


@dataclass(frozen=True, slots=True)
class _Chunk:
    """A chunk of lines decided (`FSMatcher._match_chunk`): per line its decision and reason,
    the rows of `scored` kept as its candidates, and its candidates' posteriors."""

    lines: Sequence[SignatureLine]
    scored: _Scored
    decided: list[_Decided]
    kept: list[list[int]]
    post: list[np.ndarray]


@dataclass(frozen=True, slots=True)
class _Batch:
    """What one `match_all` learned from its lines: the weights fitted to them (EM), and the
    log2 prior odds that a line is one given entry (`registered` share over register size)."""

    weights: Weights
    table: np.ndarray
    log2_prior: float
    registered: float


class FSMatcher:
    """Blocked Fellegi-Sunter matching against a register store. Build once per register.

    `register`: the entries (an in-memory store is built from them) or a `RegisterStore`
    (`matchers.store.open_store`). `weights`: default the stored `matchers/weights/default.json`,
    with u re-estimated on this register (`weights.for_register`). Each `match_all` fits m and
    the share of lines that are registered to its lines (`weights.fit_to_lines`, the weights as
    priors), so its results do not depend on how its lines are batched, but do depend on which
    lines are matched together (a petition's lines are matched at once).
    """

    method = METHOD

    def __init__(
        self,
        register: Sequence[RegisterEntry] | RegisterStore,
        cfg: MatchingConfig,
        *,
        weights: Weights | None = None,
        max_block: int = MAX_BLOCK,
        block_budget: int = BLOCK_BUDGET,
        batch: int = 5_000,
    ) -> None:
        self._store = (
            register
            if isinstance(register, RegisterStore)
            else RegisterStore.from_entries(register)
        )
        self._cfg = cfg
        self._size = len(self._store)
        self._weights = for_register(weights or load_weights(), self._store)
        if self._weights.fields != tuple(c.field for c in COMPARISONS):
            raise ValueError("the weights do not have one row per comparison")
        self._table = self._weights.table
        self._shares = _shares(self._store)
        self._max_block = max_block
        self._block_budget = block_budget
        self._batch = batch
        with self._store.cursor() as con:
            places = con.execute(
                # the few distinct names first, normalized after (not 13 million times)
                "SELECT DISTINCT naddr(p) FROM (SELECT DISTINCT city AS p FROM entries "
                "UNION SELECT DISTINCT town_city FROM entries)"
            ).fetchall()
        self._places = tuple(str(p) for (p,) in places if p)
        log.debug("fs matcher built over %d register entries", self._size)

    @property
    def store(self) -> RegisterStore:
        return self._store

    @property
    def weights(self) -> Weights:
        """The weights before fitting to a batch (u of this register)."""
        return self._weights

    # ----------------------------------------------------------------------------------------

    def match(self, line: SignatureLine) -> Match:
        """Match one line (not a blank one)."""
        return self.match_all((line,))[0]

    def match_all(self, lines: Sequence[SignatureLine]) -> tuple[Match, ...]:
        """Match every line, in order. Blank lines are not matched: passing one is an error."""
        for line in lines:
            if line.blank:
                raise ValueError(
                    f"line {line.line_id} is blank; blank lines are not matched (leave them out)"
                )
        if not lines:
            return ()
        if self._size == 0:
            return tuple(
                Match(
                    ln.line_id,
                    MatchDecision.REVIEW,
                    None,
                    (),
                    METHOD,
                    "the register given to the matcher is empty",
                )
                for ln in lines
            )
        # One blocking join for every line (each pass scans the register once), then scoring
        # and deciding in chunks of `batch` lines, which bounds the memory.
        texts = [(ln.signer_name, ln.text("residence")) for ln in lines]
        # The call's tables (q, pairs, cand, scored, ...) live on a cursor of its own: two
        # matchers on one store, or two threads, never share them.
        with self._store.cursor() as con:
            return self._match_all(con, lines, texts)

    def _match_all(
        self,
        con: duckdb.DuckDBPyConnection,
        lines: Sequence[SignatureLine],
        texts: Sequence[tuple[str, str]],
    ) -> tuple[Match, ...]:
        q = line_frame(con, texts, self._places, readings=True, columns=_Q_COLUMNS)
        self._block(con, passes=False)
        con.execute(f"CREATE OR REPLACE TEMP TABLE cand AS {self._prefilter()}")
        con.execute("DROP TABLE pairs")
        # Each distinct pair of values compared once for the whole batch; only the pairs that
        # may be among a reading's best `candidates + 1` voters kept (sql_pairs).
        best_pairs(con, COMPARISONS, FIELD_COLUMNS, self._table, self._cfg.candidates + 1)
        con.execute("DROP TABLE cand")
        q_line = q.line.to_numpy(dtype=np.int64)
        q_penalty = q.penalty.to_numpy(dtype=np.float64)
        batch = self._fit(con, q_line, q_penalty, len(lines))
        firsts = np.searchsorted(q_line, np.arange(len(lines) + 1), side="left")
        chunks = [
            self._match_chunk(
                con, lines[start:stop], q, start, (int(firsts[start]), int(firsts[stop])), batch
            )
            for start in range(0, len(lines), self._batch)
            for stop in (min(len(lines), start + self._batch),)
        ]
        # The entries shown as candidates, looked up once for the whole batch: each look-up
        # scans the register (13 million rows in a state's).
        shown = self._store.shown(
            sorted({int(c.scored.rid[j]) for c in chunks for js in c.kept for j in js})
        )
        out = [m for c in chunks for m in self._matches(c, shown)]
        log.debug("matched %d lines; registered share estimated %.3f", len(out), batch.registered)
        return tuple(out)

    def candidate_pairs(self, texts: Sequence[tuple[str, str]]) -> pd.DataFrame:
        """(qid, rid, voter_id, passes) for (name, residence) texts: which entries each
        blocking pass proposes (bit i of `passes`: BLOCKING_KEYS[i]) for any reading of the
        name; qid is the text's position."""
        with self._store.cursor() as con:
            line_frame(con, texts, self._places, readings=True)
            self._block(con, passes=True)
            return con.execute(
                "SELECT q.line AS qid, p.rid, e.voter_id, bit_or(p.passes) AS passes FROM pairs p "
                "JOIN entries e USING (rid) JOIN q USING (qid) GROUP BY q.line, p.rid, e.voter_id "
                "ORDER BY qid, rid"
            ).df()

    # ----------------------------------------------------------------------------------------

    def _fit(
        self,
        con: duckdb.DuckDBPyConnection,
        q_line: np.ndarray,
        q_penalty: np.ndarray,
        n_lines: int,
    ) -> _Batch:
        """m and the registered share fitted to this batch's scored pairs (each line's best
        pair per voter), the stored weights as priors (`weights.fit_to_lines`)."""
        cols = ", ".join(f"c_{i}" for i in range(len(COMPARISONS)))
        data = con.execute(f"SELECT qid, voter, {cols} FROM scored").fetchnumpy()
        qid = np.asarray(data["qid"], dtype=np.int64)
        codes = np.stack(
            [np.asarray(data[f"c_{i}"], dtype=np.int8) for i in range(len(COMPARISONS))], axis=1
        ).reshape(len(qid), len(COMPARISONS))
        voter = np.asarray(data["voter"], dtype=np.int64)
        prior = self._table[np.arange(len(COMPARISONS))[None, :], codes].sum(axis=1)
        kept = _kept_by_prior(qid, voter, prior, self._cfg.candidates + 1)
        qid, voter, prior, codes = qid[kept], voter[kept], prior[kept], codes[kept]
        line = q_line[qid]
        offset = -q_penalty[qid] + _joint_bits(codes, self._weights.u, self._shares)
        weight = prior + offset
        order = np.lexsort((-weight, voter, line))
        voter = voter[order]
        line = line[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = (line[1:] != line[:-1]) | (voter[1:] != voter[:-1])
        keep = order[first]
        fit = fit_to_lines(
            self._weights, codes[keep], line[first], offset[keep], n_lines, self._size
        )
        return _Batch(fit.weights, fit.weights.table, fit.log2_prior, fit.registered)

    def _block(self, con: duckdb.DuckDBPyConnection, *, passes: bool) -> None:
        # Per reading and pass, the key's register block (its size stored at import,
        # `store.blocks`) if it is at most max_block entries; of those, the smallest first while
        # the blocks taken so far hold fewer than block_budget entries (the smallest always):
        # a small block is a specific key that agreed, a large one a common value. Then the
        # entries in the blocks taken: one join on the key's hash per pass. The table `pairs`
        # (qid, rid, and with `passes` which passes proposed the pair: bit i, BLOCKING_KEYS[i]).
        m = int(self._max_block)
        keys = " UNION ALL ".join(
            f"SELECT qid, {bit} AS pass, hash({key}) AS h FROM q WHERE {key} IS NOT NULL"
            for bit, key in enumerate(BLOCKING_KEYS)
        )
        con.execute(
            "CREATE OR REPLACE TEMP TABLE qb AS SELECT qid, pass, h FROM (SELECT k.qid, k.pass, "
            "k.h, sum(b.n) OVER (PARTITION BY k.qid ORDER BY b.n, k.pass ROWS UNBOUNDED "
            f"PRECEDING) - b.n AS before FROM ({keys}) k JOIN blocks b ON b.pass = k.pass AND "
            f"b.h = k.h AND b.n <= {m}) WHERE before < {int(self._block_budget)}"
        )
        parts = [
            f"SELECT qb.qid, e.rid, {1 << bit} AS pass FROM qb "
            f"JOIN entries e ON e.{HASH_COLUMNS[key]} = qb.h WHERE qb.pass = {bit}"
            for bit, key in enumerate(BLOCKING_KEYS)
        ]
        found = " UNION ALL ".join(f"({p})" for p in parts)
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE pairs AS SELECT qid, rid, bit_or(pass) AS passes FROM "
            f"({found}) GROUP BY qid, rid"
            if passes
            else f"CREATE OR REPLACE TEMP TABLE pairs AS SELECT DISTINCT qid, rid FROM ({found})"
        )
        con.execute("DROP TABLE qb")

    def _prefilter(self) -> str:
        """SQL: the blocked pairs worth scoring (qid, rid, voter: the entry's `vno`, and each
        compared column's key of its pair of values and the register's value,
        `sql_pairs.pair_columns`). A pair neither of whose names is like the line's
        (Jaro-Winkler below PREFILTER) is kept only for a line without a name (ranked by
        address), when the given name is alike and it shares the house number or the postcode
        (so a household stays visible to the surname check, and a changed surname can be
        weighed), or when it shares the whole address (house number, street and postcode:
        `_decide` may match it there)."""
        f = PREFILTER
        return (
            f"SELECT p.qid, p.rid, e.vno AS voter, {pair_columns(_COLUMNS)} "
            "FROM pairs p JOIN entries e USING (rid) JOIN q USING (qid) "
            f"WHERE (q.n_last = '' AND q.n_first = '') "
            # equal first: DuckDB then computes the similarity only for the other pairs (two
            # empty surnames are not alike: their similarity is 0)
            "OR (q.n_last = e.n_last AND q.n_last <> '') "
            f"OR jaro_winkler_similarity(q.n_last, e.n_last) >= {f} "
            f"OR (jaro_winkler_similarity(q.n_first, e.n_first) >= {f} "
            "AND (q.n_house = e.n_house OR (q.n_zip <> '' AND q.n_zip = e.n_zip))) "
            # the whole address the same: what the names lack the address may carry (_decide)
            "OR (q.n_house <> '' AND q.n_zip <> '' AND q.n_house = e.n_house "
            "AND q.n_street = e.n_street AND q.n_zip = e.n_zip)"
        )

    def _score(
        self,
        con: duckdb.DuckDBPyConnection,
        lo: int,
        hi: int,
        q_line: np.ndarray,
        q_penalty: np.ndarray,
        table: np.ndarray,
    ) -> _Scored:
        """The scored pairs (table `scored`, see `sql_pairs.best_pairs`) of the readings with
        lo <= qid < hi, sorted by line, then weight (best first), then row."""
        data = con.execute("SELECT * FROM scored WHERE qid >= ? AND qid < ?", [lo, hi]).fetchnumpy()
        n = len(data["qid"])
        codes = np.empty((n, len(COMPARISONS)), dtype=np.int8)
        sims = np.empty((n, len(COMPARISONS)), dtype=np.float32)
        for i in range(len(COMPARISONS)):
            codes[:, i] = data[f"c_{i}"]
            sims[:, i] = data[f"s_{i}"]
        qid = np.asarray(data["qid"], dtype=np.int64)
        kept = _kept_by_prior(
            qid,
            np.asarray(data["voter"], dtype=np.int64),
            self._table[np.arange(len(COMPARISONS))[None, :], codes].sum(axis=1),
            self._cfg.candidates + 1,
        )
        data = {k: np.asarray(v)[kept] for k, v in data.items()}
        codes, sims, qid = codes[kept], sims[kept], qid[kept]
        joint = _joint_bits(codes, self._weights.u, self._shares)
        weight = (
            table[np.arange(len(COMPARISONS))[None, :], codes].sum(axis=1) - q_penalty[qid] + joint
        )
        line = q_line[qid]
        rid = np.asarray(data["rid"], dtype=np.int64)
        order = np.lexsort((qid, rid, -weight, line))
        values = {
            side: {
                cmp.field: np.asarray(data[f"{side}_{FIELD_COLUMNS[cmp.field]}"], dtype=object)[
                    order
                ]
                for cmp in COMPARISONS
            }
            for side in ("l", "r")
        }
        return _Scored(
            line[order],
            qid[order],
            rid[order],
            np.asarray(data["voter"], dtype=np.int64)[order],
            weight[order],
            joint[order],
            codes[order],
            sims[order],
            values["l"],
            values["r"],
        )

    def _match_chunk(
        self,
        con: duckdb.DuckDBPyConnection,
        lines: Sequence[SignatureLine],
        q: pd.DataFrame,
        lo: int,
        readings: tuple[int, int],
        batch: _Batch,
    ) -> _Chunk:
        """Decide lines lo .. lo + len(lines) (their readings are rows `readings` of q)."""
        q_line = q.line.to_numpy(dtype=np.int64)
        q_penalty = q.penalty.to_numpy(dtype=np.float64)
        scored = self._score(con, readings[0], readings[1], q_line, q_penalty, batch.table)
        idx = np.arange(lo, lo + len(lines))
        starts = np.searchsorted(scored.line, idx, side="left")
        ends = np.searchsorted(scored.line, idx, side="right")
        k = self._cfg.candidates
        picks: list[list[int]] = []
        for i in range(len(lines)):
            seen: set[int] = set()
            chosen: list[int] = []
            for j in range(int(starts[i]), int(ends[i])):
                vid = int(scored.voter[j])
                if vid not in seen:
                    seen.add(vid)
                    chosen.append(j)
                    if len(chosen) > k:
                        break
            picks.append(chosen)
        post = [_posterior(scored.weight[js], batch.log2_prior) for js in picks]
        first_reading = np.searchsorted(q_line, idx, side="left")
        reading = [
            int(scored.qid[js[0]]) if js else int(first_reading[i]) for i, js in enumerate(picks)
        ]
        signed_only = [_name_trust(line) == 0.0 for line in lines]
        unsure = self._surname_check(con, q, scored, picks, post, lo, readings, signed_only)
        cols = {c: q[c].to_numpy() for c in ("n_first", "n_last", "n_house", "n_street")}
        infos = [
            _LineInfo(
                lo + i,
                r,
                str(cols["n_first"][r]),
                str(cols["n_last"][r]),
                str(cols["n_house"][r]),
                str(cols["n_street"][r]),
                _name_trust(line),
                _name_confidence(line),
            )
            for i, (r, line) in enumerate(zip(reading, lines, strict=True))
        ]
        decided = [
            self._decide(line, infos[i], scored, picks[i], post[i], unsure, batch)
            for i, line in enumerate(lines)
        ]
        # Candidates kept: the top `cfg.candidates` for review and no match; for a match, the
        # voter and the runner-up (what the margin was measured against).
        kept = [
            picks[i][: 2 if d.decision is MatchDecision.MATCH else k] for i, d in enumerate(decided)
        ]
        return _Chunk(lines, scored, decided, kept, post)

    def _matches(self, c: _Chunk, shown: dict[int, tuple[str, str]]) -> list[Match]:
        """The chunk's matches, its candidates' voter ids and displays by rid (`store.shown`)."""
        evidence = _evidence(c.scored, sorted({j for js in c.kept for j in js}))
        out = []
        rid = c.scored.rid
        for line, d, js, p in zip(c.lines, c.decided, c.kept, c.post, strict=True):
            candidates = tuple(
                Candidate(voter_id, round(100.0 * float(p[n]), 1), evidence[j], display)
                for n, j in enumerate(js)
                for voter_id, display in (shown[int(rid[j])],)
            )
            voter = candidates[0].voter_id if d.decision is MatchDecision.MATCH else None
            probability = round(float(p[0]), 6) if len(p) else None
            one_of = tuple(c.voter_id for c in candidates[: d.one_of])
            out.append(
                Match(
                    line.line_id, d.decision, voter, candidates, METHOD, d.why, probability, one_of
                )
            )
        return out

    def _surname_check(
        self,
        con: duckdb.DuckDBPyConnection,
        q: pd.DataFrame,
        scored: _Scored,
        picks: list[list[int]],
        post: list[np.ndarray],
        lo: int,
        readings: tuple[int, int],
        signed_only: Sequence[bool],
    ) -> _NameChecks:
        """What the decision needs beyond the scores: for lines without a sure match, the
        closest register surname to any reading's (among those sharing the first two or the
        last three letters, or the first and last two) and its similarity; and which of the
        lines' given names are given names on the register (`_given_known`); which best
        candidates live at an address of their own (`_alone`); and, of the lines whose name is
        only a signature's text (`signed_only`), which best candidates live with a voter of
        their surname (`_with_housemates`)."""
        unsure = {
            lo + i for i, p in enumerate(post) if not len(p) or p[0] < self._match_probability
        }
        sub = q.iloc[readings[0] : readings[1]]
        qids = [
            int(r)
            for r, ln, last in zip(sub.qid, sub.line, sub.n_last, strict=True)
            if int(ln) in unsure and len(str(last)) >= 2
        ]
        given = self._given_known(con, scored, picks)
        alone = _alone(con, scored, picks)
        on_street = _on_street(con, [lo + i for i, js in enumerate(picks) if not js])
        housemates = _with_housemates(
            con, scored, [js for js, only in zip(picks, signed_only, strict=True) if only]
        )
        if not qids:
            return _NameChecks({}, {}, given, alone, on_street, housemates)
        con.register("nm_df", pd.DataFrame({"qid": qids}))
        try:
            got = con.execute(
                "WITH nm AS (SELECT q.qid, q.line, q.penalty > 0 AS alt, q.n_last FROM q "
                "JOIN nm_df USING (qid)), "
                "s AS (SELECT n_last FROM surnames), "
                "c AS (SELECT nm.qid, s.n_last AS other FROM nm JOIN s "
                "ON left(s.n_last, 2) = left(nm.n_last, 2) UNION "
                "SELECT nm.qid, s.n_last FROM nm JOIN s "
                "ON right(s.n_last, 3) = right(nm.n_last, 3) UNION "
                "SELECT nm.qid, s.n_last FROM nm JOIN s ON left(s.n_last, 1) = left(nm.n_last, 1) "
                "AND right(s.n_last, 2) = right(nm.n_last, 2)"
                ") SELECT nm.line, nm.alt, "  # the closest surname; among equally close, the first
                "first(c.other ORDER BY jaro_winkler_similarity(nm.n_last, c.other) DESC, "
                "c.other), "
                # the name read the other way round is short and Jaro-Winkler rewards a
                # shared beginning: a longer surname that starts with it ("BRAM" in
                # "BRAMBLETON") is no slip of it; a slip or two changes a length by at most two
                "max(jaro_winkler_similarity(nm.n_last, c.other)) FILTER (WHERE NOT nm.alt "
                "OR abs(length(c.other) - length(nm.n_last)) <= ?) "
                "FROM c JOIN nm USING (qid) GROUP BY nm.line, nm.alt",
                [OTHER_READING_LENGTH_SLACK],
            ).fetchall()
        finally:
            con.unregister("nm_df")
        return _NameChecks(
            {int(a): (str(b), float(c)) for a, alt, b, c in got if not alt},
            {int(a): float(c or 0.0) for a, alt, _, c in got if alt},
            given,
            alone,
            on_street,
            housemates,
        )

    @property
    def _match_probability(self) -> float:
        return self._weights.thresholds.match_probability

    def _given_known(
        self, con: duckdb.DuckDBPyConnection, scored: _Scored, picks: list[list[int]]
    ) -> frozenset[str]:
        """Of the lines whose best candidate's given name is only CLOSE (a slip, not a
        nickname), the given names that some voter on the register has: such a "slip" may be
        another person's name ("MARY" / "MARK"): the store's `given_names`, gathered at
        import."""
        asked = {
            str(scored.line_values["first_name"][ch[0]])
            for ch in picks
            if ch
            and scored.codes[ch[0], _FIRST] == CLOSE
            and not same_given_name(
                str(scored.line_values["first_name"][ch[0]]),
                str(scored.reg_values["first_name"][ch[0]]),
            )
        }
        if not asked:
            return frozenset()
        got = con.execute(
            "SELECT n_first FROM given_names WHERE n_first IN (SELECT unnest(?))", [sorted(asked)]
        ).fetchall()
        return frozenset(str(a) for (a,) in got)

    def _decide(
        self,
        line: SignatureLine,
        qrow: _LineInfo,
        s: _Scored,
        chosen: list[int],
        post: np.ndarray,
        checks: _NameChecks,
        batch: _Batch,
    ) -> _Decided:
        """The decision and its one-line reason (see the module docstring)."""
        t = batch.weights.thresholds
        has_name = bool(qrow.n_last) or bool(qrow.n_first)
        has_address = bool(qrow.n_house) or bool(qrow.n_street)
        if not has_name:
            if not chosen:
                return _Decided(MatchDecision.REVIEW, "no name to match")
            return _Decided(
                MatchDecision.REVIEW,
                "no name to match; candidates ranked by address only, "
                f"best weight {s.weight[chosen[0]]:.1f}",
            )
        near = checks.surnames.get(qrow.line)
        # the name read another way (surname first, words joined) rules nobody out only if no
        # register surname resembles that reading's either (at the stricter likeness: a given
        # name read as a surname is short, and short names resemble many)
        other_unlike = checks.other_readings.get(qrow.line, 0.0) < SURNAME_RESEMBLES
        if not chosen:
            # No pass proposed anyone: blocking may have missed the voter, so the surname check
            # is stricter here (a looser likeness is enough to send the line to review).
            if (
                has_address
                and qrow.n_last
                and qrow.n_first  # one word may be a given name: it rules nobody out
                and qrow.trust >= NAME_TRUST_NO_MATCH
                and (near is None or near[1] < SURNAME_LIKE_AT_ALL)
                and other_unlike
                and qrow.line not in checks.given_on_street
            ):
                return _Decided(
                    MatchDecision.NO_MATCH,
                    "nobody on the register at this address or with a name like this",
                )
            why = f" (closest surname {near[0]} {100 * near[1]:.0f})" if near else ""
            if not other_unlike:
                why += "; the name read surname first is like a register surname"
            if qrow.line in checks.given_on_street:
                why += "; a voter of this given name lives on this street (a changed surname?)"
            return _Decided(MatchDecision.REVIEW, "no candidate found" + why)
        best = float(s.weight[chosen[0]])
        second = float(s.weight[chosen[1]]) if len(chosen) > 1 else None
        lead = best - second if second is not None else float("inf")
        probability = float(post[0])
        bc = s.codes[chosen[0]].tolist()
        levels = ", ".join(
            f"{cmp.field} {LEVELS[bc[f]].value}"
            for f, cmp in enumerate(COMPARISONS)
            if not (bc[f] == MISSING and cmp.field in _OPTIONAL)
        )
        nxt = f"{second:.1f}" if second is not None else "none"
        summary = f"probability {probability:.4f}, weight {best:.1f} ({levels}), next {nxt}"
        # A name must agree, and what a line's name may lack or change is weighed, not assumed:
        # - the surname at least CLOSE (one slip) and the given name CLOSE; or
        # - a given name only an initial or a likeness (INITIAL, LOOSE), or a slip that spells
        #   another given name on the register ("MARY" / "MARK": maybe another person), when the
        #   house number and street agree and it is an initial or the middle name agrees; or
        # - an initial, the street and a house number one slip off, or the middle name with no
        #   part of the address against it; or
        # - one name agreeing (CLOSE or better; LOOSE when it is the only name written) and
        #   the other not written, or changed (a married surname, another given name), the
        #   address agreeing (or, without a house number, the street and ZIP): the weights
        #   fitted to the lines say how often signers do that, `_joint_bits` how often a
        #   household's other member shares surname and address, and such a line reaches the
        #   probability only where the lines show it is common.
        # A loose likeness of given names alone ("LARNAR" / "ALNA" at one address) never matches.
        at_address = bc[_HOUSE] <= CLOSE and bc[_STREET] <= CLOSE
        given = bc[_FIRST]
        reg_first = str(s.reg_values["first_name"][chosen[0]])
        # an initial (the line's or the register's) that agrees names nobody else: unlike a
        # likeness, it is the voter's name as far as it goes
        initial = given == INITIAL
        middle_agrees = bc[_MIDDLE] <= CLOSE
        # the address, where written, no further off than a house number one slip away
        address_near = bc[_HOUSE] != DIFFERENT and bc[_STREET] not in (LOOSE, DIFFERENT)
        if (
            given == CLOSE
            and (qrow.n_first in checks.given_known or qrow.n_first in KNOWN_GIVEN_NAMES)
            and not same_given_name(qrow.n_first, reg_first)
        ):
            given = LOOSE  # another real given name, not a slip
        last = bc[_LAST]
        another_name = given != bc[_FIRST]
        address_agrees = _address_agrees(bc)
        # A name must agree (CLOSE or better: equal, a slip, a nickname); what the other name
        # and the address add or take away is the posterior's to weigh. The exceptions: a
        # given name only an initial or a likeness (a housemate's name may be like the
        # line's) or a slip that spells another given name ("MARK" for "MARY") agrees
        # only with the surname, the house, the street and an initial or the middle name; a
        # line with one name needs the street or the house number to agree too; the only name
        # written, a likeness (LOOSE), only at an address that agrees.
        both_names = MISSING not in (last, given)
        names_agree = (
            (
                min(last, given) <= CLOSE
                and given not in (INITIAL, LOOSE)
                and (both_names or bc[_STREET] <= CLOSE or bc[_HOUSE] <= CLOSE)
            )
            or (last <= CLOSE and given == LOOSE and at_address and middle_agrees)
            or (
                # an initial with the surname: the street and a house number at most one slip
                # off (at the address, too), or the middle name agreeing with no part of the
                # address against it
                last <= CLOSE
                and initial
                and address_near
                and (middle_agrees or (bc[_HOUSE] <= LOOSE and bc[_STREET] <= CLOSE))
            )
            or (address_agrees and not both_names and min(last, given) <= LOOSE)
            or (
                # neither name agrees, the whole address does, and no other voter lives
                # there: only the posterior (the lines' m for names replaced, the register's
                # shares of addresses) can make that enough
                int(s.rid[chosen[0]]) in checks.alone and _address_only(s.codes[chosen[0]])
            )
        )
        suffix_only = False
        if len(chosen) > 1 and bc[_SUFFIX] != s.codes[chosen[1], _SUFFIX]:
            # a Jr/Sr pair: is the lead the suffix's alone?
            w = batch.table[_SUFFIX]
            gap = w[bc[_SUFFIX]] - w[s.codes[chosen[1], _SUFFIX]]
            suffix_only = lead - gap < t.margin
        # the evidence floor is on the fields' own weights, before `_joint_bits`: enough to
        # single the voter out of the register whatever share of signers is registered (the
        # register's size in bits), and never more than thresholds.match
        evidence = best - float(s.joint[chosen[0]])
        floor = min(t.match, math.log2(max(2, self._size)))
        sure = probability >= t.match_probability and evidence >= floor
        if sure and lead >= t.margin and names_agree:
            if suffix_only and qrow.confidence < NAME_TRUST_SUFFIX:
                # sure of the pair (the lead over everyone else is the best's), not of which
                return _Decided(
                    MatchDecision.REVIEW,
                    f"{summary}; told apart from the next voter only by the suffix, and the "
                    "name was not read from a text layer",
                    one_of=2,
                )
            if (
                qrow.trust == 0.0
                and qrow.n_first
                and not same_given_name(qrow.n_first, reg_first)
                and int(s.rid[chosen[0]]) in checks.housemates
            ):
                return _Decided(
                    MatchDecision.REVIEW,
                    f"{summary}; the given name, read from a signature, is only near the "
                    "voter's and others live at the address: it may be a housemate's, misread",
                )
            if (
                qrow.confidence < NAME_TRUST_SUFFIX
                and len(chosen) > 1
                and _one_slip_apart(s, chosen[0], chosen[1])
            ):
                where = "lives at the same address" if has_address else "has"
                return _Decided(
                    MatchDecision.REVIEW,
                    f"{summary}; the next voter {where} under the same surname, with a given "
                    "name one slip from the line's, and the name was not read from a text "
                    "layer: the line may be theirs, misread",
                )
            return _Decided(MatchDecision.MATCH, summary)
        # "Not registered" needs all three: the evidence is against every candidate (weight
        # below thresholds.no_match), no candidate shares the surname (even loosely) with the
        # given name or the house number, nor the given name (as written, or a nickname of it:
        # not a mere slip, which a stranger's name often is) with the address (a changed
        # surname), and no surname on the register resembles it.
        strong = any(
            (
                s.sims[j, _LAST] >= SURNAME_LIKE
                and (s.codes[j, _FIRST] <= LOOSE or s.codes[j, _HOUSE] <= CLOSE)
            )
            or (
                same_given_name(
                    str(s.line_values["first_name"][j]), str(s.reg_values["first_name"][j])
                )
                and _address_agrees(s.codes[j].tolist())
            )
            for j in chosen
        )
        unlike = (near is None or near[1] < SURNAME_RESEMBLES) and other_unlike
        trusted = qrow.trust >= NAME_TRUST_NO_MATCH
        if best < t.no_match and not strong and qrow.n_last and qrow.n_first and unlike and trusted:
            closest = f"{near[0]} {100 * near[1]:.0f}" if near else "none"
            return _Decided(
                MatchDecision.NO_MATCH,
                f"{summary}; below {t.no_match:.1f}, no voter with this surname and given name "
                f"or house number, no surname on the register like {qrow.n_last} "
                f"(closest {closest})",
            )
        one_of = 0
        if evidence >= floor and lead < t.margin:
            why = f"lead {lead:.1f} below margin {t.margin:.1f}"
            if (
                names_agree
                and float(post[0]) + float(post[1]) >= t.match_probability
                and _suffix_pair(s, chosen[0], chosen[1])
            ):
                # a Jr and a Sr of the name at the address the line writes, no suffix telling
                # them apart: sure of the pair, not of which
                one_of = 2
                why += "; one of a Jr and a Sr at the address"
        elif sure and another_name:
            whose = "another voter's" if qrow.n_first in checks.given_known else "a known"
            why = f"the given name {qrow.n_first} is {whose} given name, not only a slip"
        elif sure:
            why = "the names do not agree well enough to match on the address"
        else:
            why = (
                f"below probability {t.match_probability:g} (prior odds 2^{batch.log2_prior:.1f}"
                f" a voter, {100 * batch.registered:.0f}% of lines registered)"
                if evidence >= floor
                else f"below weight {floor:.1f}"
            )
        if name_suffix(line.signer_name) == "" and bc[_SUFFIX] == DIFFERENT:
            why += "; suffix differs"
        if not trusted:
            why += (
                "; the name is only a signature's text"
                if qrow.trust == 0.0
                else f"; the name was read with confidence {qrow.trust:.2f}"
            )
        return _Decided(MatchDecision.REVIEW, f"{summary}; {why}", one_of)


_ADDRESS = (_HOUSE, _STREET)
_ZIP = _FIELD_INDEX["zip5"]


def _address_agrees(codes: Sequence[int]) -> bool:
    """The address agrees: house number and street (CLOSE or better), or, no house number
    written, the street and the postcode."""
    return (codes[_HOUSE] <= CLOSE and codes[_STREET] <= CLOSE) or (
        codes[_STREET] <= CLOSE and codes[_HOUSE] == MISSING and codes[_ZIP] == EXACT
    )


def _address_only(codes: np.ndarray) -> bool:
    """Neither name agrees (CLOSE or better), and the whole address does: house number equal,
    street at least CLOSE, postcode equal."""
    return bool(
        min(codes[_LAST], codes[_FIRST]) > CLOSE
        and codes[_HOUSE] == EXACT
        and codes[_STREET] <= CLOSE
        and codes[_ZIP] == EXACT
    )


def _evidence(s: _Scored, rows: Sequence[int]) -> dict[int, tuple[FieldEvidence, ...]]:
    """Per row of `s`, its candidate's evidence: each field's level, similarity and the two
    values (a field the signer did not write, of those shown only when written, left out).
    Built a field at a time for all the rows, each distinct piece of evidence once (they are
    frozen: candidates of one line share a street, a postcode)."""
    at = np.asarray(rows, dtype=np.int64)
    columns = []
    for f, cmp in enumerate(COMPARISONS):
        codes = s.codes[at, f]
        sims = s.sims[at, f]
        ours, our_values = pd.factorize(s.line_values[cmp.field][at], use_na_sentinel=False)
        theirs, their_values = pd.factorize(s.reg_values[cmp.field][at], use_na_sentinel=False)
        # one integer per distinct (level, similarity, line value, register value): the parts
        # joined one at a time, renumbered after each, so the key never outgrows int64
        _, sim_ids = np.unique(sims, return_inverse=True)
        key = np.zeros(len(at), dtype=np.int64)
        for part in (codes.astype(np.int64), sim_ids, ours, theirs):
            key = np.unique(key * (int(part.max(initial=0)) + 1) + part, return_inverse=True)[1]
        _, first, ids = np.unique(key, return_index=True, return_inverse=True)
        made = np.empty(len(first), dtype=object)
        made[:] = [
            FieldEvidence(
                cmp.field,
                LEVELS[int(codes[j])],
                round(float(sims[j]), 1),
                str(our_values[ours[j]]),
                str(their_values[theirs[j]]),
            )
            for j in first.tolist()
        ]
        column = made[ids]
        if cmp.field in _OPTIONAL:  # the signer did not write one: nothing to show
            column[(codes == MISSING) & (s.line_values[cmp.field][at] == "")] = None
        columns.append(column.tolist())
    return {
        j: tuple(e for e in row if e is not None)
        for j, row in zip(rows, zip(*columns, strict=True), strict=True)
    }


def _suffix_pair(s: _Scored, best: int, nxt: int) -> bool:
    """The two voters agree with the line alike on every field but the suffix, and are one
    name at one address on the register, their suffixes differing (a Jr and a Sr): a line that
    wrote no suffix is one of them as surely as it is either."""
    others = [f for f in range(s.codes.shape[1]) if f != _SUFFIX]
    if not np.array_equal(s.codes[best, others], s.codes[nxt, others]):
        return False
    fields = ("first_name", "last_name", "house_number", "street")
    same = all(s.reg_values[f][best] == s.reg_values[f][nxt] != "" for f in fields)
    return same and s.reg_values["suffix"][best] != s.reg_values["suffix"][nxt]


def _one_slip_apart(s: _Scored, best: int, nxt: int) -> bool:
    """The best voter's given name is the line's and the next voter's is one slip from it
    ("NARIN" / "NORIN"), and the two agree with the line alike on every other field under one
    surname, at one address or, the line giving none, anywhere: a misread of one voter's name
    spells the other's, so for a name read from an image the given name's lead alone does not
    tell them apart (as a suffix alone does not: `NAME_TRUST_SUFFIX`)."""
    if s.codes[best, _FIRST] != EXACT or s.codes[nxt, _FIRST] != CLOSE:
        return False
    others = [f for f in range(s.codes.shape[1]) if f != _FIRST]
    if not np.array_equal(s.codes[best, others], s.codes[nxt, others]):
        return False
    no_address = s.codes[best, _HOUSE] == MISSING and s.codes[best, _STREET] == MISSING
    fields = ("last_name",) if no_address else ("last_name", "house_number", "street")
    same = all(s.reg_values[f][best] == s.reg_values[f][nxt] != "" for f in fields)
    line_first = str(s.line_values["first_name"][best])
    return same and one_slip(line_first, str(s.reg_values["first_name"][nxt]), min_length=3)


def _on_street(con: duckdb.DuckDBPyConnection, lines: Sequence[int]) -> frozenset[int]:
    """Of these lines (their positions; the table `q` of the batch), those with a given name,
    a street and a postcode but no house number for which a voter of that given name
    (nicknames as the formal name) lives on a street of that start (`street3`) in that
    postcode: the signer may be that voter under a changed surname, whom no blocking pass
    proposes (they key on the surname or on the house number), so "not registered" is not
    sure."""
    if not lines:
        return frozenset()
    got = con.execute(
        "SELECT DISTINCT q.line FROM q JOIN entries e ON e.n_first_canon = q.n_first_canon "
        "AND street3(e.n_street) = street3(q.n_street) AND e.n_zip = q.n_zip "
        "WHERE q.line IN (SELECT unnest(?)) AND q.n_first_canon <> '' AND q.n_house = '' "
        "AND q.n_zip <> '' AND street3(q.n_street) <> ''",
        [list(lines)],
    ).fetchall()
    return frozenset(int(a) for (a,) in got)


def _alone(
    con: duckdb.DuckDBPyConnection, scored: _Scored, picks: list[list[int]]
) -> frozenset[int]:
    """Of the best candidates that agree with their line on the address only
    (`_address_only`), the rids of those whose address (house number, street, postcode) no
    other voter on the register has: the term frequency of the address is one. In a register
    of households a signer at a voter's address may well be a housemate who is not
    registered; at an address of one voter, in a register where most voters live alone
    (the fitted weights and the `_joint_bits` shares say how rare that is), far less so."""
    asked = sorted(
        {int(scored.rid[ch[0]]) for ch in picks if ch and _address_only(scored.codes[ch[0]])}
    )
    if not asked:
        return frozenset()
    got = con.execute(
        "WITH a AS (SELECT rid, n_house, n_street, n_zip FROM entries "
        "WHERE rid IN (SELECT unnest(?))) SELECT a.rid FROM a JOIN entries x "
        "ON x.n_house = a.n_house AND x.n_street = a.n_street AND x.n_zip = a.n_zip "
        "GROUP BY a.rid HAVING count(DISTINCT x.voter_id) = 1",
        [asked],
    ).fetchall()
    return frozenset(int(r) for (r,) in got)


def _with_housemates(
    con: duckdb.DuckDBPyConnection, scored: _Scored, picks: list[list[int]]
) -> frozenset[int]:
    """Of the best candidates whose given name is not their line's (a slip, an initial, a
    likeness), the rids of those another voter of their surname lives with (house number,
    street, postcode): a given name misread from a signature near one of them may be a worse
    misread of another's (held out, seed 9959: "Flora Ashgrove" signed, read "Hora Ashgrove",
    matched her purged housemate Cora)."""
    asked = sorted(
        {int(scored.rid[ch[0]]) for ch in picks if ch and scored.codes[ch[0], _FIRST] != EXACT}
    )
    if not asked:
        return frozenset()
    got = con.execute(
        "WITH a AS (SELECT rid, voter_id, n_last, n_house, n_street, n_zip FROM entries "
        "WHERE rid IN (SELECT unnest(?))) SELECT DISTINCT a.rid FROM a JOIN entries x "
        "ON x.n_house = a.n_house AND x.n_street = a.n_street AND x.n_zip = a.n_zip "
        "AND x.n_last = a.n_last AND x.voter_id <> a.voter_id",
        [asked],
    ).fetchall()
    return frozenset(int(r) for (r,) in got)


@dataclass(frozen=True, slots=True)
class _Shares:
    """The shares of pairs of register entries that agree on several fields at once (exactly):
    far more than the fields' chance agreements multiplied, which is what the weights (one
    field at a time) assume. 0.0 when no two entries do."""

    address: float  # house number and street
    address_zip: float  # house number, street and ZIP
    household: float  # surname, house number and street


def _shares(store: RegisterStore) -> _Shares:
    size = len(store)
    total = size * (size - 1) / 2

    def share(con: duckdb.DuckDBPyConnection, columns: str) -> float:
        present = " AND ".join(f"{c} <> ''" for c in columns.split(", "))
        got = con.execute(
            f"WITH g AS (SELECT count(*) AS n FROM entries WHERE {present} GROUP BY {columns} "
            "HAVING count(*) > 1) SELECT coalesce(sum(n * (n - 1) / 2), 0) FROM g"
        ).fetchall()
        return float(got[0][0]) / total if got and total else 0.0

    with store.cursor() as con:
        return _Shares(
            share(con, "n_house, n_street"),
            share(con, "n_house, n_street, n_zip"),
            share(con, "n_last, n_house, n_street"),
        )


def _joint_bits(codes: np.ndarray, u: Sequence[Sequence[float]], shares: _Shares) -> np.ndarray:
    """Per pair, the bits to add where fields that agree (CLOSE or better) are not independent
    chances: the weights count house number, street and ZIP as three (the product of their
    u), but two entries at one address agree on all three at once, and two people of one
    household on the surname too. The product of the agreeing fields' u is replaced by the
    register's share of such pairs (`_shares`) where the share is the larger (bits are never
    added). Without it, an address agreeing in a county of 200,000 counted some 27 bits where
    the register's addresses give 17, enough for a given name and an address to outweigh a
    surname that differs. The household's share counts only where the given names do not agree
    (DIFFERENT, one not written, or only a likeness, LOOSE): a given name that agrees, even as an
    initial (INITIAL), is what tells
    a household's members apart (two who both agree are told apart by the margin); this is what
    keeps a housemate who is not registered (another given name, the same surname and address)
    from being matched to the voter, however the fitted weights make a given name that
    differs."""
    out = np.zeros(len(codes))
    if not len(codes):
        return out
    at = np.all(codes[:, list(_ADDRESS)] <= CLOSE, axis=1)
    # a household's member whose house number or street was slipped (LOOSE) is as much a
    # housemate as one written right: the household's share caps that evidence too
    near = np.all(codes[:, list(_ADDRESS)] <= LOOSE, axis=1)
    if not near.any():
        return out
    log_u = np.log2(np.asarray(u, dtype=np.float64))

    def chance(fields: Sequence[int]) -> np.ndarray:
        total = np.zeros(len(codes))
        for f in fields:
            c = codes[:, f].astype(np.int64)
            agrees = c <= (LOOSE if f in _ADDRESS else CLOSE)
            total += np.where(agrees, log_u[f][np.minimum(c, LOOSE)], 0.0)
        return total

    zip_agrees = codes[:, _ZIP] == EXACT  # a postcode one slip off is not the same address
    address = chance((*_ADDRESS, _ZIP))
    for where, share in ((at & ~zip_agrees, shares.address), (at & zip_agrees, shares.address_zip)):
        if share > 0.0:
            out[where] = np.minimum(0.0, address[where] - math.log2(share))
    if shares.household > 0.0:
        first = codes[:, _FIRST]
        unlike = (first >= DIFFERENT) | (first == LOOSE)
        house = near & (codes[:, _LAST] <= CLOSE) & unlike
        both = chance((_LAST, *_ADDRESS, _ZIP))[house] - math.log2(shares.household)
        out[house] = np.minimum(out[house], np.minimum(0.0, both))
    return out


def _kept_by_prior(qid: np.ndarray, voter: np.ndarray, weight: np.ndarray, keep: int) -> np.ndarray:
    """Which rows `sql_pairs.best_pairs` keeps with every pair scored: per reading, the rows
    whose prior weight reaches its `keep`-th best voter's (less EPSILON). Restricting both the
    fit and the decision to these rows makes them the same whether or not the pairs were
    pruned first."""
    if not len(qid):
        return np.zeros(0, dtype=bool)
    order = np.lexsort((-weight, voter, qid))
    q, v, w = qid[order], voter[order], weight[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (q[1:] != q[:-1]) | (v[1:] != v[:-1])
    fq, fw = q[first], w[first]  # each voter's best, per reading
    by = np.lexsort((-fw, fq))
    fq, fw = fq[by], fw[by]
    start = np.searchsorted(fq, fq, side="left")
    rank = np.arange(len(fq)) - start  # 0-based rank of the voter within its reading
    at = rank == keep - 1
    threshold = np.full(int(qid.max()) + 1, -np.inf)
    threshold[fq[at]] = fw[at]
    return weight >= threshold[qid] - EPSILON


def _posterior(weights: np.ndarray, log2_prior: float) -> np.ndarray:
    """P(the line is voter j) for a line's candidate voters of these weights (bits), given the
    log2 prior odds that it is one given entry: 2^(w_j + prior) / (1 + sum_k 2^(w_k + prior));
    the 1 is the line's signer not being on the register (or not among the candidates)."""
    if not len(weights):
        return np.zeros(0)
    s = np.asarray(weights, dtype=np.float64) + log2_prior
    top = max(0.0, float(s.max()))
    e = np.exp2(s - top)
    return e / (np.exp2(-top) + e.sum())
