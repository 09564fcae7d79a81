"""Per-field comparisons with ordered levels, in the manner of splink.

A `Comparison` is a small declarative value: which field, which similarity, and which rules lift
a pair to the CLOSE or LOOSE level. Applied to two arrays of normalized values (a line's and a
candidate entry's, one pair per row) it gives one `ComparisonLevel` code and one similarity
(0..100) per pair, vectorized with RapidFuzz's `cpdist`. A pair gets the best level any of its
rules gives:

    MISSING    either side is empty: no evidence either way (weight 0)
    EXACT      the two values are equal
    CLOSE      similarity >= `close` (names: the better of the similarity as written and of the
               OCR-folded forms); or one slip (`one_slip`): equal once OCR-folded (`fold_level`:
               "LARNAR" / "LAMAR", "l47" / "147"), or one letter added, dropped, changed or two
               neighbours swapped (`edit_level`: "JONH" / "JOHN"); or a nickname pair ("PEGGY" /
               "MARGARET"); or the middle initial agrees with a middle name; or a street equal
               but for its street type ("S WABASH" / "S WABASH AVE"; real address lists mix
               types up often enough that capping them lost recall on
               ../shared/reference/address-matching/ for no precision), or whose name starts
               the other written without spaces ("BROOKER ST" / "BROOKE RSTREET")
    INITIAL    a given name written as an initial (either side) whose letter is the other's
               first: a level of its own, apart from a likeness, whose m and u are the chances
               that two given names' first letters agree for one person and for two
               (`Comparison.conditional`; matchers/weights.py)
    LOOSE      similarity >= `loose`; or a house number one edit off ("12" / "13": a slip,
               or the house next door); two of its digits swapped ("57" / "75") is CLOSE, a
               level of its own apart from the house next door
    DIFFERENT  anything else

Why the slip is its own level: a typed or read name differs from the register's by one slip far
more often than two different people's names do, so its weight (estimated from data in
matchers/weights.py) is much higher than a mere likeness's. Whether a given-name slip may decide a
match is the matcher's call (a slip that spells another real given name, "MARY" / "MARK", may be
another person: matchers/matcher.py sends it to review).

`level` applies a comparison to one pair (for evidence and tests). `COMPARISONS` is the set the
matcher uses; the Fellegi-Sunter weights (matchers/weights.py) are per (field, level).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd
from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA, JaroWinkler, Levenshtein

from pipeline.records import ComparisonLevel

from .nicknames import KNOWN_GIVEN_NAMES, NICKNAMES
from .normalize import STREET_SUFFIXES

__all__ = [
    "FIELD_COLUMNS",
    "COMPARISONS",
    "LEVEL_CODES",
    "LEVELS",
    "Comparison",
    "Fold",
    "Similarity",
    "compare_arrays",
    "digit_fold",
    "level",
    "ocr_fold",
    "one_slip",
    "street_core",
]

# Level codes in order of agreement; the index is the code used in arrays.
LEVELS: tuple[ComparisonLevel, ...] = (
    ComparisonLevel.EXACT,
    ComparisonLevel.CLOSE,
    ComparisonLevel.INITIAL,
    ComparisonLevel.LOOSE,
    ComparisonLevel.DIFFERENT,
    ComparisonLevel.MISSING,
)
LEVEL_CODES = {lv: i for i, lv in enumerate(LEVELS)}
EXACT, CLOSE, INITIAL, LOOSE, DIFFERENT, MISSING = range(6)

# "NICK|FORMAL" and "FORMAL|NICK" for every nickname pair: one vectorized lookup per batch.
_NICKNAME_PAIRS = frozenset(
    pair
    for nick, formals in NICKNAMES.items()
    for f in formals
    for pair in (f"{nick}|{f}", f"{f}|{nick}")
)


class Similarity(StrEnum):
    JARO_WINKLER = "jaro_winkler"  # names: forgiving of a slip late in the word
    TOKEN_SORT = "token_sort"  # streets: word order free ("MAIN ST N" / "N MAIN ST")
    EDITS = "edits"  # short codes (house numbers): 100 * (1 - edits / longer length)
    EQUAL = "equal"  # only EXACT or DIFFERENT (ZIP, unit, suffix)


class Fold(StrEnum):
    """Which OCR fold a comparison's slip rule uses."""

    LETTERS = "letters"  # names and streets: digits read for letters ("0SMOND", "MI1L")
    DIGITS = "digits"  # house numbers: letters read for digits ("l47", "7O")


