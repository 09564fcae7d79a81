"""Fellegi-Sunter match weights: m and u probabilities per (field, level), and the thresholds.

    weight(field, level) = log2(m / u)      m = P(level | same person)
                                            u = P(level | two different people)

A pair's match weight is the sum over its fields (MISSING counts 0: no evidence). The weights
are estimated, not guessed:

- u from random pairs of distinct register entries (`estimate_u`);
- m from labelled synthetic pairs: register entries written out as a signer would (the noise
  model `noisy_signer`: typos, OCR letter confusions, nicknames, initials, omitted middle names
  and units, abbreviations), paired with the entry they came from (`estimate_m`);
- the given name's INITIAL level apart (a conditional level, `compare.Comparison.conditional`):
  its m and u are the chances that the first letters agree for one person and for two, so an
  initial weighs what its letter says (some 4 bits) and a likeness what likenesses say.

Both use add-one smoothing. `python -m matchers.weights --out matchers/weights/default.json`
rebuilds the stored weights from a synthetic register (synth, no real person) and
records how in the file's "made" entry. The thresholds (MATCH / REVIEW / NO_MATCH) are set from
bench/match_speed.py's labelled run and stored in the same file.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pipeline.records import ComparisonLevel, RegisterEntry

from .compare import (
    COMPARISONS,
    FIELD_COLUMNS,
    INITIAL,
    LEVELS,
    MISSING,
    Comparison,
    compare_arrays,
)
from .lines import line_frame
from .nicknames import FORMAL_NICKNAMES

if TYPE_CHECKING:
    from .store import RegisterStore

__all__ = [
    "DEFAULT_WEIGHTS",
    "Thresholds",
    "Weights",
    "estimate_m",
    "estimate_u",
    "estimate_u_sampled",
    "Fit",
    "fit_to_lines",
    "for_register",
    "load_weights",
    "noisy_signer",
]

log = logging.getLogger(__name__)

DEFAULT_WEIGHTS = Path(__file__).parent / "weights" / "default.json"


MATCH_PROBABILITY = 0.95  # the default posterior a MATCH needs (Thresholds.match_probability)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Decision thresholds on the match weight (bits)."""

    match: float  # best weight at or above this (evidence, whatever the prior), and ...
    margin: float  # ... this far above the next voter, and ...
    no_match: float  # (best weight below this, and no surname like it nearby: NO_MATCH)
    # ... the posterior probability that the line is the voter at least this: MATCH. A
    # probability means the same on a register of 500 and of 13 million (the prior odds, the
    # registered share over the register's size, are in it; `fit_to_lines`).
    match_probability: float = MATCH_PROBABILITY


@dataclass(frozen=True, slots=True)
class Weights:
    """m and u per field and level; `table` is weight[field index][level code] in bits."""

    fields: tuple[str, ...]
    m: tuple[tuple[float, ...], ...]
    u: tuple[tuple[float, ...], ...]
    thresholds: Thresholds
    prior: float  # P(a random pair is a match), for the probability shown to a reviewer
    made: str  # how the weights were made

    @property
    def table(self) -> np.ndarray:
        """weight[field][level] in bits, made monotone: a level never weighs more than a
        better one (a sparse level's estimate can come out above EXACT; it is capped). A level
        the field's comparison never gives (INITIAL but for the given name) weighs 0 and caps
        nothing."""
        t = np.zeros((len(self.fields), len(LEVELS)), dtype=np.float64)
        for i, field in enumerate(self.fields):
            better = None
            for j in _levels_given(field):
                t[i, j] = math.log2(self.m[i][j] / self.u[i][j])
                if better is not None:
                    t[i, j] = min(t[i, j], t[i, better])
                better = j
        return t

    def weight(self, field: str, level: ComparisonLevel) -> float:
        return float(self.table[self.fields.index(field), LEVELS.index(level)])

    def probability(self, match_weight: float) -> float:
        """Posterior P(match) of a pair with this weight, given the prior."""
        logit = match_weight + math.log2(self.prior / (1 - self.prior))
        if logit > 60:
            return 1.0
        return 1.0 / (1.0 + 2.0 ** (-logit))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "made": self.made,
            "prior": self.prior,
            "thresholds": {
                "match": self.thresholds.match,
                "margin": self.thresholds.margin,
                "no_match": self.thresholds.no_match,
                "match_probability": self.thresholds.match_probability,
            },
            "fields": {
                f: {
                    "m": {LEVELS[j].value: self.m[i][j] for j in _levels_given(f)},
                    "u": {LEVELS[j].value: self.u[i][j] for j in _levels_given(f)},
                    "weight_bits": {
                        LEVELS[j].value: round(float(self.table[i, j]), 3) for j in _levels_given(f)
                    },
                }
                for i, f in enumerate(self.fields)
            },
        }


