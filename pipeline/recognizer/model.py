"""A small recognizer of our own for short handwritten fields (dates; its training crops hold
short numbers too, which it is not yet used for): a convolutional CTC model run in plain
numpy, its weights in the repository (`weights.npz`, trained by `pipeline.recognizer.train`
on synthetic writing in the development fonts and print fonts only).

The model reads a cell's grey ink crop (the reader's, `scan.cells`) scaled to HEIGHT pixels
and gives, per column of the image (a frame: 4 pixels wide), the log-probability of each
character of CHARSET and of the CTC blank. `ctc_costs` scores candidate strings against those
frames exactly: -log P(string | image) by the CTC forward algorithm, every candidate at once
(a numpy vector per frame). Case is folded: the model reads lowercase.

Architecture (mirrored by `train.Net`): four 3x3 convolutions (batch norm folded into them)
with ReLU, pooling the height to 2 and the width by 4, the two rows' channels joined, two
1-D convolutions along the width, and a linear layer to the classes.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

__all__ = [
    "CHARSET",
    "HEIGHT",
    "WEIGHTS",
    "Recognizer",
    "ctc_costs",
    "encode",
    "greedy",
    "load",
    "prepare",
]

# Every character a date or a number is written with, lowercase (month names' letters).
CHARSET = "0123456789/-., abcdefghijlmnoprstuvy"
BLANK = len(CHARSET)  # the CTC blank is the last class
HEIGHT = 32
MIN_WIDTH, MAX_WIDTH = 32, 480
WEIGHTS = Path(__file__).resolve().parent / "weights.npz"
# The convolutions, in order, with the max pooling (height, width) after each; then the
# convolutions along the width.
CONVS = (("c1", (2, 2)), ("c2", (2, 2)), ("c3", (2, 1)), ("c4", (2, 1)))
TEMPORAL = ("t1", "t2")
_INDEX = {ch: k for k, ch in enumerate(CHARSET)}


def encode(text: str) -> list[int] | None:
    """The class indexes of a string (case folded, runs of spaces as one); None when it has a
    character the model does not know."""
    codes = _codes(text)
    return None if codes is None else list(codes)


@functools.lru_cache(maxsize=1 << 16)
def _codes(text: str) -> tuple[int, ...] | None:
    """`encode`, kept: a case's dates are scored against the same few thousand strings."""
    folded = " ".join(text.casefold().split())
    out = tuple(_INDEX.get(ch, -1) for ch in folded)
    return None if -1 in out else out


def prepare(gray: np.ndarray) -> np.ndarray:
    """A grey crop (ink dark on white, uint8) as the model's input: HEIGHT rows, its width
    scaled alike (within MIN_WIDTH..MAX_WIDTH, padded with paper), ink 1.0 and paper 0.0."""
    hgt, wid = gray.shape[:2]
    width = int(round(wid * HEIGHT / max(1, hgt)))
    width = min(MAX_WIDTH, max(4, width))
    img = cv2.resize(gray, (width, HEIGHT), interpolation=cv2.INTER_AREA)
    x = (255.0 - img.astype(np.float32)) / 255.0
    lo, hi = float(x.min()), float(x.max())
    if hi - lo > 0.05:  # stretch: faint ink as dark as any other
        x = (x - lo) / (hi - lo)
    if width < MIN_WIDTH:
        x = np.pad(x, ((0, 0), (0, MIN_WIDTH - width)))
    pad = (-x.shape[1]) % 4
    return np.pad(x, ((0, 0), (0, pad))) if pad else x


def _conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 convolution, padding 1: x (C, H, W), w (O, C, 3, 3) -> (O, H, W)."""
    c, h, wid = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1)))
    cols = np.empty((c, 3, 3, h, wid), x.dtype)
    for i in range(3):
        for j in range(3):
            cols[:, i, j] = p[:, i : i + h, j : j + wid]
    out = w.reshape(w.shape[0], -1) @ cols.reshape(c * 9, h * wid)
    return (out + b[:, None]).reshape(-1, h, wid)


def _conv1d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Convolution along time, kernel 3, padding 1: x (C, T), w (O, C, 3) -> (O, T)."""
    c, t = x.shape
    p = np.pad(x, ((0, 0), (1, 1)))
    cols = np.stack([p[:, k : k + t] for k in range(3)], axis=1)  # (C, 3, T)
    return w.reshape(w.shape[0], -1) @ cols.reshape(c * 3, t) + b[:, None]