@dataclass(frozen=True, slots=True)
class Comparison:
    """One field's comparison. Floors are on the 0..100 similarity; None: no such rule."""

    field: str
    similarity: Similarity
    close: float | None = None
    loose: float | None = None
    nicknames: bool = False  # nickname pairs are CLOSE (given names)
    initial_level: ComparisonLevel | None = None  # one side a single letter, the other's first
    fold_level: ComparisonLevel | None = None  # equal once OCR-folded (`fold`)
    fold: Fold = Fold.LETTERS  # which fold
    edit_level: ComparisonLevel | None = None  # one edit apart (OSA: a swap is one edit) ...
    edit_min_length: int = 1  # ... when both values are at least this long, ...
    added_min_length: int | None = None  # ... or a letter added to one this long ("KY"/"KYO")
    street_core: bool = False  # equal once a trailing street type is dropped: CLOSE
    transposed_level: ComparisonLevel | None = None  # two neighbouring digits swapped ("57"/"75")
    ocr_fold: bool = False  # also compare the OCR-folded forms' similarity: the better counts

    @property
    def conditional(self) -> bool:
        """Whether this comparison gives the INITIAL level. Its m and u are conditional: the
        chances that the first letters agree (for one person, for two), among pairs where
        either side could be an initial; they stay out of the other levels' shares, as MISSING
        does (weights.py), so a likeness is weighed by how often likenesses occur, not by how
        often signers write initials."""
        return self.initial_level is ComparisonLevel.INITIAL

    def gives(self, code: int) -> bool:
        """Whether this comparison can give the level of this code (INITIAL only when
        `conditional`; MISSING always)."""
        return code != INITIAL or self.conditional


COMPARISONS: tuple[Comparison, ...] = (
    Comparison(
        "first_name",
        Similarity.JARO_WINKLER,
        close=92.0,
        loose=80.0,
        nicknames=True,
        initial_level=ComparisonLevel.INITIAL,
        fold_level=ComparisonLevel.CLOSE,
        edit_level=ComparisonLevel.CLOSE,
        edit_min_length=3,
        # a two-letter given name with a letter added ("KY" / "KYO") is one slip; one letter
        # changed ("AL" / "AN") is another name
        added_min_length=2,
        ocr_fold=True,
    ),
    Comparison(
        "middle_name", Similarity.JARO_WINKLER, close=92.0, initial_level=ComparisonLevel.CLOSE
    ),
    # A surname only a likeness apart ("ASHBURN" / "ASHBURNIN") is LOOSE: many people share a
    # surname's start. One slip is CLOSE.
    Comparison(
        "last_name",
        Similarity.JARO_WINKLER,
        loose=88.0,
        fold_level=ComparisonLevel.CLOSE,
        edit_level=ComparisonLevel.CLOSE,
        edit_min_length=3,
        ocr_fold=True,
    ),
    Comparison("suffix", Similarity.EQUAL),
    Comparison(
        "house_number",
        Similarity.EDITS,
        fold_level=ComparisonLevel.CLOSE,  # a misread digit ("l47")
        fold=Fold.DIGITS,
        edit_level=ComparisonLevel.LOOSE,  # a slip, or the house next door
        # two digits swapped ("57" / "75"): a writer's slip, not the house next door (whose
        # number differs in its last digit by one, LOOSE)
        transposed_level=ComparisonLevel.CLOSE,
    ),
    Comparison(
        "street",
        Similarity.TOKEN_SORT,
        close=90.0,
        loose=75.0,
        fold_level=ComparisonLevel.CLOSE,
        edit_level=ComparisonLevel.CLOSE,
        edit_min_length=4,
        street_core=True,
    ),
    Comparison("unit", Similarity.EQUAL),
    # a postcode one slip off ("4069" / "4060", "3149" / "3194": a digit mistyped or two
    # swapped) is CLOSE: a level of its own, whose weight the register (u: how often two
    # voters' postcodes are that near) and the lines (m) set
    Comparison("zip5", Similarity.EQUAL, edit_level=ComparisonLevel.CLOSE, edit_min_length=4),
)