def _levels_given(field: str) -> tuple[int, ...]:
    """The level codes the field's comparison gives, best first, MISSING (no evidence) left
    out: INITIAL only for a comparison that gives it (`Comparison.conditional`)."""
    cmp = _BY_FIELD.get(field)
    return tuple(
        j
        for j in range(len(LEVELS))
        if j != MISSING and (j != INITIAL or (cmp is not None and cmp.conditional))
    )


_BY_FIELD = {c.field: c for c in COMPARISONS}


def weights_from_json(data: Mapping[str, Any]) -> Weights:
    fields = tuple(data["fields"])

    def row(f: str, side: str) -> tuple[float, ...]:
        given = _levels_given(f)
        return tuple(
            float(data["fields"][f][side][lv.value]) if j in given else 1.0
            for j, lv in enumerate(LEVELS)
        )

    m = tuple(row(f, "m") for f in fields)
    u = tuple(row(f, "u") for f in fields)
    t = data["thresholds"]
    return Weights(
        fields,
        m,
        u,
        Thresholds(
            float(t["match"]),
            float(t["margin"]),
            float(t["no_match"]),
            float(t.get("match_probability", MATCH_PROBABILITY)),
        ),
        float(data["prior"]),
        str(data["made"]),
    )


def load_weights(path: str | Path = DEFAULT_WEIGHTS) -> Weights:
    return weights_from_json(json.loads(Path(path).read_text(encoding="utf-8")))


# --------------------------------------------------------------------------------------------
# Level frequencies
# --------------------------------------------------------------------------------------------


