"""Train the recognizer (`model`) on synthetic crops (`samples`) and write its weights file.

    .venv/bin/pip install -e '.[train]'          # torch, CPU build: training only
    .venv/bin/python -m pipeline.recognizer.train --seed 1

Reproducible from the seed: the crops are drawn from `random.Random(seed)`, torch is seeded
and runs on one thread. The run prints its loss and, every so often, the share of held-back
synthetic crops (drawn from another seed, in the calibration fonts it never trains on:
`samples.CALIBRATION_FONTS`) read exactly by best path.
Run time is about STEPS x BATCH crops at the speed the machine gives (see the README).
"""

from __future__ import annotations

import argparse
import logging
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from .model import BLANK, CHARSET, CONVS, HEIGHT, TEMPORAL, WEIGHTS, encode, greedy, prepare
from .samples import calibration_fonts, fonts, sample

log = logging.getLogger(__name__)

CHANNELS = (16, 32, 64, 96)
HIDDEN = 128


def _net():  # type: ignore[no-untyped-def]
    import torch
    from torch import nn

    class Net(nn.Module):
        """The model as `model.Recognizer` runs it, with batch norm while training."""

        def __init__(self) -> None:
            super().__init__()
            blocks, c_in = [], 1
            for c_out, (_, pool) in zip(CHANNELS, CONVS, strict=True):
                blocks.append(
                    nn.Sequential(
                        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
                        nn.BatchNorm2d(c_out),
                        nn.ReLU(),
                        nn.MaxPool2d(pool),
                    )
                )
                c_in = c_out
            self.convs = nn.ModuleList(blocks)
            rows = HEIGHT // 16
            self.t1 = nn.Conv1d(c_in * rows, HIDDEN, 3, padding=1)
            self.t2 = nn.Conv1d(HIDDEN, HIDDEN, 3, padding=1)
            self.drop = nn.Dropout(0.15)
            self.out = nn.Linear(HIDDEN, len(CHARSET) + 1)

        def forward(self, x):  # type: ignore[no-untyped-def]
            for block in self.convs:
                x = block(x)
            b, c, h, w = x.shape
            x = x.reshape(b, c * h, w)
            x = self.drop(torch.relu(self.t1(x)))
            x = self.drop(torch.relu(self.t2(x)))
            return self.out(x.transpose(1, 2))  # (B, T, classes)

    return Net()


def _batches(rng: random.Random, n: int, hand, prints, group: int = 4):  # type: ignore[no-untyped-def]
    """`group` batches of `n` crops, the crops of like widths together (less padding)."""
    crops = [sample(rng, hand, prints) for _ in range(n * group)]
    crops.sort(key=lambda c: c[0].shape[1] / c[0].shape[0])
    return [_batch(crops[k : k + n]) for k in range(0, len(crops), n)]


def _batch(crops):  # type: ignore[no-untyped-def]
    import torch

    n = len(crops)
    xs = [prepare(img) for img, _ in crops]
    width = max(x.shape[1] for x in xs)
    batch = np.zeros((n, 1, HEIGHT, width), np.float32)
    for k, x in enumerate(xs):
        batch[k, 0, :, : x.shape[1]] = x
    labels = [encode(t) or [] for _, t in crops]
    t_lens = [x.shape[1] // 4 for x in xs]
    return (
        torch.from_numpy(batch),
        torch.tensor([c for lab in labels for c in lab], dtype=torch.long),
        torch.tensor(t_lens, dtype=torch.long),
        torch.tensor([len(lab) for lab in labels], dtype=torch.long),
        crops,
    )


def export(net, path: Path) -> None:  # type: ignore[no-untyped-def]
    """The weights with batch norm folded into the convolutions, float16."""
    out: dict[str, np.ndarray] = {}
    for (name, _), block in zip(CONVS, net.convs, strict=True):
        conv, bn = block[0], block[1]
        scale = (bn.weight / (bn.running_var + bn.eps).sqrt()).detach().numpy()
        w = conv.weight.detach().numpy() * scale[:, None, None, None]
        b = bn.bias.detach().numpy() - bn.running_mean.detach().numpy() * scale
        out[name + ".w"], out[name + ".b"] = w, b
    for name in TEMPORAL:
        layer = getattr(net, name)
        out[name + ".w"] = layer.weight.detach().numpy()
        out[name + ".b"] = layer.bias.detach().numpy()
    out["out.w"] = net.out.weight.detach().numpy()
    out["out.b"] = net.out.bias.detach().numpy()
    halves: dict[str, Any] = {k: v.astype(np.float16) for k, v in out.items()}
    np.savez_compressed(path, **halves)


def main(argv: list[str] | None = None) -> int:
    import torch

    parser = argparse.ArgumentParser(prog="python -m pipeline.recognizer.train")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=2400)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    hand, prints = fonts()
    rng = random.Random(args.seed)
    check_rng = random.Random(args.seed + 1_000_003)
    # held-back crops in the calibration fonts: writing it is never trained on
    check = [sample(check_rng, calibration_fonts(), [], strokes=0) for _ in range(200)]
    net = _net()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps)
    ctc = torch.nn.CTCLoss(blank=BLANK, zero_infinity=True)
    started, running = time.perf_counter(), 0.0
    queue: list = []
    for step in range(1, args.steps + 1):
        net.train()
        if not queue:
            queue = _batches(rng, args.batch, hand, prints)
            random.Random(step).shuffle(queue)
        x, targets, t_lens, l_lens, _ = queue.pop()
        logp = net(x).log_softmax(2).transpose(0, 1)  # (T, B, C)
        loss = ctc(logp, targets, t_lens, l_lens)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        opt.step()
        sched.step()
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 250 == 0 or step == args.steps:
            export(net, args.out)
            right = _exact(args.out, check)
            log.info(
                "step %d loss %.3f unseen-font crops read exactly %.1f%% (%.0f s)",
                step,
                running,
                100 * right,
                time.perf_counter() - started,
            )
    log.info("weights in %s (%d bytes)", args.out, args.out.stat().st_size)
    return 0


def _exact(path: Path, check: list[tuple[np.ndarray, str]]) -> float:
    from .model import load

    load.cache_clear()
    model = load(path)
    assert model is not None
    return sum(greedy(model.frames(img)) == text for img, text in check) / len(check)


if __name__ == "__main__":
    raise SystemExit(main())