# The column of the store's normalized fields (matchers/store.py) each comparison reads.
FIELD_COLUMNS: dict[str, str] = {
    "first_name": "n_first",
    "middle_name": "n_middle",
    "last_name": "n_last",
    "suffix": "n_suffix",
    "house_number": "n_house",
    "street": "n_street",
    "unit": "n_unit",
    "zip5": "n_zip",
}


# Letter shapes an OCR engine (or a hurried hand) confuses, folded to one spelling. Applied to
# both sides; a pair equal once folded is one slip.
_OCR_FOLDS: tuple[tuple[str, str], ...] = (
    ("RN", "M"),
    ("CL", "D"),
    ("VV", "W"),
    ("0", "O"),
    ("1", "L"),
    ("5", "S"),
    ("8", "B"),
)
# Letters read for digits in a house number. Only letters: folding digit for digit too (the
# handwritten "1" / "7", "3" / "8") chains the classes ("3l6" would equal "376", the house down
# the road, and outscore "326" on the signer's own street: a confident wrong match on the
# 13M-row benchmark). A digit read for another is one edit: LOOSE.
_DIGIT_FOLDS = str.maketrans({"O": "0", "D": "0", "L": "1", "I": "1", "Z": "2", "S": "5", "B": "8"})


def ocr_fold(s: str) -> str:
    """'LARNAR' -> 'LAMAR', 'HOLWARCLER' -> 'HOLWARDER', '0SMOREOW' -> 'OSMOREOW'."""
    for a, b in _OCR_FOLDS:
        s = s.replace(a, b)
    return s


def digit_fold(s: str) -> str:
    """A house number's letter look-alikes folded: 'L47' -> '147', '7O' -> '70', '3B' -> '38'."""
    return s.translate(_DIGIT_FOLDS)


def one_slip(a: str, b: str, fold: Fold = Fold.LETTERS, min_length: int = 1) -> bool:
    """True when `a` and `b` differ but by one slip: equal once OCR-folded, or (both at least
    `min_length` long) one letter added, dropped or changed, or two neighbours swapped."""
    if a == b or not a or not b:
        return False
    folder = digit_fold if fold is Fold.DIGITS else ocr_fold
    if folder(a) == folder(b):
        return True
    return min(len(a), len(b)) >= min_length and OSA.distance(a, b) <= 1


def _similarity(kind: Similarity, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    if kind is Similarity.JARO_WINKLER:
        return process.cpdist(
            a, b, scorer=JaroWinkler.normalized_similarity, dtype=np.float32, workers=1
        ) * np.float32(100.0)
    if kind is Similarity.TOKEN_SORT:
        return process.cpdist(a, b, scorer=fuzz.token_sort_ratio, dtype=np.float32, workers=1)
    if kind is Similarity.EDITS:
        return process.cpdist(
            a, b, scorer=Levenshtein.normalized_similarity, dtype=np.float32, workers=1
        ) * np.float32(100.0)
    return np.where(np.asarray(a, dtype=object) == np.asarray(b, dtype=object), 100.0, 0.0).astype(
        np.float32
    )


# USPS street types as the store writes them (Publication 28's standard abbreviations:
# normalize.standard_suffix), for `street_core` ("S WABASH AVE" / "S WABASH").
STREET_TYPES = frozenset(STREET_SUFFIXES.values())


def street_core(street: str) -> str:
    """The street without a trailing street type: "N MAIN ST" -> "N MAIN"."""
    words = street.split()
    if len(words) > 1 and words[-1] in STREET_TYPES:
        words = words[:-1]
    return " ".join(words)


def _transposed(a: str, b: str) -> bool:
    """Two neighbouring digits swapped: "57" / "75", "1243" / "1423"."""
    if len(a) != len(b) or a == b or not a.isdigit() or not b.isdigit():
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and a[diff[0]] == b[diff[1]]
        and (a[diff[1]] == b[diff[0]])
    )


