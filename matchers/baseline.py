"""The baseline matcher: every petition line scored against every register entry with RapidFuzz.

Honest and simple, and the yardstick for what replaces it (blocking plus match weights). Keep
the interface: `BaselineMatcher(entries, cfg)`, `.match(line)`, `.match_all(lines)`.

Scoring, per line and register entry:

- name: `token_sort_ratio` of the normalized signer name against the entry's normalized
  "FIRST MIDDLE LAST", "FIRST M LAST" and "FIRST LAST" (the best of the three). The signer name
  is the printed-name field, or the signature's text when the printed name is empty.
- address: `token_sort_ratio` of the normalized residence (a trailing state and ZIP removed)
  against the entry's normalized street address followed by its city, and of the residence
  without a trailing place name (any city or town in the register) against the street address
  alone (the best of the two), so "12 Main St, Pleasantville NY 10570" agrees with "12 MAIN ST".
- combined: 0.6 * name + 0.4 * address when both sides have an address, else the name score.

Decision: MATCH when the best score >= cfg.accept and it leads the best *other* voter by at
least cfg.margin; NO_MATCH only when the best score < cfg.reject; REVIEW otherwise. A line with
no name goes to REVIEW ("no name to match"), never to NO_MATCH.

The register entries given are all matched against: which voters count (status, village) is
the judge's business, and a purged signer must be found for the judge to say so.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from pipeline.casefile import MatchingConfig
from pipeline.records import (
    Candidate,
    ComparisonLevel,
    FieldEvidence,
    Match,
    MatchDecision,
    RegisterEntry,
    SignatureLine,
)

from .normalize import name_suffix, normalize_address, normalize_name

__all__ = ["METHOD", "BaselineMatcher", "comparison_level"]

log = logging.getLogger(__name__)

METHOD = "rapidfuzz-baseline/1"

NAME_WEIGHT = 0.6
ADDRESS_WEIGHT = 0.4
# A signer who writes a suffix names one of a Jr/Sr pair: a register entry with another suffix
# loses this much of its name score, one with none a little (sons are often registered without).
SUFFIX_CONFLICT_PENALTY = 20.0
SUFFIX_MISSING_PENALTY = 8.0
# "Not on the register" needs no surname on it that looks like the signer's: a clerk's lookup in
# the alphabetical list. Below this fuzz.ratio against every surname word, the signer is absent.
SURNAME_ABSENT_BELOW = 75.0

# Comparison levels of a 0..100 similarity (token_sort_ratio: 100 means the same words).
_LEVELS: tuple[tuple[float, ComparisonLevel], ...] = (
    (100.0, ComparisonLevel.EXACT),
    (90.0, ComparisonLevel.CLOSE),
    (75.0, ComparisonLevel.LOOSE),
)

# Scored cells per block of lines (lines x entries); bounds memory on a large register.
_BLOCK_CELLS = 4_000_000
# Extra ranked entries looked at so duplicate rows of one voter do not crowd out the others.
_EXTRA_RANKED = 10

# A trailing "NY 10570", "New York 10570-1234", or ZIP alone, at the end of a residence.
_STATE_ZIP = re.compile(r"(?:\s+(?:NY|NEW YORK))?(?:\s+\d{5}(?:\s*-?\s*\d{4})?)?$")


def comparison_level(score: float, line_value: str, register_value: str) -> ComparisonLevel:
    """The ordered level of one field's similarity."""
    if not line_value or not register_value:
        return ComparisonLevel.MISSING
    for floor, level in _LEVELS:
        if score >= floor:
            return level
    return ComparisonLevel.DIFFERENT


_PLACE_PREFIXES = ("VILLAGE OF", "TOWN OF", "CITY OF", "VILL OF")


def _line_address(text: str) -> str:
    """Normalized residence without a trailing state and ZIP code."""
    return _STATE_ZIP.sub("", normalize_address(text)).strip()


def _strip_place(address: str, places: frozenset[str], longest: int) -> str:
    """The address without a trailing place name the register knows ("... PLEASANTVILLE"),
    or "VILLAGE OF ..." before it; unchanged if nothing would be left."""
    tokens = address.split()
    for k in range(min(longest, len(tokens) - 1), 0, -1):
        if " ".join(tokens[-k:]) in places:
            rest = " ".join(tokens[:-k])
            for prefix in _PLACE_PREFIXES:
                if rest.endswith(" " + prefix):
                    rest = rest[: -len(prefix) - 1]
            return rest
    return address


def _fmt(x: float) -> str:
    return f"{x:.1f}"


@dataclass(frozen=True, slots=True)
class _Prepared:
    """One line, normalized."""

    name: str
    suffix: str  # JR, SR, II ... as the signer wrote it, or ""
    address: str  # the residence, without state and ZIP
    street: str  # and without a trailing place name the register knows


