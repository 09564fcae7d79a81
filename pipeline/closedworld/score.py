"""How well a candidate string explains what the recognizer saw, and the probability of each
value a field can hold.

A field's lattice (`records.Lattice`) is tesseract's best path, a character position at a
time, each position with the LSTM's alternatives and their scores. A candidate string is
aligned to it as an edit distance whose costs come from the scores: reading a position as one
of its alternatives costs log(best score / that alternative's score) (nothing for the best
one; FLOOR for a character tesseract did not consider), a position the candidate has no
character for costs DELETE times its best score (a faint, unsure mark is cheap to drop), a
character of the candidate tesseract saw nothing of costs INSERT; spaces and punctuation cost
less either way (`Params`). All candidates are aligned at once, a numpy vector each step.

The probability of a value is a softmax over the values' costs (a value written in several
forms, as a date is, adds its forms' likelihoods), beside an explicit "none of these"
hypothesis whose cost is NONE: whatever the field says may be outside the known values (a
signer not on the register, a date outside the window), and then it is read as written.
The temperature and NONE are fitted on the development fonts (`bench/handwriting.py --fit`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ..recognizer import Frames, relative_costs
from ..records import Lattice

__all__ = [
    "FRAMES_CAP",
    "Params",
    "Posterior",
    "costs",
    "doubt",
    "for_reading",
    "frames_costs",
    "mixed_costs",
    "posterior",
    "ranked",
    "value_costs",
]

_PUNCT = frozenset(".,/-'#")
# A posterior lists its five likeliest values, and any more down to this probability (at most
# RANKED_MAX): enough to tell whether a doubt changes what the law makes of a line.
RANKED_MIN = 1e-4
RANKED_MAX = 64


@dataclass(frozen=True, slots=True)
class Params:
    """The scorer's costs (nats) and its calibration."""

    floor: float = 0.02  # the score of a character tesseract did not list at a position
    delete: float = 2.5  # a position read that the candidate has no character for (x its score)
    insert: float = 2.5  # a candidate's character tesseract saw nothing of
    # a candidate's digit tesseract saw nothing of, the digit before it the same ("11" read
    # as "1": the LSTM's CTC merges a pair with no blank between; None: `insert`)
    repeat: float | None = None
    space: float = 0.4  # a space or punctuation mark, either way
    temperature: float = 1.0  # costs are divided by it before the softmax
    none: float = 6.0  # the cost of "none of these" (before the temperature)
    # and this much more per unit of the reads' doubt (`for_reading`)
    none_per_char: float = 0.0
    none_prior: float = 0.05  # the prior share of "none of these"
    combine: str = "mixture"  # several reads: "mixture" of their likelihoods, or "mean" cost
    # the weight of the project's recognizer's costs (`recognizer.relative_costs`), added to
    # the lattices' for a field it read (`Field.frames`); 0: not used
    frames_weight: float = 0.0
    # a field the recognizer read too: each value's cost against the lattices counted up to
    # this (nats), so that lattices that explain no value (tesseract read the ink as
    # "Joo gon") leave the values to the recognizer rather than vote for "none of these"
    lattice_cap: float = math.inf
    # the weight of the lattices' costs (after the cap) beside the recognizer's: below 1 where
    # tesseract's reads of handwriting explain the values worse than the recognizer's do
    lattice_weight: float = 1.0


@dataclass(frozen=True, slots=True)
class Posterior:
    """The values in order of probability, and the probability of "none of these"."""

    ranked: tuple[tuple[int, float], ...]  # (value index, probability), best first
    none: float

    @property
    def best(self) -> tuple[int, float] | None:
        return self.ranked[0] if self.ranked else None


def doubt(lattices: Sequence[Lattice]) -> float:
    """How much of a field's reads the recognizer hesitated over: per read, the sum over the
    positions it gave alternatives at of what its best character leaves of 1 (a position
    read with no alternative adds nothing, however low its score); the mean over the reads."""
    per_read = [
        sum(1.0 - max(s for _, s in pos) for pos in lat if len(pos) > 1 and pos[0][0] != " ")
        for lat in lattices
    ]
    return sum(per_read) / len(per_read) if per_read else 0.0