STREET_CORE_MIN = 4  # letters of a street's name for `_run_together`


def _run_together(core: str, squashed: str) -> bool:
    """A street's name (its type dropped) that starts the other street written with its spaces
    dropped: "BROOKER" / "BROOKE RSTREET", "CLAMP" / "CLAMPP LACE", "DIXON" / "DIXONDDRIVE" (a
    typed or read street whose words ran together or apart, its type misspelt)."""
    plain = core.replace(" ", "")
    return len(plain) >= STREET_CORE_MIN and squashed != plain and squashed.startswith(plain)


def _lift(codes: np.ndarray, where: np.ndarray, target: int) -> None:
    """codes[where] = the better of itself and `target`."""
    np.minimum(codes, np.where(where, target, DIFFERENT).astype(np.int8), out=codes)


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The two sides of a batch of pairs factorized once: `ia[i]`, `ib[i]` index `values`, the
    distinct strings of both sides, so that a rule on one value (its length, its OCR fold, its
    street type dropped) runs once per distinct value, and two sides are equal exactly when
    their indices are."""

    ia: np.ndarray
    ib: np.ndarray
    values: list[str]

    @classmethod
    def of(cls, a: Sequence[str], b: Sequence[str]) -> _Pairs:
        ids, uniques = pd.factorize(
            np.concatenate([np.asarray(a, dtype=object), np.asarray(b, dtype=object)]),
            use_na_sentinel=False,
        )
        return cls(ids[: len(a)], ids[len(a) :], list(uniques))

    def per_value(self, fn: Callable[[str], object], dtype: type) -> tuple[np.ndarray, np.ndarray]:
        """fn of each side's value, as two arrays."""
        got: np.ndarray = np.fromiter(
            (fn(v) for v in self.values), dtype=dtype, count=len(self.values)
        )
        return got[self.ia], got[self.ib]

    def keys(self, key: Callable[[str], str]) -> tuple[np.ndarray, np.ndarray]:
        """Integer codes (ka, kb) with ka[i] == kb[i] exactly when key(a[i]) == key(b[i])."""
        keyed, _ = pd.factorize(np.asarray([key(v) for v in self.values], dtype=object))
        return keyed[self.ia], keyed[self.ib]