def _pool(x: np.ndarray, ph: int, pw: int) -> np.ndarray:
    c, h, w = x.shape
    x = x[:, : h - h % ph, : w - w % pw]
    return x.reshape(c, h // ph, ph, w // pw, pw).max(axis=(2, 4))


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


@dataclass(frozen=True, slots=True)
class Recognizer:
    """The model's weights (float32 arrays by layer name: "c1.w", "c1.b", ...)."""

    weights: dict[str, np.ndarray]

    def frames(self, gray: np.ndarray) -> np.ndarray:
        """Per frame, the log-probability of each class (T, len(CHARSET) + 1). Its products
        run on one BLAS thread: they are small, and OpenBLAS's threads on a busy machine make
        them 10x slower (measured, load 10 on 2 cores). The limit is the process's: one
        thread at a time holds it (`_ONE_BLAS_THREAD`), so that no thread's leaving it gives
        another's products back their threads midway (their sums then round otherwise, and a
        flow's threads read what the plain pipeline did not)."""
        with _ONE_BLAS_THREAD, _blas().limit(limits=1, user_api="blas"):
            return self._frames(gray)

    def _frames(self, gray: np.ndarray) -> np.ndarray:
        w = self.weights
        x = prepare(gray)[None].astype(np.float32)
        for name, (ph, pw) in CONVS:
            x = _pool(np.maximum(_conv2d(x, w[name + ".w"], w[name + ".b"]), 0.0), ph, pw)
        x = x.reshape(-1, x.shape[2])  # (C x H, T)
        for name in TEMPORAL:
            x = np.maximum(_conv1d(x, w[name + ".w"], w[name + ".b"]), 0.0)
        logits = (w["out.w"] @ x + w["out.b"][:, None]).T
        return _log_softmax(logits.astype(np.float64))


_ONE_BLAS_THREAD = threading.Lock()


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


@functools.cache
def load(path: Path = WEIGHTS) -> Recognizer | None:
    """The recognizer from its weights file (float16 on disk), None when there is none."""
    if not path.is_file():
        return None
    with np.load(path) as data:
        return Recognizer({k: data[k].astype(np.float32) for k in data.files})


def ctc_costs(logp: np.ndarray, candidates: Sequence[str]) -> np.ndarray:
    """-log P(candidate | frames) under CTC for every candidate (inf for one the frames are
    too few for, or with a character the model does not know): the forward algorithm over
    the candidates' blank-interleaved labels, all candidates at once, in probabilities
    rescaled every frame (each candidate's scale kept as a log)."""
    out = np.full(len(candidates), np.inf)
    codes = [_codes(c) for c in candidates]
    if not len(logp):
        return out
    # by length, in groups: a short candidate is not run padded to the longest's width
    order = sorted((len(c), k) for k, c in enumerate(codes) if c)
    for group in np.array_split(np.asarray([k for _, k in order], int), 3):
        if len(group):
            out[group] = _forward(logp, [codes[k] or () for k in group])
    return out


def _forward(logp: np.ndarray, codes: Sequence[Sequence[int]]) -> np.ndarray:
    """-log P of each label sequence (none empty) under the frames (`ctc_costs`)."""
    ok = range(len(codes))
    width = 2 * max(len(c) for c in codes) + 1
    labels = np.full((len(ok), width), BLANK, np.int64)
    lengths = np.empty(len(ok), np.int64)
    for row, k in enumerate(ok):
        c = codes[k]
        labels[row, 1 : 2 * len(c) : 2] = c
        lengths[row] = 2 * len(c) + 1
    valid = np.arange(width)[None, :] < lengths[:, None]
    # a skip from s-2 to s: s a character unlike the one two back
    skip = (labels[:, 2:] != BLANK) & (labels[:, 2:] != labels[:, :-2])
    probs = np.exp(logp).astype(np.float32)
    alpha = np.zeros((len(ok), width), np.float32)
    alpha[:, :2] = probs[0, labels[:, :2]]
    alpha *= valid
    scale = np.zeros(len(ok))
    for t in range(1, len(logp)):
        new = alpha.copy()
        new[:, 1:] += alpha[:, :-1]
        new[:, 2:] += alpha[:, :-2] * skip
        new *= probs[t, labels]
        new *= valid
        total = new.sum(axis=1)
        live = total > 0
        total[~live] = 1.0
        alpha = new / total[:, None]
        with np.errstate(divide="ignore"):
            scale += np.where(live, np.log(total.astype(np.float64)), -np.inf)
    rows = np.arange(len(ok))
    end = alpha[rows, lengths - 1].astype(np.float64) + alpha[rows, lengths - 2]
    with np.errstate(divide="ignore"):
        return -(scale + np.log(end))


def greedy(logp: np.ndarray) -> str:
    """The best path's string (for a look at what the model reads)."""
    best = logp.argmax(axis=1)
    keep = np.concatenate([[True], best[1:] != best[:-1]]) & (best != BLANK)
    return "".join(CHARSET[k] for k in best[keep])
