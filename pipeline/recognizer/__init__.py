"""The project's own recognizer for short handwritten fields (dates): a small convolutional
CTC model run in numpy (`model`), trained on synthetic writing (`samples`, `train`: torch,
training only). What it sees of a cell (`Field.frames`) scores every candidate string of the
field's closed world exactly (`ctc_costs`, `relative_costs`)."""

import functools
import re
from collections.abc import Sequence

import numpy as np

from .model import CHARSET, Recognizer, ctc_costs, encode, greedy, load

__all__ = [
    "CHARSET",
    "Frames",
    "Recognizer",
    "ctc_costs",
    "encode",
    "frames_of",
    "greedy",
    "load",
    "relative_costs",
]

Frames = tuple[tuple[float, ...], ...]


def frames_of(gray: np.ndarray) -> Frames:
    """What the recognizer sees of a grey ink crop: per frame, each class's log-probability
    (rounded to 4 places); () when its weights file is missing or the crop is too small."""
    model = load()
    if model is None or gray.ndim != 2 or min(gray.shape) < 2:
        return ()
    return tuple(tuple(round(float(v), 4) for v in row) for row in model.frames(gray))


# A digit written twice in a row ("11", "22"): CTC reads the pair as one digit unless a
# blank frame falls between them, and a narrow hand's pair often leaves none. Drawn in the
# calibration fonts (never trained on; 300 crops of dates with such a pair, "October 11",
# "9/22/26"), the date with the pair written once was the likelier on 16.3% of them with the
# weights of 2026-12-07 (22.7% with those before): the recognizer's preference for one digit
# over the pair is no evidence. Held out (seed 1203), "October 11, 2026", dated after the
# filing, was read as October 1 at 0.86 and the line decided valid.
_DOUBLED = re.compile(r"(\d)\1")


@functools.lru_cache(maxsize=32)
def _pairs(candidates: tuple[str, ...]) -> tuple[dict[int, list[str]], dict[str, int]]:
    """The candidates holding a doubled digit, each with itself written with one such pair
    once, and every candidate's index: a case's date forms are the same for every date."""
    singles = {
        k: [c[: m.start()] + c[m.start() + 1 :] for m in _DOUBLED.finditer(c)]
        for k, c in enumerate(candidates)
    }
    return {k: v for k, v in singles.items() if v}, {c: k for k, c in enumerate(candidates)}


def _merged(logp: np.ndarray, candidates: Sequence[str], cost: np.ndarray) -> np.ndarray:
    """`cost` with each candidate holding a doubled digit costing no more than itself with one
    such pair written once (CTC's blind spot: `_DOUBLED`); the others as they are."""
    singles, index = _pairs(tuple(candidates))
    if not singles:
        return cost
    wanted = sorted({s for v in singles.values() for s in v if s not in index})
    known = dict(zip(wanted, ctc_costs(logp, wanted), strict=True)) if wanted else {}
    out = cost.copy()
    for k, single in singles.items():
        each = [cost[index[s]] if s in index else known[s] for s in single]
        out[k] = min(out[k], min(each))
    return out


def relative_costs(
    frames: Frames, candidates: Sequence[str], merges: bool = False
) -> tuple[np.ndarray, float]:
    """Each candidate's CTC cost (-log P, nats) above that of the best explanation known (the
    recognizer's own best-path reading or the best candidate, whichever is likelier), and the
    cost, above the same, of the likeliest string that is none of the candidates: the best
    path's reading when it is none of them, else the likeliest of its one-character edits
    that is none of them. A candidate the recognizer read costs about 0 and "none of these"
    as much as the recognizer doubts it; a string it read that no candidate is (a date
    outside the window) makes "none of these" cost about 0 and every candidate more. With
    `merges`, a candidate holding a doubled digit costs no more than itself with the pair
    written once (`_merged`)."""
    logp = np.asarray(frames, np.float64)
    cost = ctc_costs(logp, candidates)
    if merges:
        cost = _merged(logp, candidates, cost)
    seen = greedy(logp)
    known = {" ".join(c.casefold().split()) for c in candidates}
    if not seen:  # it read nothing: the likeliest string none is, every frame a blank
        other = np.array([-float(logp[:, -1].sum())])
    elif seen not in known:
        other = ctc_costs(logp, [seen])
    else:
        edits, each = _edit_costs(frames)
        other = each[[e not in known for e in edits]]
        other = other if len(other) else np.zeros(1)
    base = min(float(cost.min()) if len(cost) else np.inf, float(other.min()))
    if not np.isfinite(base):
        return np.zeros(len(candidates)), 0.0
    return cost - base, float(other.min()) - base


@functools.lru_cache(maxsize=16)
def _edit_costs(frames: Frames) -> tuple[list[str], np.ndarray]:
    """The best path's one-character edits (`_edits`) and their CTC costs: a date is weighed
    against the window's days and against days outside it, the same edits each time."""
    logp = np.asarray(frames, np.float64)
    edits = _edits(greedy(logp))
    return edits, ctc_costs(logp, edits)


def _edits(text: str) -> list[str]:
    """Every string one character from `text`: a character dropped, changed or added."""
    out = {text[:k] + text[k + 1 :] for k in range(len(text))}
    for k in range(len(text) + 1):
        for ch in CHARSET:
            out.add(text[:k] + ch + text[k:])
            if k < len(text):
                out.add(text[:k] + ch + text[k + 1 :])
    folded = {" ".join(c.split()) for c in out}  # as `encode` reads them
    folded.discard(text)
    return sorted(c for c in folded if c)