def compare_arrays(
    cmp: Comparison, a: Sequence[str], b: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """(level codes int8, similarity float32 0..100) for each pair (a[i], b[i])."""
    n = len(a)
    if n != len(b):
        raise ValueError("compare_arrays needs two arrays of one length")
    if n == 0:
        return np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.float32)
    pairs = _Pairs.of(a, b)
    equal = pairs.ia == pairs.ib
    if cmp.similarity is Similarity.EQUAL:
        sim = np.where(equal, 100.0, 0.0).astype(np.float32)
    else:
        sim = _similarity(cmp.similarity, a, b)
    if cmp.ocr_fold:
        # the folded forms' similarity, where a fold changes either side (elsewhere it is sim)
        folded = [ocr_fold(v) for v in pairs.values]
        changed = np.fromiter(
            (f != v for f, v in zip(folded, pairs.values, strict=True)), dtype=bool
        )
        at = np.flatnonzero(changed[pairs.ia] | changed[pairs.ib])
        if len(at):
            fa = [folded[k] for k in pairs.ia[at].tolist()]
            fb = [folded[k] for k in pairs.ib[at].tolist()]
            sim[at] = np.maximum(sim[at], _similarity(cmp.similarity, fa, fb))
    codes = np.full(n, DIFFERENT, dtype=np.int8)
    if cmp.loose is not None:
        codes[sim >= cmp.loose] = LOOSE
    if cmp.close is not None:
        codes[sim >= cmp.close] = CLOSE
    if cmp.fold_level is not None:
        ka, kb = pairs.keys(digit_fold if cmp.fold is Fold.DIGITS else ocr_fold)
        _lift(codes, ka == kb, LEVEL_CODES[cmp.fold_level])
    la, lb = pairs.per_value(len, np.int64)
    if cmp.edit_level is not None:
        # one edit apart needs lengths at most one apart, both long enough; a pair already at
        # the level or better is not lifted
        target = LEVEL_CODES[cmp.edit_level]
        shorter = np.minimum(la, lb)
        long_enough = shorter >= cmp.edit_min_length
        if cmp.added_min_length is not None:
            long_enough |= (la != lb) & (shorter >= cmp.added_min_length)
        at = np.flatnonzero(long_enough & (np.abs(la - lb) <= 1) & (codes > target))
        if len(at):
            ea = [pairs.values[k] for k in pairs.ia[at].tolist()]
            eb = [pairs.values[k] for k in pairs.ib[at].tolist()]
            edits = process.cpdist(ea, eb, scorer=OSA.distance, dtype=np.int32, workers=1)
            codes[at[edits <= 1]] = target
    values = pairs.values
    if cmp.nicknames and (codes > CLOSE).any():
        # only pairs with a known nickname on the line's side can be a nickname pair
        known, _ = pairs.per_value(lambda v: v in KNOWN_GIVEN_NAMES, bool)
        for i in np.flatnonzero((codes > CLOSE) & known).tolist():
            if f"{values[pairs.ia[i]]}|{values[pairs.ib[i]]}" in _NICKNAME_PAIRS:
                codes[i] = CLOSE
    if cmp.street_core and (codes > CLOSE).any():
        cores = [street_core(v) for v in values]
        squashed = [v.replace(" ", "") for v in values]
        ka, kb = pairs.keys(lambda v: v.replace(" ", "")[:1])
        # neither rule below can hold unless the two start alike
        for i in np.flatnonzero((codes > CLOSE) & (ka == kb)).tolist():
            x, y = int(pairs.ia[i]), int(pairs.ib[i])
            if (
                cores[x]
                and cores[x] == cores[y]
                or _run_together(cores[x], squashed[y])
                or _run_together(cores[y], squashed[x])
            ):
                codes[i] = CLOSE
    if cmp.transposed_level is not None and (codes > LEVEL_CODES[cmp.transposed_level]).any():
        target = LEVEL_CODES[cmp.transposed_level]
        ka, kb = pairs.keys(lambda v: "".join(sorted(v)))
        # two digits swapped leave the same digits: only such pairs are tried
        for i in np.flatnonzero((codes > target) & (ka == kb)).tolist():
            if _transposed(values[pairs.ia[i]], values[pairs.ib[i]]):
                codes[i] = target
    if cmp.initial_level is not None:
        target = LEVEL_CODES[cmp.initial_level]
        for i in np.flatnonzero(((la == 1) | (lb == 1)) & (codes > target)).tolist():
            x, y = values[pairs.ia[i]], values[pairs.ib[i]]
            if x and y and x[0] == y[0]:
                codes[i] = target
    codes[equal] = EXACT
    empty = (la == 0) | (lb == 0)
    codes[empty] = MISSING
    sim[empty] = 0.0
    return codes, sim


def level(cmp: Comparison, a: str, b: str) -> tuple[ComparisonLevel, float]:
    """The level and similarity of one pair."""
    codes, sim = compare_arrays(cmp, [a], [b])
    return LEVELS[int(codes[0])], float(sim[0])