class BaselineMatcher:
    """Fuzzy-matches petition lines against register entries. Build once per register.

    `workers` is RapidFuzz's thread count for `cdist` (-1: every core). The results do not
    depend on it. On the 2-core dev machine -1 is about 1.4x faster (bench/match_baseline.py);
    pass 1 when the caller already runs matchers in parallel processes.
    """

    method = METHOD

    def __init__(
        self, entries: Sequence[RegisterEntry], cfg: MatchingConfig, workers: int = -1
    ) -> None:
        self._entries = tuple(entries)
        self._cfg = cfg
        self._workers = workers
        n = len(self._entries)
        self._name_full = [
            normalize_name(f"{e.first_name} {e.middle_name} {e.last_name}") for e in self._entries
        ]
        self._name_initial = [
            normalize_name(f"{e.first_name} {e.middle_name[:1]} {e.last_name}")
            for e in self._entries
        ]
        self._name_short = [normalize_name(f"{e.first_name} {e.last_name}") for e in self._entries]
        self._address = [normalize_address(e.address) for e in self._entries]
        self._address_city = [
            normalize_address(f"{a} {e.city}") if a and e.city else a
            for a, e in zip(self._address, self._entries, strict=True)
        ]
        self._places = frozenset(
            p
            for e in self._entries
            for p in (normalize_address(e.city), normalize_address(e.town_city))
            if p
        )
        self._longest_place = max((len(p.split()) for p in self._places), default=0)
        self._has_address = np.fromiter((bool(a) for a in self._address), dtype=bool, count=n)
        self._display = [e.display for e in self._entries]
        # The same extraction on both sides, so a surname like "II" is no suffix conflict.
        self._suffix = np.array([name_suffix(e.full_name) for e in self._entries])
        self._surname_words = sorted(
            {w for e in self._entries for w in normalize_name(e.last_name).split()}
        )
        log.debug("baseline matcher built over %d register entries", n)

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
        prepared = [self._prepare(ln) for ln in lines]
        out: list[Match] = []
        block = max(1, _BLOCK_CELLS // max(1, len(self._entries)))
        for start in range(0, len(lines), block):
            chunk = prepared[start : start + block]
            out.extend(self._match_block(lines[start : start + block], chunk))
        log.debug("matched %d lines", len(out))
        return tuple(out)

    # ----------------------------------------------------------------------------------------

    def _prepare(self, line: SignatureLine) -> _Prepared:
        address = _line_address(line.text("residence"))
        raw_name = line.signer_name
        return _Prepared(
            name=normalize_name(raw_name),
            suffix=name_suffix(raw_name),
            address=address,
            street=_strip_place(address, self._places, self._longest_place),
        )

    def _cdist(self, queries: list[str], choices: list[str]) -> np.ndarray:
        return process.cdist(
            queries, choices, scorer=fuzz.token_sort_ratio, dtype=np.float32, workers=self._workers
        )

    def _match_block(self, lines: Sequence[SignatureLine], prep: list[_Prepared]) -> list[Match]:
        if not self._entries:
            return [self._empty_register(ln) for ln in lines]
        names = [p.name for p in prep]
        addresses = [p.address for p in prep]
        streets = [p.street for p in prep]
        name = np.maximum.reduce(
            [
                self._cdist(names, self._name_full),
                self._cdist(names, self._name_initial),
                self._cdist(names, self._name_short),
            ]
        )
        for i, p in enumerate(prep):
            if p.suffix:
                name[i] -= np.where(
                    self._suffix == p.suffix,
                    0.0,
                    np.where(self._suffix == "", SUFFIX_MISSING_PENALTY, SUFFIX_CONFLICT_PENALTY),
                )
        np.clip(name, 0.0, 100.0, out=name)
        address = np.maximum(
            self._cdist(streets, self._address), self._cdist(addresses, self._address_city)
        )
        line_has_address = np.array([bool(a) for a in addresses], dtype=bool)
        both = line_has_address[:, None] & self._has_address[None, :]
        combined = np.where(both, NAME_WEIGHT * name + ADDRESS_WEIGHT * address, name)
        line_has_name = np.array([bool(n) for n in names], dtype=bool)
        # No name: rank by address only, so the reviewer sees who lives there.
        combined = np.where(line_has_name[:, None], combined, np.where(both, address, 0.0))
        return [
            self._decide(ln, p, combined[i])
            for i, (ln, p) in enumerate(zip(lines, prep, strict=True))
        ]

    def _ranked(self, combined: np.ndarray) -> list[int]:
        """Entry indices, best first, one per voter id, at least enough for the decision."""
        n = len(combined)
        k = min(n, self._cfg.candidates + _EXTRA_RANKED)
        top = np.argpartition(-combined, k - 1)[:k] if k < n else np.arange(n)
        order = top[np.lexsort((top, -combined[top]))]  # score desc, then register order
        seen: set[str] = set()
        ranked: list[int] = []
        for idx in order.tolist():
            vid = self._entries[idx].voter_id
            if vid not in seen:
                seen.add(vid)
                ranked.append(idx)
        return ranked

    def _candidate(self, idx: int, p: _Prepared, score: float) -> Candidate:
        # Recompute the few shown candidates' field scores so the evidence names the register
        # form that scored best ("JOHN SMITH" rather than "JOHN ALBERT SMITH").
        name, reg_name = max(
            (
                (fuzz.token_sort_ratio(p.name, v), v)
                for v in (self._name_full[idx], self._name_initial[idx], self._name_short[idx])
            ),
            key=lambda sv: sv[0],
        )
        address, line_addr, reg_addr = max(
            (fuzz.token_sort_ratio(p.street, self._address[idx]), p.street, self._address[idx]),
            (
                fuzz.token_sort_ratio(p.address, self._address_city[idx]),
                p.address,
                self._address_city[idx],
            ),
            key=lambda sv: sv[0],
        )
        evidence: tuple[FieldEvidence, ...] = (
            FieldEvidence(
                "name", comparison_level(name, p.name, reg_name), round(name, 1), p.name, reg_name
            ),
            FieldEvidence(
                "address",
                comparison_level(address, line_addr, reg_addr),
                round(address, 1),
                line_addr,
                reg_addr,
            ),
        )
        if p.suffix:
            theirs = str(self._suffix[idx])
            level = (
                ComparisonLevel.MISSING
                if not theirs
                else ComparisonLevel.EXACT
                if theirs == p.suffix
                else ComparisonLevel.DIFFERENT
            )
            evidence += (
                FieldEvidence(
                    "suffix", level, 100.0 if theirs == p.suffix else 0.0, p.suffix, theirs
                ),
            )
        return Candidate(self._entries[idx].voter_id, round(score, 1), evidence, self._display[idx])

    def _decide(self, line: SignatureLine, p: _Prepared, combined: np.ndarray) -> Match:
        cfg = self._cfg
        if not p.name and not p.address:
            return Match(line.line_id, MatchDecision.REVIEW, None, (), METHOD, "no name to match")
        ranked = self._ranked(combined)
        candidates = tuple(
            self._candidate(i, p, float(combined[i])) for i in ranked[: cfg.candidates]
        )
        # Decide on the scores as shown (one decimal), so the reason never contradicts them.
        best = candidates[0].score
        second = round(float(combined[ranked[1]]), 1) if len(ranked) > 1 else 0.0
        levels = ", ".join(f"{ev.field} {ev.level.value}" for ev in candidates[0].evidence)
        summary = f"best {_fmt(best)} ({levels}), next {_fmt(second)}"

        def result(decision: MatchDecision, why: str) -> Match:
            voter = candidates[0].voter_id if decision is MatchDecision.MATCH else None
            return Match(line.line_id, decision, voter, candidates, METHOD, why)

        if not p.name:
            return result(
                MatchDecision.REVIEW,
                f"no name to match; candidates ranked by address only, {summary}",
            )
        lead = round(best - second, 1)
        if best >= cfg.accept and lead >= cfg.margin:
            return result(MatchDecision.MATCH, summary)
        if best < cfg.reject:
            return result(MatchDecision.NO_MATCH, f"{summary}; below reject {_fmt(cfg.reject)}")
        surname = p.name.split()[-1]
        closest = process.extractOne(surname, self._surname_words, scorer=fuzz.ratio)
        if best < cfg.accept and (closest is None or closest[1] < SURNAME_ABSENT_BELOW):
            # Someone lives at the address, but nobody on the register has a surname like this.
            near = f"{closest[0]} {_fmt(closest[1])}" if closest else "none"
            return result(
                MatchDecision.NO_MATCH,
                f"{summary}; no surname on the register like {surname} (closest {near})",
            )
        if best >= cfg.accept:
            why = f"lead {_fmt(lead)} below margin {_fmt(cfg.margin)}"
        else:
            why = f"below accept {_fmt(cfg.accept)}"
        return result(MatchDecision.REVIEW, f"{summary}; {why}")

    def _empty_register(self, line: SignatureLine) -> Match:
        return Match(
            line.line_id,
            MatchDecision.REVIEW,
            None,
            (),
            METHOD,
            "the register given to the matcher is empty",
        )