def for_reading(params: Params, lattices: Sequence[Lattice]) -> Params:
    """The calibration for one field: its "none of these" cost grown by `none_per_char` times
    the reads' `doubt`. A long reading the recognizer hesitated over explains no value
    cheaply even when it is one of them (each doubtful character costs), while an unknown
    value read without hesitation costs little: so "none of these" is dearer the more of the
    reading was in doubt, and a name read clearly one letter from a neighbour's stays as
    written."""
    if not params.none_per_char:
        return params
    return replace(params, none=params.none + params.none_per_char * doubt(lattices))


def _fold(ch: str) -> str:
    return ch.casefold()


@dataclass(frozen=True, slots=True)
class _Encoded:
    """Candidates as codes: each character's slot in their alphabet (-1 past a candidate's
    end), as the alignment reads them."""

    alphabet: dict[str, int]
    codes: np.ndarray  # (candidates, longest), int
    lengths: np.ndarray
    cheap: np.ndarray  # per slot (and the padding's, last): a space or punctuation mark
    repeats: np.ndarray  # (candidates, longest): a digit the same as the character before it


@lru_cache(maxsize=32)
def _encoded(candidates: tuple[str, ...]) -> _Encoded:
    """A field's candidates are the same for every read of it, and a date's for every date
    of the case: encoded once."""
    folded = [c.casefold() for c in candidates]
    alphabet: dict[str, int] = {}
    for c in folded:
        for ch in c:
            alphabet.setdefault(ch, len(alphabet))
    width = max(len(c) for c in folded)
    codes = np.full((len(folded), max(width, 1)), -1, np.int64)
    for k, c in enumerate(folded):
        codes[k, : len(c)] = [alphabet[ch] for ch in c]
    lengths = np.array([len(c) for c in folded])
    cheap = np.array([ch == " " or ch in _PUNCT for ch in alphabet] + [False], bool)
    digit = np.array([ch.isdigit() for ch in alphabet] + [False], bool)
    repeats = np.zeros(codes.shape, bool)
    repeats[:, 1:] = (codes[:, 1:] == codes[:, :-1]) & digit[codes[:, 1:]] & (codes[:, 1:] >= 0)
    return _Encoded(alphabet, codes, lengths, cheap, repeats)


def costs(lattice: Lattice, candidates: Sequence[str], params: Params = Params()) -> np.ndarray:
    """The alignment cost of every candidate against the lattice (case is ignored)."""
    n_cand = len(candidates)
    if not n_cand:
        return np.zeros(0)
    enc = _encoded(tuple(candidates))
    alphabet, codes, lengths = enc.alphabet, enc.codes, enc.lengths
    ins_cost = np.where(enc.cheap[codes], params.space, params.insert)  # (n_cand, width)
    if params.repeat is not None:
        ins_cost[enc.repeats] = params.repeat
    ins_cost[codes < 0] = 0.0
    floor_cost = -math.log(params.floor)
    # D[:, j]: the cost of the candidate's first j characters against the positions so far.
    # Inserting characters is a running sum along the candidate (`inserted`), so a position's
    # step, min(its delete or substitute, the column before's plus an insert), is one running
    # minimum of the first two less that sum, plus the sum: no loop over the characters.
    inserted = np.concatenate([np.zeros((n_cand, 1)), np.cumsum(ins_cost, axis=1)], axis=1)
    dist = inserted.copy()
    for position in lattice:
        scores = np.full(len(alphabet) + 1, 0.0)  # the last slot: padding
        for ch, score in position:
            slot = alphabet.get(_fold(ch))
            if slot is not None:
                scores[slot] = max(scores[slot], score)
        top = max((s for _, s in position), default=0.0)
        top = max(top, params.floor)
        sub = np.log(top) - np.log(np.maximum(scores, params.floor))
        sub = np.clip(sub, 0.0, floor_cost)[codes]  # (n_cand, width)
        best_ch = position[0][0] if position else " "
        drop = params.space if (best_ch == " " or best_ch in _PUNCT) else params.delete * top
        step = dist + drop  # this position read as nothing of the candidate
        step[:, 1:] = np.minimum(step[:, 1:], dist[:, :-1] + sub)  # read as its character
        dist = np.minimum.accumulate(step - inserted, axis=1) + inserted
    return dist[np.arange(n_cand), lengths]


