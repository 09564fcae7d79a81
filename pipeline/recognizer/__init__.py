"""The project's own recognizer for short handwritten fields (dates): a small convolutional
CTC model run in numpy (`model`), trained on synthetic writing (`samples`, `train`: torch,
training only). What it sees of a cell (`Field.frames`) scores every candidate string of the
field's closed world exactly (`ctc_costs`, `relative_costs`)."""

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


def relative_costs(frames: Frames, candidates: Sequence[str]) -> np.ndarray:
    """Each candidate's CTC cost (-log P, nats) above that of the best explanation known: the
    recognizer's own best-path reading or the best candidate, whichever is likelier. A
    candidate that is what the recognizer read costs about 0, one it did not read much more;
    the closed world weighs "none of these" against these."""
    logp = np.asarray(frames, np.float64)
    cost = ctc_costs(logp, candidates)
    seen = greedy(logp)
    base = float(ctc_costs(logp, [seen])[0]) if seen else np.inf
    if len(cost):
        base = min(base, float(cost.min()))
    return cost - base if np.isfinite(base) else np.zeros(len(candidates))
