"""The project's recognizer (`pipeline.recognizer`) on crops in hands it never trained on.

    .venv/bin/python bench/recognizer.py                          # the weights in the repo
    .venv/bin/python bench/recognizer.py --weights A.npz B.npz    # side by side

Crops are drawn as the training crops are (`recognizer.samples.sample`: a character at a time
as a hand writes, slanted, a pen, warped, scanned), in the fonts' own glyphs only (no digits
drawn from strokes), in three groups of handwriting fonts: the training hands
(`samples.fonts`), the calibration font (`synth.handwriting.CALIBRATION_FONTS`, never trained
on) and the held-out fonts (`HELD_OUT_FONTS`, never trained on, never tuned on). Two kinds of
field: a sheet number (1 to 30) and a date (`samples.text_for`'s forms). Prints per group and
kind: read exactly by best path alone, and for numbers, the true value first among 1..30 by
its exact CTC cost (`ctc_costs`: how `closedworld.sheetno` scores them), then the confusions
of the numbers read wrong, most common first. Synthetic data only; no real person's writing.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.recognizer.model import WEIGHTS, ctc_costs, greedy, load  # noqa: E402
from pipeline.recognizer.samples import calibration_fonts, fonts, sample, text_for  # noqa: E402
from synth.handwriting import HELD_OUT_FONTS, font_path  # noqa: E402

NUMBERS = [str(n) for n in range(1, 31)]


def groups() -> dict[str, list[Path]]:
    held = [p for p in map(font_path, HELD_OUT_FONTS) if p is not None]
    return {"training hands": fonts()[0], "calibration": calibration_fonts(), "held out": held}


def crops(font_list: list[Path], n: int, seed: int) -> dict[str, list[tuple[np.ndarray, str]]]:
    rng = random.Random(seed)
    numbers = [
        sample(
            rng,
            font_list,
            [],
            strokes=0,
            text=str(rng.choice([rng.randint(1, 9), rng.randint(1, 30)])),
        )
        for _ in range(n)
    ]
    dates = []
    while len(dates) < n:
        text = text_for(rng)
        if not text.isdigit():
            dates.append(sample(rng, font_list, [], strokes=0, text=text))
    return {"number": numbers, "date": dates}


def score(weights: Path, drawn: dict[str, dict[str, list[tuple[np.ndarray, str]]]]) -> None:
    load.cache_clear()
    model = load(weights)
    assert model is not None, f"{weights}: no weights"
    print(f"{weights}:")
    for group, kinds in drawn.items():
        parts = []
        confusions: Counter = Counter()
        for kind, items in kinds.items():
            frames = [model.frames(img) for img, _ in items]
            exact = sum(greedy(f) == text for f, (_, text) in zip(frames, items, strict=True))
            parts.append(f"{kind} exact {100 * exact / len(items):5.1f}%")
            if kind == "number":
                first = 0
                for f, (_, text) in zip(frames, items, strict=True):
                    best = NUMBERS[int(np.argmin(ctc_costs(f, NUMBERS)))]
                    first += best == text
                    if best != text:
                        confusions[f"{text}->{best}"] += 1
                parts.append(f"number first of 1..30 {100 * first / len(items):5.1f}%")
        top = ", ".join(f"{k} x{v}" for k, v in confusions.most_common(6))
        print(f"  {group:15s} " + "; ".join(parts) + (f"  [{top}]" if top else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, nargs="+", default=[WEIGHTS])
    parser.add_argument("--crops", type=int, default=300, help="crops of each kind per group")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    drawn = {
        name: crops(found, args.crops, args.seed + k)
        for k, (name, found) in enumerate(groups().items())
        if found
    }
    for weights in args.weights:
        score(weights, drawn)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