def mixed_costs(
    lattices: Sequence[Lattice], candidates: Sequence[str], params: Params = Params()
) -> np.ndarray:
    """The cost of every candidate against several reads of one field, each read equally
    likely to be the one that saw it right: -log of the mean of their likelihoods."""
    each = np.stack([costs(lat, candidates, params) for lat in lattices])
    if params.combine == "mean":
        return each.mean(axis=0)
    low = each.min(axis=0)
    return low - np.log(np.exp(-(each - low)).mean(axis=0))


def value_costs(
    lattices: Sequence[Lattice],
    forms: Sequence[str],
    owner: Sequence[int],
    params: Params,
    form_costs: Sequence[float] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each value's cost: that of the form of it that explains the reads best (a value is
    written one way on a line, not all of them at once), plus that form's own cost (a less
    usual way of writing it). Returns the values (sorted), their costs and the index of each
    one's best form."""
    if lattices:
        capped = np.minimum(mixed_costs(lattices, forms, params), params.lattice_cap)
        cost = params.lattice_weight * capped
    else:  # reads that saw nothing weigh no value against "none of these" (`Params.none`)
        cost = np.full(len(forms), params.none)
    if form_costs is not None:
        cost = cost + np.asarray(form_costs)
    owner_arr = np.asarray(owner)
    order = np.lexsort((cost, owner_arr))  # by value, then cost: each value's best form first
    first = np.ones(len(order), bool)
    first[1:] = owner_arr[order][1:] != owner_arr[order][:-1]
    picked = order[first]
    return owner_arr[picked], cost[picked], picked


def posterior(
    cost: np.ndarray, prior: np.ndarray | None = None, params: Params = Params()
) -> Posterior:
    """The probability of each value from its cost (`value_costs`) and prior weight (uniform
    by default), beside "none of these", which has its own prior share and cost."""
    if not len(cost):
        return Posterior((), 1.0)
    weight = np.ones(len(cost)) if prior is None else np.asarray(prior, float)
    weight = weight / weight.sum() * (1.0 - params.none_prior)
    logits = -cost / params.temperature + np.log(np.maximum(weight, 1e-300))
    none_logit = -params.none / params.temperature + math.log(params.none_prior)
    top = max(float(logits.max()), none_logit)
    probs = np.exp(logits - top)
    none_p = math.exp(none_logit - top)
    total = probs.sum() + none_p
    return Posterior(ranked(probs / total), float(none_p / total))


def ranked(probs: np.ndarray) -> tuple[tuple[int, float], ...]:
    """(value index, probability), likeliest first: the first five, then down to RANKED_MIN."""
    order = np.argsort(-probs)[:RANKED_MAX]
    return tuple(
        (int(k), float(probs[k])) for i, k in enumerate(order) if i < 5 or probs[k] >= RANKED_MIN
    )


# A candidate's recognizer cost (nats above the best explanation) is counted up to this: a
# string the recognizer did not see at all costs as much as one it barely saw.
FRAMES_CAP = 60.0


def frames_costs(frames: Frames, candidates: Sequence[str], merges: bool = False) -> np.ndarray:
    """Each candidate's cost under the project's recognizer (`Field.frames`), less that of the
    likeliest string none of the candidates is (`recognizer.relative_costs`), both counted up
    to FRAMES_CAP: in the posterior the same as "none of these" costing, beside its own, what
    the recognizer makes of such a string. `merges`: a candidate with a doubled digit costs
    no more than with the pair written once (`recognizer.relative_costs`)."""
    rel, outside = relative_costs(frames, candidates, merges)
    return np.minimum(rel, FRAMES_CAP) - min(outside, FRAMES_CAP)