def _compare_distinct_pairs(cmp: Comparison, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """`compare_arrays`' level codes, each distinct pair compared once (random pairs of a
    register repeat the same ZIPs, suffixes, units and common names many times over)."""
    ia, ua = pd.factorize(np.asarray(a, dtype=object), use_na_sentinel=False)
    ib, ub = pd.factorize(np.asarray(b, dtype=object), use_na_sentinel=False)
    pairs, keys = pd.factorize(ia.astype(np.int64) * len(ub) + ib, use_na_sentinel=False)
    codes, _ = compare_arrays(cmp, ua[keys // len(ub)].tolist(), ub[keys % len(ub)].tolist())
    return codes[pairs]


def _frequencies(
    left: Mapping[str, Sequence[str]], right: Mapping[str, Sequence[str]]
) -> list[list[float]]:
    """Per comparison, P(level) among non-missing pairs, add-one smoothed (MISSING: 1.0). The
    INITIAL level's (a conditional comparison's) is apart: the share of the non-missing pairs
    whose first letters agree, add-one smoothed, whether or not either side was written as an
    initial (an initial is a given name cut short: it agrees as often as the names' first
    letters do). It stays out of the other levels' shares."""
    out: list[list[float]] = []
    for cmp in COMPARISONS:
        col = FIELD_COLUMNS[cmp.field]
        codes = _compare_distinct_pairs(cmp, left[col], right[col])
        counts = np.bincount(codes, minlength=len(LEVELS)).astype(float)[: len(LEVELS)]
        counts[[MISSING, INITIAL]] = 0.0
        shared = [j for j in range(len(LEVELS)) if j not in (MISSING, INITIAL)]
        present = counts.sum()
        probs = [(counts[j] + 1.0) / (present + len(shared)) for j in range(len(LEVELS))]
        probs[MISSING] = 1.0
        probs[INITIAL] = _first_letters_agree(left[col], right[col]) if cmp.conditional else 1.0
        out.append(probs)
    return out


def _first_letters_agree(a: Sequence[str], b: Sequence[str]) -> float:
    """The share of the pairs, both sides written, whose first letters agree (add-one)."""
    first_a = np.asarray([v[:1] for v in a], dtype=object)
    first_b = np.asarray([v[:1] for v in b], dtype=object)
    written = (first_a != "") & (first_b != "")
    agree = int((first_a[written] == first_b[written]).sum())
    return (agree + 1.0) / (int(written.sum()) + 2.0)


def estimate_u(store: RegisterStore, pairs: int, seed: int) -> list[list[float]]:
    """u from `pairs` random pairs of distinct register entries (different voter ids)."""
    with store.cursor() as con:
        frame = con.execute(
            "SELECT voter_id, " + ", ".join(FIELD_COLUMNS.values()) + " FROM entries ORDER BY rid"
        ).df()
    return _u_of_random_pairs(frame, pairs, seed)


def estimate_u_sampled(store: RegisterStore, pairs: int, seed: int) -> list[list[float]]:
    """u from `pairs` random pairs of distinct entries of a sample of the register (at most
    2 * `pairs` rows, drawn in SQL: a 13-million-row register is never loaded whole). The
    sample is the rows of the smallest hashes of (rid, seed): the same rows every run (DuckDB's
    `USING SAMPLE reservoir ... REPEATABLE` is not, on more than one thread)."""
    cols = ", ".join(FIELD_COLUMNS.values())
    with store.cursor() as con:
        frame = con.execute(
            f"SELECT voter_id, {cols} FROM (SELECT * FROM entries "
            f"ORDER BY hash(rid, {int(seed)}), rid LIMIT {2 * int(pairs)}) ORDER BY rid"
        ).df()
    return _u_of_random_pairs(frame, pairs, seed)


def _u_of_random_pairs(frame: Any, pairs: int, seed: int) -> list[list[float]]:
    """Level frequencies over `pairs` random pairs of the frame's rows with different ids."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, len(frame), pairs)
    b = rng.integers(0, len(frame), pairs)
    keep = frame["voter_id"].to_numpy()[a] != frame["voter_id"].to_numpy()[b]
    left = {c: frame[c].to_numpy()[a[keep]].tolist() for c in FIELD_COLUMNS.values()}
    right = {c: frame[c].to_numpy()[b[keep]].tolist() for c in FIELD_COLUMNS.values()}
    return _frequencies(left, right)


MIN_ENTRIES_OWN_U = 300  # a register this large gives its own u; a smaller, the stored u


def for_register(
    weights: Weights, store: RegisterStore, *, pairs: int = 50_000, seed: int = 0
) -> Weights:
    """`weights` with u estimated on the register being matched (random pairs, as splink's
    `estimate_u_using_random_sampling`): how often two of ITS voters agree by chance. A county
    has hundreds of streets and ZIPs, so an agreeing address says far more there than in a
    village; the stored u is the village's (conservative) and serves registers under
    MIN_ENTRIES_OWN_U entries. m (how signers write) stays as stored."""
    if len(store) < MIN_ENTRIES_OWN_U:
        return weights
    u = estimate_u_sampled(store, min(pairs, len(store) * (len(store) - 1) // 4), seed)
    made = (
        f"{weights.made} u re-estimated on the register matched ({len(store)} entries, "
        f"{pairs} random pairs)."
    )
    return Weights(
        weights.fields,
        weights.m,
        tuple(tuple(r) for r in u),
        weights.thresholds,
        weights.prior,
        made,
    )


# The priors' strength in `fit_to_lines`: the stored m counts as this many matched lines, the
# prior registered share as this many lines. A village petition of 50 lines mostly keeps the
# stored m; a petition of thousands of lines mostly speaks for itself.
PRIOR_LINES_M = 200.0
PRIOR_LINES_REGISTERED = 20.0
REGISTERED_PRIOR = 0.85  # the share of signers who are registered, before the lines speak
REGISTERED_RANGE = (0.02, 0.99)  # never sure that all (or none) are
EM_ITERATIONS = 30


@dataclass(frozen=True, slots=True)
class Fit:
    """What `fit_to_lines` learned from a batch of lines."""

    weights: Weights  # m fitted (u as given)
    registered: float  # the share of the lines whose signer is on the register
    log2_prior: float  # log2 prior odds that a line is one given entry
    iterations: int


def _log2_prior(registered: float, size: int) -> float:
    return math.log2(registered / ((1.0 - registered) * max(1, size)))


def fit_to_lines(
    weights: Weights,
    codes: np.ndarray,
    line: np.ndarray,
    offset: np.ndarray,
    n_lines: int,
    size: int,
    *,
    iterations: int = EM_ITERATIONS,
) -> Fit:
    """m and the registered share estimated by EM on the lines being matched.

    `codes` (pairs, fields): the level codes of each line's candidate voters (one row per line
    and voter, `line` its line 0..n_lines-1), `offset` bits added to each pair's weight (a name
    read another way costs some), `size` the register's. The model: a line is a registered
    signer with probability lambda, then one of the `size` entries, equally likely a priori;
    P(line is voter j) = 2^(w_j + p) / (1 + sum_k 2^(w_k + p)), p = log2(lambda / ((1 - lambda)
    * size)), w the weights (bits) of m over u (u as given: random pairs of the register). The
    M step counts each field's levels over the pairs, each weighted by that probability, with
    the given m as a Dirichlet prior worth PRIOR_LINES_M lines (MISSING stays out: no
    evidence; so does INITIAL, whose m is conditional, the chance that an initial agrees with
    the signer's given name, and is kept as given), and lambda as the mean probability that a
    line is someone, with its prior worth PRIOR_LINES_REGISTERED lines. u is not refitted
    (random pairs estimate it better)."""
    m = np.array(weights.m, dtype=np.float64)
    u = np.array(weights.u, dtype=np.float64)
    n_fields = len(weights.fields)
    registered = REGISTERED_PRIOR
    used = 0
    if n_lines == 0 or not len(codes):
        return Fit(weights, registered, _log2_prior(registered, size), 0)
    fields = np.arange(n_fields)[None, :]
    by_field = [codes[:, f].astype(np.intp) for f in range(n_fields)]
    for used in range(1, iterations + 1):  # noqa: B007 - reported
        table = Weights(weights.fields, _rows(m), _rows(u), weights.thresholds, weights.prior, "")
        w = table.table[fields, codes].sum(axis=1) + offset
        s = w + _log2_prior(registered, size)
        top = np.zeros(n_lines)
        np.maximum.at(top, line, s)
        e = np.exp2(s - top[line])
        denominator = np.exp2(-top) + np.bincount(line, weights=e, minlength=n_lines)
        r = e / denominator[line]
        new_m = m.copy()
        for f in range(n_fields):
            counts = np.bincount(by_field[f], weights=r, minlength=len(LEVELS))
            counts[[MISSING, INITIAL]] = 0.0
            prior = np.array(weights.m[f], dtype=np.float64)
            prior[[MISSING, INITIAL]] = 0.0
            prior = prior / prior.sum()
            row = counts + PRIOR_LINES_M * prior
            row = row / row.sum()
            row[MISSING] = 1.0
            row[INITIAL] = weights.m[f][INITIAL]  # conditional: kept as given
            new_m[f] = row
        new_registered = (r.sum() + PRIOR_LINES_REGISTERED * REGISTERED_PRIOR) / (
            n_lines + PRIOR_LINES_REGISTERED
        )
        new_registered = min(max(new_registered, REGISTERED_RANGE[0]), REGISTERED_RANGE[1])
        done = np.abs(new_m - m).max() < 1e-5 and abs(new_registered - registered) < 1e-5
        m, registered = new_m, new_registered
        if done:
            break
    made = (
        f"{weights.made} m fitted by EM to the {n_lines} lines matched ({used} iterations, "
        f"registered share {registered:.3f})."
    )
    fitted = Weights(weights.fields, _rows(m), weights.u, weights.thresholds, weights.prior, made)
    return Fit(fitted, registered, _log2_prior(registered, size), used)


def _rows(a: np.ndarray) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(x) for x in row) for row in a)


def estimate_m(
    store: RegisterStore, pairs: int, seed: int, handwriting: float = 0.5
) -> list[list[float]]:
    """m from `pairs` synthetic signer lines written from random entries (`noisy_signer`; a
    share `handwriting` of them with handwriting-like OCR confusions, the rest typed), each
    compared with the entry it came from, both normalized the way the matcher does."""
    rng = random.Random(seed)
    rids = store.sample_rids(pairs, seed)
    entries = store.by_rid(rids)
    lines = [noisy_signer(e, rng, handwriting=rng.random() < handwriting) for e in entries]
    with store.cursor() as con:
        q = line_frame(con, [(n, r) for n, r in lines], places=())
        reg = con.execute(
            "SELECT " + ", ".join(FIELD_COLUMNS.values()) + " FROM entries e JOIN (SELECT "
            "unnest(?) AS rid, generate_subscripts(?, 1) AS k) r USING (rid) ORDER BY k",
            [rids, rids],
        ).df()
    left = {c: q[c].tolist() for c in FIELD_COLUMNS.values()}
    right = {c: reg[c].tolist() for c in FIELD_COLUMNS.values()}
    return _frequencies(left, right)


# --------------------------------------------------------------------------------------------
# The noise model: how a signer writes what the register holds
# --------------------------------------------------------------------------------------------

# OCR / handwriting letter confusions (both ways).
_CONFUSIONS: tuple[tuple[str, str], ...] = (
    ("m", "rn"),
    ("a", "o"),
    ("e", "c"),
    ("l", "1"),
    ("i", "l"),
    ("u", "v"),
    ("n", "h"),
    ("0", "O"),
    ("5", "S"),
    ("1", "7"),
    ("3", "8"),
    ("cl", "d"),
    ("g", "q"),
)
_NICK_OF: Mapping[str, tuple[str, ...]] = {k.title(): v for k, v in FORMAL_NICKNAMES.items()}


def _typo(s: str, rng: random.Random) -> str:
    if len(s) < 3:
        return s
    i = rng.randrange(1, len(s))
    kind = rng.random()
    if kind < 0.35:  # substitution
        return s[:i] + rng.choice("aeioulnrst") + s[i + 1 :]
    if kind < 0.6:  # deletion
        return s[:i] + s[i + 1 :]
    if kind < 0.8 and i < len(s) - 1:  # transposition
        return s[:i] + s[i + 1] + s[i] + s[i + 2 :]
    return s[:i] + s[i - 1] + s[i:]  # doubled letter


def _ocr(s: str, rng: random.Random) -> str:
    options = [(a, b) for a, b in _CONFUSIONS if a in s] + [
        (b, a) for a, b in _CONFUSIONS if b in s
    ]
    if not options:
        return _typo(s, rng)
    a, b = rng.choice(options)
    return s.replace(a, b, 1)


def noisy_signer(
    e: RegisterEntry, rng: random.Random, handwriting: bool = False
) -> tuple[str, str]:
    """(name, residence) as a signer might write them and a reader read them. Synthetic: the
    rates below are ours, chosen to be harsher than a typed petition."""
    noise = _ocr if handwriting else _typo
    p_err = 0.12 if handwriting else 0.05
    first = e.first_name.title()
    r = rng.random()
    if r < 0.06 and first in _NICK_OF:
        first = rng.choice(_NICK_OF[first]).title()
    elif r < 0.09:
        first = first[:1] + "."
    elif rng.random() < p_err:
        first = noise(first, rng)
    middle = e.middle_name.title()
    r = rng.random()
    if r < 0.45:
        middle = ""
    elif r < 0.8:
        middle = middle[:1] + "." if middle else ""
    last = e.last_name.title()
    if rng.random() < p_err * 1.5:
        last = noise(last, rng)
    suffix = e.suffix if e.suffix and rng.random() < 0.3 else ""
    if rng.random() < 0.08:
        name = f"{last}, {first} {middle}".strip()
    else:
        name = " ".join(p for p in (first, middle, last, suffix) if p)
    house = f"{e.house_number} {e.half_code}".strip()
    if house and rng.random() < p_err * 0.6:
        house = noise(house, rng) if handwriting else _typo(house + "0", rng)[: len(house)]
    street = " ".join(p for p in (e.pre_direction, e.street_name, e.post_direction) if p).title()
    street = (
        street.replace(" St", " Street").replace(" Ave", " Avenue")
        if rng.random() < 0.4
        else street
    )
    if rng.random() < p_err:
        street = noise(street, rng)
    residence = f"{house} {street}".strip()
    if e.apartment and rng.random() < 0.6:
        residence += rng.choice((" Apt ", " #", " Unit ")) + e.apartment
    r = rng.random()
    if r < 0.3 and e.city:
        residence += f", {e.city.title()}"
    elif r < 0.5 and e.city and e.zip5:
        residence += f", {e.city.title()} NY {e.zip5}"
    if rng.random() < 0.03:
        residence = ""
    return name, residence


# --------------------------------------------------------------------------------------------
# A synthetic NYS-layout register, generated in SQL (fast enough for 13 million rows)
# --------------------------------------------------------------------------------------------

# Invented name parts (syllables); their combinations are the names. No real register is used.
_FIRST_A = (
    "AL", "AN", "AR", "BE", "BR", "CA", "CL", "DA", "DE", "EL", "EM", "FE", "GA", "GR", "HA",
    "IS", "JA", "JO", "KA", "LA", "LE", "MA", "MI", "NA", "NO", "OL", "PA", "RO", "SA", "SE",
    "TA", "TE", "VI", "WI", "ZA",
)  # fmt: skip
_FIRST_B = (
    "BEL", "DRA", "LIA", "LON", "MAR", "NEL", "RIN", "ROS", "SON", "TAN", "VIN", "WEN", "RA",
    "NA", "DO", "LE", "RY", "TH", "ZY", "RIC", "MUND", "BERT", "LINE", "ETTE",
)  # fmt: skip
_LAST_A = (
    "ASH", "BAR", "BIR", "BRAN", "CAL", "COR", "DAL", "DUN", "EL", "FAR", "FEN", "GAL", "GOR",
    "HAL", "HAR", "HOL", "IN", "KEL", "KIR", "LAN", "LIN", "MAR", "MOR", "NOR", "OS", "PEL",
    "PEN", "QUIL", "RAD", "ROW", "SAL", "STAN", "TAL", "TOR", "UL", "VAN", "WAL", "WEST", "WIN",
    "YAR",
)  # fmt: skip
_LAST_B = (
    "BROOK", "BURN", "BY", "COTT", "DALE", "DEN", "FIELD", "FORD", "GATE", "HAM", "HILL",
    "HURST", "LAND", "LEY", "LOW", "MER", "MORE", "NELL", "RICK", "ROW", "SON", "STEAD", "TON",
    "VILLE", "WARD", "WELL", "WICK", "WOOD", "WORTH", "ZEN",
)  # fmt: skip
_LAST_C = ("", "", "", "", "ER", "IN", "OW", "ES", "AN", "IG")
_STREET_A = (
    "OAK", "ELM", "MAPLE", "CEDAR", "BIRCH", "PINE", "WILLOW", "ASPEN", "CHESTNUT", "HICKORY",
    "LAUREL", "SPRUCE", "ORCHARD", "MEADOW", "RIVER", "LAKE", "HILL", "VALLEY", "MILL", "BROOK",
    "CHURCH", "SCHOOL", "MARKET", "UNION", "HARBOR", "SUMMIT", "PROSPECT", "LIBERTY", "FOREST",
    "GROVE", "SUNSET", "RIDGE", "CANAL", "BRIDGE", "FERRY", "STATION", "GARDEN", "PARK",
)  # fmt: skip
_STREET_T = ("ST", "AVE", "RD", "LN", "DR", "CT", "PL", "TER", "WAY", "BLVD")
_TOWNS = 900  # invented towns, "TOWN 1" ... each with its own ZIP


def _sql_list(values: Sequence[str]) -> str:
    return "[" + ", ".join("'" + v + "'" for v in values) + "]"


def synthetic_register_sql(rows: int, seed: int, path: str | Path, layout: int = 45) -> str:
    """SQL that writes `rows` synthetic voters as a NYS BOE export (45 or 47 fields, all
    quoted, no header) to `path`. Households of 1-4 voters share an address and mostly a
    surname; one voter in 25 has a nickname-able formal given name, one in 60 a Jr/Sr."""
    from .register import NYSBOE_45_FIELDS, NYSBOE_47_FIELDS

    names = NYSBOE_47_FIELDS if layout == 47 else NYSBOE_45_FIELDS
    formal = _sql_list(sorted(FORMAL_NICKNAMES))

    def hx(key: str, salt: int | str) -> str:
        """A well-mixed hash of `key` for one purpose (`salt`)."""
        return f"hash(CAST({key} AS VARCHAR) || '|{seed}|{salt}')"

    h = f"(i // 2 + ({hx('i // 7', 'h')} % 2))"  # household id: about 2 voters each

    def pick(values: str, key: str, salt: int) -> str:
        return f"list_element({values}, 1 + ({hx(key, salt)} % len({values}))::INT)"

    surname_key = f"CASE WHEN {hx('i', 1)} % 5 = 0 THEN i ELSE {h} END"
    # Zipf-ish surname choice: a skewed pick of the first part (r * r / 1000 for r in 0..999).
    r = f"({hx(surname_key, 2)} % 1000)"
    last = (
        f"list_element({_sql_list(_LAST_A)}, 1 + ({r} * {r} * {len(_LAST_A)} // 1000000)::BIGINT)"
        f" || {pick(_sql_list(_LAST_B), surname_key, 3)}"
        f" || {pick(_sql_list(_LAST_C), surname_key, 4)}"
    )
    first = (
        f"CASE WHEN {hx('i', 5)} % 25 = 0 THEN {pick(formal, 'i', 6)} ELSE "
        f"{pick(_sql_list(_FIRST_A), 'i', 7)} || {pick(_sql_list(_FIRST_B), 'i', 8)} END"
    )
    middle = (
        f"CASE WHEN {hx('i', 9)} % 10 < 6 THEN {pick(_sql_list(_FIRST_A), 'i', 10)} || "
        f"{pick(_sql_list(_FIRST_B), 'i', 11)} ELSE '' END"
    )
    town = f"({hx(h, 12)} % {_TOWNS})"
    suffixes = _sql_list(("JR", "SR", "II", "III"))
    values = {
        "LASTNAME": last,
        "FIRSTNAME": first,
        "MIDDLENAME": middle,
        "NAMESUFFIX": f"CASE WHEN {hx('i', 13)} % 60 = 0 THEN {pick(suffixes, 'i', 24)} "
        "ELSE '' END",
        "RADDNUMBER": f"CAST(1 + {hx(h, 14)} % 400 AS VARCHAR)",
        "RHALFCODE": f"CASE WHEN {hx(h, 15)} % 50 = 0 THEN '1/2' ELSE '' END",
        "RAPARTMENT": f"CASE WHEN {hx(h, 16)} % 8 = 0 THEN "
        f"CAST(1 + {hx(h, 17)} % 30 AS VARCHAR) ELSE '' END",
        "RPREDIRECTION": f"CASE WHEN {hx(h, 18)} % 12 = 0 THEN 'N' ELSE '' END",
        "RSTREETNAME": f"{pick(_sql_list(_STREET_A), h, 19)} || ' ' || "
        f"{pick(_sql_list(_STREET_T), h, 20)}",
        "RCITY": f"'TOWN ' || {town}",
        "RZIP5": f"CAST(10000 + {town} * 3 AS VARCHAR)",
        "COUNTYCODE": f"CAST(1 + {town} % 62 AS VARCHAR)",
        "ED": f"CAST(1 + {hx(h, 21)} % 30 AS VARCHAR)",
        "TOWNCITY": f"'TOWN ' || {town}",
        "WARD": "''",
        "REGDATE": f"strftime(DATE '1980-01-01' + CAST({hx('i', 22)} % 16000 AS INT), '%Y%m%d')",
        "STATUS": f"CASE WHEN {hx('i', 23)} % 20 = 0 THEN 'I' "
        f"WHEN {hx('i', 23)} % 20 = 1 THEN 'P' ELSE 'A' END",
        "SBOEID": "'NY' || lpad(CAST(i + 1 AS VARCHAR), 18, '0')",
    }
    cols = ", ".join(f'{values.get(n, chr(39) * 2)} AS "{n}"' for n in names)
    target = str(path).replace("'", "''")
    return (
        f"COPY (SELECT {cols} FROM range({int(rows)}) t(i)) TO '{target}' "
        "(FORMAT csv, HEADER false, FORCE_QUOTE *)"
    )


def write_synthetic_register(path: str | Path, rows: int, seed: int = 5, layout: int = 45) -> None:
    """Write a synthetic NYS-layout register file (see `synthetic_register_sql`)."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        con.execute(synthetic_register_sql(rows, seed, path, layout))
    finally:
        con.close()


# --------------------------------------------------------------------------------------------
# Rebuilding the stored weights
# --------------------------------------------------------------------------------------------


def _synthetic_village_register(seed: int, size: int) -> list[RegisterEntry]:
    """Entries of a synthetic village register (synth: invented people)."""
    import tempfile

    from pipeline.casefile import RegisterConfig
    from synth.people import build_register, default_village
    from synth.register import write_register

    from .register import read_register

    village = default_village()
    voters = build_register(
        random.Random(seed),
        village,
        village_size=size,
        election=dt.date(2026, 3, 17),
        adopted=dt.date(2026, 9, 14),
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "register.csv"
        write_register(voters, village, path)
        return list(read_register(RegisterConfig(path=path)).entries)


def main(argv: Sequence[str] | None = None) -> int:
    import tempfile

    from pipeline.casefile import RegisterConfig

    from .store import RegisterStore, open_store

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS)
    parser.add_argument("--rows", type=int, default=200_000, help="synthetic county register")
    parser.add_argument("--village", type=int, default=3_000, help="synthetic village register")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--match", type=float, default=12.0)
    parser.add_argument("--margin", type=float, default=5.0)
    parser.add_argument("--no-match", type=float, default=0.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "register.csv"
        write_synthetic_register(path, args.rows, args.seed)
        county = open_store(RegisterConfig(path=path), Path(tmp) / "cache")
        village = RegisterStore.from_entries(_synthetic_village_register(args.seed, args.village))
        m = estimate_m(county, 50_000, args.seed)
        u_county = estimate_u(county, 100_000, args.seed + 1)
        u_village = estimate_u(village, 100_000, args.seed + 2)
        size = len(county)
        county.close()
        village.close()
    # Names: the county register's u (synth's village draws from a few dozen names, far
    # fewer than a real village has). Addresses: per level the larger u of the two registers:
    # agreement by chance is likelier in a village (few streets, one ZIP); the larger is the
    # conservative choice.
    address = {"house_number", "street", "unit", "zip5"}
    u = [
        [max(a, b) for a, b in zip(ra, rb, strict=True)] if c.field in address else list(ra)
        for c, ra, rb in zip(COMPARISONS, u_county, u_village, strict=True)
    ]
    made = (
        f"estimated {dt.date.today().isoformat()} by `python -m matchers.weights --rows "
        f"{args.rows} --village {args.village} --seed {args.seed}`. u from 100,000 random pairs of "
        f"distinct entries of a synthetic county register of {size} rows "
        "(matchers.weights.synthetic_register_sql, invented syllable names); for the address "
        "fields, per level the larger of that and the same estimate on a synthetic village "
        f"register of {args.village} voters (synth, invented people). m: 50,000 "
        "synthetic signer lines written from random county entries by "
        "matchers.weights.noisy_signer (half typed, half handwriting-like OCR confusions), "
        "each compared with its entry. "
        "Add-one smoothing; weights capped to be monotone in the level. Thresholds (match "
        f"{args.match:g}, margin {args.margin:g}, no_match {args.no_match:g}) chosen on the "
        "safe side of sweeps on bench/match_speed.py (200,000-row register; 20,000 lines: no "
        "confident wrong match for match 6..16 and margin 2..8; 50,000 lines, seed 11, these "
        "levels: none for margin 2..6, recall flat from 4 up); at match time u is re-estimated "
        "on the register matched (for_register), m and the share of lines that are registered "
        "are fitted by EM to the lines matched with these m as priors (fit_to_lines), and a "
        "MATCH needs the posterior probability thresholds.match_probability."
    )
    w = Weights(
        tuple(c.field for c in COMPARISONS),
        tuple(tuple(r) for r in m),
        tuple(tuple(r) for r in u),
        Thresholds(args.match, args.margin, args.no_match, MATCH_PROBABILITY),
        1.0 / 10_000,
        made,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(w.to_json(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    for i, f in enumerate(w.fields):
        row = ", ".join(f"{lv.value} {w.table[i, j]:+.2f}" for j, lv in enumerate(LEVELS[:4]))
        print(f"  {f:13s} {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
