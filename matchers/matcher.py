"""The blocked Fellegi-Sunter matcher: who on the register signed each line.

Same interface as `BaselineMatcher`: `FSMatcher(entries or a RegisterStore, cfg)`, `.match(line)`,
`.match_all(lines)`. Per batch of lines:

1. Prepare: the signer's name (the printed name, else the signature's text) split into given,
   middle, surname and suffix; the residence into house number, street, unit and ZIP (a trailing
   place name the register knows is dropped). Normalized in SQL exactly as the register was
   (`matchers.store._NORMALIZED`), with the same blocking keys.
2. Block: the union of every pass in `store.BLOCKING_KEYS` (address; surname+given phonetic;
   surname+house; ZIP+initials; given+house; a surname q-gram). A line's block in one pass larger
   than `max_block` entries is skipped for that pass (the other passes still run), so one common
   name does not flood the scorer. `candidate_pairs` exposes the pairs and which passes found
   them (bench/match_speed.py measures each pass's recall).
3. Score: every comparison of `matchers.compare.COMPARISONS` (vectorized), summed into a match
   weight with the Fellegi-Sunter weights of `matchers.weights` (default: the stored
   `matchers/weights/default.json`).
4. Decide, per line, on the best voter (one row per voter id) and the next:
   - MATCH: weight >= max(thresholds.match, log2(register size)) (the prior odds that a line
     is one given entry are 1 in the register's size: the evidence must overcome them), lead
     over the next voter >= thresholds.margin, the
     surname at least CLOSE and the given name CLOSE (only LOOSE, i.e. an initial or a slip,
     when house number and street agree too and it is an initial or the middle name agrees):
     a name must agree, an address alone never matches;
   - NO_MATCH: only when sure, all three: the best weight is below thresholds.no_match (the
     evidence is against every candidate), no candidate shares the surname (even loosely)
     together with the given name or the house number, and no surname on the register
     resembles the signer's (Jaro-Winkler >= 0.88 among the surnames sharing its first two
     letters, its last three, or its first and last two: blocking can miss a voter, this check
     does not rely on it). A line with an address and a surname for which no pass proposed
     anyone is NO_MATCH on the surname check alone, at the looser 0.80;
     NO_MATCH also needs a printed name read with confidence >= 0.9: a name that is only a
     signature's text, or read unsurely, never rules a voter out (the line is matched by its
     address and whatever the name gives, and goes to review);
   - REVIEW otherwise, and always for a line with no name, with the candidates and the reason.
     A Jr/Sr pair told apart only by the written suffix is a MATCH only when the name comes
     from a text layer (confidence >= 0.99): a reader easily takes "Jr" for "Sr".

Candidates carry per-field `FieldEvidence`; `Candidate.score` is the posterior probability
(0..100) given the weights' prior, and the reason names the weight in bits.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pipeline.case import MatchingConfig
from pipeline.records import (
    Candidate,
    FieldEvidence,
    Match,
    MatchDecision,
    RegisterEntry,
    SignatureLine,
    Source,
)

from .compare import CLOSE, COMPARISONS, DIFFERENT, EXACT, LEVELS, LOOSE, MISSING, compare_arrays
from .normalize import name_suffix, split_person_name, split_street_address
from .store import _NORMALIZED, BLOCKING_KEYS, RegisterStore
from .weights import Weights, load_weights

__all__ = ["METHOD", "FSMatcher", "line_frame"]

log = logging.getLogger(__name__)

METHOD = "fs-blocked/1"

MAX_BLOCK = 300  # entries per line per pass; a larger block is skipped for that pass
SURNAME_RESEMBLES = 0.88  # Jaro-Winkler: a register surname this close means "maybe registered"
NAME_TRUST_NO_MATCH = 0.9  # a printed name read at least this sure may rule a voter out
NAME_TRUST_SUFFIX = 0.99  # ... and tell a Jr from a Sr by the suffix alone (a text layer)
SURNAME_LIKE_AT_ALL = 0.80  # ... and, when no candidate was found at all, this close
PREFILTER = 0.75  # Jaro-Winkler of a surname below which a pair is not scored (see _prefilter)

_FIELD_COLUMNS = {
    "first_name": "n_first",
    "middle_name": "n_middle",
    "last_name": "n_last",
    "suffix": "n_suffix",
    "house_number": "n_house",
    "street": "n_street",
    "unit": "n_unit",
    "zip5": "n_zip",
}
_FIELD_INDEX = {c.field: i for i, c in enumerate(COMPARISONS)}
_COLUMNS = tuple(dict.fromkeys(_FIELD_COLUMNS.values()))
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
    """The confidence of the field the name was taken from (printed name, else signature)."""
    f = line.signer_name_field
    return f.confidence if f is not None else 0.0


def _strip_place(street: str, places: frozenset[str], longest: int) -> str:
    tokens = street.split()
    for k in range(min(longest, len(tokens) - 1), 0, -1):
        if " ".join(tokens[-k:]) in places:
            rest = tokens[:-k]
            while rest and rest[-1] in ("OF", "VILLAGE", "TOWN", "CITY", "VILL"):
                rest.pop()
            return " ".join(rest)
    return street


def line_frame(
    store: RegisterStore, lines: Sequence[tuple[str, str]], places: Sequence[str]
) -> pd.DataFrame:
    """(name, residence) texts -> the temp table `q` of the store's connection (normalized fields
    and blocking keys, `qid` = position), returned as a frame in qid order."""
    place_set = frozenset(p for p in places if p)
    longest = max((len(p.split()) for p in place_set), default=0)
    rows = []
    for qid, (name, residence) in enumerate(lines):
        person = split_person_name(name)
        address = split_street_address(residence)
        street = _strip_place(address.street, place_set, longest) if place_set else address.street
        rows.append(
            (
                qid,
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
    con = store.con
    con.register("q_df", frame)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE q AS " + _NORMALIZED.format(src="q_df") + " ORDER BY qid"
        )
    finally:
        con.unregister("q_df")
    return con.execute("SELECT * FROM q ORDER BY qid").df()


@dataclass(frozen=True, slots=True)
class _LineInfo:
    qid: int
    n_first: str
    n_last: str
    n_house: str
    n_street: str
    trust: float  # _name_trust
    confidence: float  # _name_confidence


@dataclass(frozen=True, slots=True)
class _Scored:
    """Every candidate pair of a batch, sorted by line then weight (best first)."""

    qid: np.ndarray
    rid: np.ndarray
    voter_id: np.ndarray
    weight: np.ndarray
    codes: np.ndarray  # (pairs, fields) level codes
    sims: np.ndarray  # (pairs, fields) similarity 0..100
    line_values: dict[str, np.ndarray]
    reg_values: dict[str, np.ndarray]


class FSMatcher:
    """Blocked Fellegi-Sunter matching against a register store. Build once per register.

    `register`: the entries (an in-memory store is built from them) or a `RegisterStore`
    (`matchers.store.open_store`). `weights`: default the stored `matchers/weights/default.json`.
    The results do not depend on how lines are batched.
    """

    method = METHOD

    def __init__(
        self,
        register: Sequence[RegisterEntry] | RegisterStore,
        cfg: MatchingConfig,
        *,
        weights: Weights | None = None,
        max_block: int = MAX_BLOCK,
        batch: int = 5_000,
    ) -> None:
        self._store = (
            register
            if isinstance(register, RegisterStore)
            else RegisterStore.from_entries(register)
        )
        self._cfg = cfg
        self._weights = weights or load_weights()
        if self._weights.fields != tuple(c.field for c in COMPARISONS):
            raise ValueError("the weights do not have one row per comparison")
        self._table = self._weights.table
        self._max_block = max_block
        self._batch = batch
        self._size = len(self._store)
        # The prior odds that a line is one given entry are about 1 in the register's size:
        # a match needs at least that much evidence (2^weight >= size), and thresholds.match.
        self._match_at = max(self._weights.thresholds.match, math.log2(max(2, self._size)))
        self._places = tuple(
            str(p)
            for (p,) in self._store.con.execute(
                "SELECT DISTINCT naddr(city) FROM entries UNION SELECT DISTINCT naddr(town_city) "
                "FROM entries"
            ).fetchall()
            if p
        )
        log.debug("fs matcher built over %d register entries", self._size)

    @property
    def store(self) -> RegisterStore:
        return self._store

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
        q = line_frame(self._store, texts, self._places)
        self._block()
        self._store.con.execute(
            "CREATE OR REPLACE TEMP TABLE cand AS SELECT p.qid, p.rid, e.voter_id, "
            + ", ".join(f"coalesce(e.{c}, '') AS r_{c}" for c in _COLUMNS)
            + f" FROM ({self._prefilter()}) p JOIN entries e USING (rid)"
        )
        out: list[Match] = []
        for start in range(0, len(lines), self._batch):
            stop = min(len(lines), start + self._batch)
            out.extend(self._match_chunk(lines[start:stop], q.iloc[start:stop], start))
        log.debug("matched %d lines", len(out))
        return tuple(out)

    def candidate_pairs(self, texts: Sequence[tuple[str, str]]) -> pd.DataFrame:
        """(qid, rid, voter_id, passes) for (name, residence) texts: which entries each
        blocking pass proposes (bit i of `passes`: BLOCKING_KEYS[i])."""
        line_frame(self._store, texts, self._places)
        self._block()
        return self._store.con.execute(
            "SELECT p.qid, p.rid, e.voter_id, p.passes FROM pairs p JOIN entries e USING (rid) "
            "ORDER BY qid, rid"
        ).df()

    # ----------------------------------------------------------------------------------------

    def _block(self) -> None:
        # Per pass: the lines' key values whose register block is small enough, then the
        # entries in those blocks (counting first keeps a huge block from being materialized).
        m = int(self._max_block)
        parts = [
            f"SELECT q.qid, e.rid, {1 << bit} AS pass FROM q "
            f"JOIN (SELECT e.{key} AS k FROM entries e "
            f"JOIN (SELECT DISTINCT {key} AS k FROM q WHERE {key} IS NOT NULL) keys "
            f"ON e.{key} = keys.k GROUP BY 1 HAVING count(*) <= {m}) small ON q.{key} = small.k "
            f"JOIN entries e ON e.{key} = small.k"
            for bit, key in enumerate(BLOCKING_KEYS)
        ]
        self._store.con.execute(
            "CREATE OR REPLACE TEMP TABLE pairs AS SELECT qid, rid, bit_or(pass) AS passes FROM ("
            + " UNION ALL ".join(f"({p})" for p in parts)
            + ") GROUP BY qid, rid"
        )

    def _prefilter(self) -> str:
        """SQL: the blocked pairs worth scoring. A pair neither of whose names is like the
        line's (Jaro-Winkler below PREFILTER) cannot reach the match threshold; it is kept only
        for a line without a name (ranked by address) or when it shares the house number (so
        a household stays visible to the surname check)."""
        f = PREFILTER
        return (
            "SELECT p.qid, p.rid FROM pairs p JOIN entries e USING (rid) JOIN q USING (qid) "
            f"WHERE (q.n_last = '' AND q.n_first = '') "
            f"OR jaro_winkler_similarity(q.n_last, e.n_last) >= {f} "
            f"OR (jaro_winkler_similarity(q.n_first, e.n_first) >= {f} "
            "AND q.n_house = e.n_house)"
        )

    def _score(self, lo: int, hi: int) -> _Scored:
        """Score the candidate pairs (table `cand`) of the lines with lo <= qid < hi."""
        data = self._store.con.execute(
            "SELECT * FROM cand WHERE qid >= ? AND qid < ?", [lo, hi]
        ).fetchnumpy()
        # The line's side: one row per line, spread over its pairs by qid.
        lines = self._store.con.execute(
            "SELECT "
            + ", ".join(f"coalesce({c}, '') AS {c}" for c in _COLUMNS)
            + " FROM q WHERE qid >= ? AND qid < ? ORDER BY qid",
            [lo, hi],
        ).fetchnumpy()
        pair_qid = np.asarray(data["qid"], dtype=np.int64) - lo
        for c in _COLUMNS:
            data[f"l_{c}"] = np.asarray(lines[c], dtype=object)[pair_qid]
        n = len(data["qid"])
        codes = np.empty((n, len(COMPARISONS)), dtype=np.int8)
        sims = np.empty((n, len(COMPARISONS)), dtype=np.float32)
        line_values: dict[str, np.ndarray] = {}
        reg_values: dict[str, np.ndarray] = {}
        for i, cmp in enumerate(COMPARISONS):
            col = _FIELD_COLUMNS[cmp.field]
            a = np.asarray(data[f"l_{col}"], dtype=object)
            b = np.asarray(data[f"r_{col}"], dtype=object)
            line_values[cmp.field], reg_values[cmp.field] = a, b
            codes[:, i], sims[:, i] = compare_arrays(cmp, a.tolist(), b.tolist())
        weight = self._table[np.arange(len(COMPARISONS))[None, :], codes].sum(axis=1)
        qid = np.asarray(data["qid"], dtype=np.int64)
        rid = np.asarray(data["rid"], dtype=np.int64)
        order = np.lexsort((rid, -weight, qid))
        return _Scored(
            qid[order],
            rid[order],
            np.asarray(data["voter_id"], dtype=object)[order],
            weight[order],
            codes[order],
            sims[order],
            {k: v[order] for k, v in line_values.items()},
            {k: v[order] for k, v in reg_values.items()},
        )

    def _match_chunk(self, lines: Sequence[SignatureLine], q: pd.DataFrame, lo: int) -> list[Match]:
        """Decide lines lo .. lo + len(lines) (their pairs are in `cand`, their fields in q)."""
        scored = self._score(lo, lo + len(lines))
        qids = np.arange(lo, lo + len(lines))
        starts = np.searchsorted(scored.qid, qids, side="left")
        ends = np.searchsorted(scored.qid, qids, side="right")
        k = self._cfg.candidates
        picks: list[list[int]] = []
        for i in range(len(lines)):
            seen: set[str] = set()
            chosen: list[int] = []
            for j in range(int(starts[i]), int(ends[i])):
                vid = scored.voter_id[j]
                if vid not in seen:
                    seen.add(vid)
                    chosen.append(j)
                    if len(chosen) > k:
                        break
            picks.append(chosen)
        unsure = self._surname_check(q, scored, picks, lo)
        infos = [
            _LineInfo(
                int(a), str(b), str(c), str(d), str(e), _name_trust(line), _name_confidence(line)
            )
            for a, b, c, d, e, line in zip(
                q.qid, q.n_first, q.n_last, q.n_house, q.n_street, lines, strict=True
            )
        ]
        decided = [
            self._decide(line, infos[i], scored, picks[i], unsure) for i, line in enumerate(lines)
        ]
        # Candidates kept: the top `cfg.candidates` for review and no match; for a match, the
        # voter and the runner-up (what the margin was measured against).
        kept = [
            picks[i][: 2 if decision is MatchDecision.MATCH else k]
            for i, (decision, _) in enumerate(decided)
        ]
        shown = sorted({int(scored.rid[j]) for js in kept for j in js})
        entries = {
            rid: (e, e.display) for rid, e in zip(shown, self._store.by_rid(shown), strict=True)
        }
        out = []
        for line, (decision, why), js in zip(lines, decided, kept, strict=True):
            candidates = tuple(self._candidate(scored, j, entries[int(scored.rid[j])]) for j in js)
            voter = candidates[0].voter_id if decision is MatchDecision.MATCH else None
            out.append(Match(line.line_id, decision, voter, candidates, METHOD, why))
        return out

    def _surname_check(
        self, q: pd.DataFrame, scored: _Scored, picks: list[list[int]], lo: int
    ) -> dict[int, tuple[str, float]]:
        """For lines whose best is below the match threshold: the closest register surname
        (among those sharing the first two or the last three letters) and its similarity."""
        surnames = q.n_last.tolist()
        qids = [
            lo + i
            for i, ch in enumerate(picks)
            if (not ch or scored.weight[ch[0]] < self._match_at) and len(str(surnames[i])) >= 2
        ]
        if not qids:
            return {}
        con = self._store.con
        con.register("nm_df", pd.DataFrame({"qid": qids}))
        try:
            got = con.execute(
                "WITH nm AS (SELECT q.qid, q.n_last FROM q JOIN nm_df USING (qid)), "
                "s AS (SELECT n_last FROM surnames), "
                "c AS (SELECT nm.qid, s.n_last AS other FROM nm JOIN s "
                "ON left(s.n_last, 2) = left(nm.n_last, 2) UNION "
                "SELECT nm.qid, s.n_last FROM nm JOIN s "
                "ON right(s.n_last, 3) = right(nm.n_last, 3) UNION "
                "SELECT nm.qid, s.n_last FROM nm JOIN s ON left(s.n_last, 1) = left(nm.n_last, 1) "
                "AND right(s.n_last, 2) = right(nm.n_last, 2)"
                ") SELECT c.qid, arg_max(c.other, jaro_winkler_similarity(nm.n_last, c.other)), "
                "max(jaro_winkler_similarity(nm.n_last, c.other)) FROM c JOIN nm USING (qid) "
                "GROUP BY c.qid"
            ).fetchall()
        finally:
            con.unregister("nm_df")
        return {int(a): (str(b), float(c)) for a, b, c in got}

    def _candidate(self, s: _Scored, j: int, entry: tuple[RegisterEntry, str]) -> Candidate:
        codes = s.codes[j].tolist()
        sims = s.sims[j].tolist()
        evidence = []
        for f, cmp in enumerate(COMPARISONS):
            code = codes[f]
            line_value = s.line_values[cmp.field][j]
            if code == MISSING and not line_value and cmp.field in _OPTIONAL:
                continue  # the signer did not write one: nothing to show
            evidence.append(
                FieldEvidence(
                    cmp.field,
                    LEVELS[code],
                    round(sims[f], 1),
                    line_value,
                    s.reg_values[cmp.field][j],
                )
            )
        probability = self._weights.probability(float(s.weight[j]))
        return Candidate(
            entry[0].voter_id, round(100.0 * probability, 1), tuple(evidence), entry[1]
        )

    def _decide(
        self,
        line: SignatureLine,
        qrow: _LineInfo,
        s: _Scored,
        chosen: list[int],
        surnames: dict[int, tuple[str, float]],
    ) -> tuple[MatchDecision, str]:
        """The decision and its one-line reason (see the module docstring)."""
        t = self._weights.thresholds
        has_name = bool(qrow.n_last) or bool(qrow.n_first)
        has_address = bool(qrow.n_house) or bool(qrow.n_street)
        if not has_name:
            if not chosen:
                return MatchDecision.REVIEW, "no name to match"
            return (
                MatchDecision.REVIEW,
                "no name to match; candidates ranked by address only, "
                f"best weight {s.weight[chosen[0]]:.1f}",
            )
        near = surnames.get(qrow.qid)
        if not chosen:
            # No pass proposed anyone: blocking may have missed the voter, so the surname check
            # is stricter here (a looser likeness is enough to send the line to review).
            if (
                has_address
                and qrow.n_last
                and qrow.trust >= NAME_TRUST_NO_MATCH
                and (near is None or near[1] < SURNAME_LIKE_AT_ALL)
            ):
                return (
                    MatchDecision.NO_MATCH,
                    "nobody on the register at this address or with a name like this",
                )
            why = f" (closest surname {near[0]} {100 * near[1]:.0f})" if near else ""
            return MatchDecision.REVIEW, "no candidate found" + why
        best = float(s.weight[chosen[0]])
        second = float(s.weight[chosen[1]]) if len(chosen) > 1 else None
        lead = best - second if second is not None else float("inf")
        bc = s.codes[chosen[0]].tolist()
        levels = ", ".join(
            f"{cmp.field} {LEVELS[bc[f]].value}"
            for f, cmp in enumerate(COMPARISONS)
            if not (bc[f] == MISSING and cmp.field in _OPTIONAL)
        )
        nxt = f"{second:.1f}" if second is not None else "none"
        summary = f"weight {best:.1f} ({levels}), next {nxt}"
        # A name must agree: the surname at least CLOSE, and the given name CLOSE; a given name
        # only LOOSE (an initial, or a slip) when the house number and street agree too and it
        # is an initial or the middle name agrees. A loose likeness of given names alone
        # ("LARNAR" / "ALNA" at one address) never makes a match.
        at_address = bc[_HOUSE] == EXACT and bc[_STREET] <= CLOSE
        initial = len(qrow.n_first) == 1
        middle_agrees = bc[_MIDDLE] <= CLOSE
        names_agree = bc[_LAST] <= CLOSE and (
            bc[_FIRST] <= CLOSE
            or (bc[_FIRST] == LOOSE and at_address and (initial or middle_agrees))
        )
        match_at = self._match_at
        suffix_only = False
        if len(chosen) > 1 and bc[_SUFFIX] != s.codes[chosen[1], _SUFFIX]:
            # a Jr/Sr pair: is the lead the suffix's alone?
            w = self._table[_SUFFIX]
            gap = w[bc[_SUFFIX]] - w[s.codes[chosen[1], _SUFFIX]]
            suffix_only = lead - gap < t.margin
        if best >= match_at and lead >= t.margin and names_agree:
            if suffix_only and qrow.confidence < NAME_TRUST_SUFFIX:
                return (
                    MatchDecision.REVIEW,
                    f"{summary}; told apart from the next voter only by the suffix, and the "
                    "name was not read from a text layer",
                )
            return MatchDecision.MATCH, summary
        # "Not registered" needs all three: the evidence is against every candidate (weight
        # below thresholds.no_match), no candidate shares the surname (even loosely) with the
        # given name or the house number, and no surname on the register resembles it.
        strong = any(
            s.codes[j, _LAST] <= LOOSE
            and (s.codes[j, _FIRST] <= LOOSE or s.codes[j, _HOUSE] == EXACT)
            for j in chosen
        )
        unlike = near is None or near[1] < SURNAME_RESEMBLES
        trusted = qrow.trust >= NAME_TRUST_NO_MATCH
        if best < t.no_match and not strong and qrow.n_last and unlike and trusted:
            closest = f"{near[0]} {100 * near[1]:.0f}" if near else "none"
            return (
                MatchDecision.NO_MATCH,
                f"{summary}; below {t.no_match:.1f}, no voter with this surname and given name "
                f"or house number, no surname on the register like {qrow.n_last} "
                f"(closest {closest})",
            )
        if best >= match_at and lead < t.margin:
            why = f"lead {lead:.1f} below margin {t.margin:.1f}"
        elif best >= match_at:
            why = "the names do not agree well enough to match on the address"
        else:
            why = f"below match {match_at:.1f}"
        if name_suffix(line.signer_name) == "" and bc[_SUFFIX] == DIFFERENT:
            why += "; suffix differs"
        if not trusted:
            why += (
                "; the name is only a signature's text"
                if qrow.trust == 0.0
                else f"; the name was read with confidence {qrow.trust:.2f}"
            )
        return MatchDecision.REVIEW, f"{summary}; {why}"
