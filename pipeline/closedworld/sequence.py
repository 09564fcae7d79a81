"""A sheet's dates read together: a petition sheet is signed from the top line down over the
days it circulates, so its dates mostly run forward. Each unsure date's probabilities are
the marginals of a chain over the sheet's dated lines (sum-product): each line's own evidence
(its values' costs, or a sure date read plainly) times a pairwise weight of 1 for a date on or
after the line above's and BACKWARD for one before it (a date out of order is possible, and is
read when its own evidence says so). Lines with no date leave the chain as it is; "none of
these" keeps the probability the line's own evidence gives it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .score import Params, Posterior, posterior, ranked

__all__ = ["BACKWARD", "chain_posteriors", "joints_with_last"]

# The pairwise weight of a date before the one on the line above it.
BACKWARD = 0.05


def _own(cost: np.ndarray, weights: np.ndarray, params: Params) -> tuple[np.ndarray, float]:
    """One line's distribution over the days from its own evidence, and its "none" share."""
    post = posterior(cost, weights, params)
    logits = -cost / params.temperature + np.log(np.maximum(weights, 1e-300))
    dist = np.exp(logits - logits.max())
    return dist / dist.sum(), post.none


def _nodes(
    lines: Sequence[tuple[np.ndarray | None, int | None]], weights: np.ndarray, params: Params
) -> tuple[list[np.ndarray], list[float], list[int]]:
    """The chain's nodes: each dated line's own distribution, its "none" share, its index."""
    n = len(weights)
    own: list[np.ndarray] = []
    none: list[float] = []
    where: list[int] = []
    for k, (cost, sure) in enumerate(lines):
        if cost is not None:
            dist, p_none = _own(cost, weights, params)
        elif sure is not None:
            dist, p_none = np.eye(n)[sure], 0.0
        else:
            continue
        own.append(dist)
        none.append(p_none)
        where.append(k)
    return own, none, where


def _psi(n: int) -> np.ndarray:
    """psi[u, v]: the weight of day v on a line below one dated day u."""
    return np.triu(np.ones((n, n))) + BACKWARD * np.tril(np.ones((n, n)), -1)


def _forward(own: Sequence[np.ndarray], psi: np.ndarray) -> list[np.ndarray]:
    fwd = [own[0]]
    for i in range(1, len(own)):
        f = own[i] * (fwd[-1] @ psi)
        fwd.append(f / f.sum() if f.sum() else own[i])
    return fwd


def chain_posteriors(
    lines: Sequence[tuple[np.ndarray | None, int | None]],
    weights: np.ndarray,
    params: Params,
) -> list[Posterior | None]:
    """For each line of a sheet in order: (the costs of every day, or None) and (the index of
    a day read surely, or None). Returns the Posterior of each line given costs (None for the
    others), over the same day indexes."""
    n = len(weights)
    psi = _psi(n)
    own, none, where = _nodes(lines, weights, params)
    out: list[Posterior | None] = [None] * len(lines)
    if not own:
        return out
    m = len(own)
    fwd = _forward(own, psi)
    bwd = [np.ones(n)] * m
    for i in range(m - 2, -1, -1):
        b = psi @ (own[i + 1] * bwd[i + 1])
        bwd[i] = b / b.sum() if b.sum() else np.ones(n)
    for i, k in enumerate(where):
        if lines[k][0] is None:
            continue
        marg = fwd[i] * bwd[i]
        marg = marg / marg.sum() if marg.sum() else own[i]
        out[k] = Posterior(ranked((1.0 - none[i]) * marg), none[i])
    return out


def joints_with_last(
    lines: Sequence[tuple[np.ndarray | None, int | None]],
    weights: np.ndarray,
    params: Params,
) -> list[np.ndarray | None]:
    """For each line given costs, before the last line given costs: the joint probability of
    its day and the last's (a matrix [its day, the last's day]; their "none" shares taken out,
    so it sums to what they leave), read in the same chain as `chain_posteriors` (whose
    marginals its rows' and columns' sums are). A sheet's witness statement closes its chain:
    its joint with each line tells how likely the line is dated after it, which the two
    dates' marginals, taken as independent, overstate. None for the other lines."""
    n = len(weights)
    psi = _psi(n)
    own, none, where = _nodes(lines, weights, params)
    out: list[np.ndarray | None] = [None] * len(lines)
    if len(own) < 2 or lines[where[-1]][0] is None:
        return out
    fwd = _forward(own, psi)
    # reach[i][u, v]: the weight of the evidence after node i, the last node at day v, given
    # node i at day u (scaled: only its shape matters)
    reach = psi * own[-1][None, :]
    for i in range(len(own) - 2, -1, -1):
        if lines[where[i]][0] is not None:
            joint = fwd[i][:, None] * reach
            total = joint.sum()
            if total:
                out[where[i]] = joint / total * (1.0 - none[i]) * (1.0 - none[-1])
        if i:
            reach = psi @ (own[i][:, None] * reach)
            reach = reach / reach.max() if reach.max() else reach
    return out
