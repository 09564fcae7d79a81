"""The project's own recognizer for short handwritten fields (dates): a small convolutional
CTC model run in numpy (`model`), trained on synthetic writing (`samples`, `train`: torch,
training only). What it sees of a cell (`Field.frames`) scores every candidate string of the
field's closed world exactly (`ctc_costs`, `relative_costs`)."""

import functools
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


def relative_costs(frames: Frames, candidates: Sequence[str]) -> tuple[np.ndarray, float]:
    """Each candidate's CTC cost (-log P, nats) above that of the best explanation known (the
    recognizer's own best-path reading or the best candidate, whichever is likelier), and the
    cost, above the same, of the likeliest string that is none of the candidates: the best
    path's reading when it is none of them, else the likeliest of its one-character edits
    that is none of them. A candidate the recognizer read costs about 0 and "none of these"
    as much as the recognizer doubts it; a string it read that no candidate is (a date
    outside the window) makes "none of these" cost about 0 and every candidate more."""
    logp = np.asarray(frames, np.float64)
    cost = ctc_costs(logp, candidates)
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
