"""A synthetic petition corpus with ground truth: many varied cases, each in several input styles.

    python -m synth.corpus --out DIR --cases N --seed S

writes, for each case k and each style:

    DIR/case-kkk/born-digital/    the case as generated (PDF sheets with a text layer)
    DIR/case-kkk/clean-scan/      the same sheets scanned clean at 300 dpi
    DIR/case-kkk/degraded-scan/   the same sheets scanned badly (skew, 200 dpi, blur, ...)
    DIR/index.json                every (case, style) folder with its seed, target and verdict

Each folder is a complete case (case.toml, register.csv, sheets/, truth.json, README.md); all
styles of a case share one truth. Cases cycle through the targets "sufficient",
"insufficient", "undetermined", "just-above" and "just-below", so even a small corpus has
verdicts on both sides of the threshold. Only Village Law § 9-902 permissive referendum
petitions are generated today. Everything is synthetic; no real person's data.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import random
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .case import generate_case
from .scan import scan_case
from .varied import VARIED_TARGETS, Variation

__all__ = [
    "ALL_STYLES",
    "CORPUS_SCHEMA",
    "HELDOUT_STYLE",
    "STYLES",
    "CorpusEntry",
    "generate_corpus",
    "main",
]

log = logging.getLogger(__name__)

CORPUS_SCHEMA = "petitions-corpus/1"
STYLES = ("born-digital", "clean-scan", "degraded-scan")
# Scans with the held-out defects (`synth.scan.HELDOUT_DEFECTS`): asked for by name, never in
# the default styles (for measuring what the reader was not developed on)
HELDOUT_STYLE = "heldout-scan"
ALL_STYLES = (*STYLES, HELDOUT_STYLE)
_SCAN_STYLE = {"clean-scan": "clean-300", "degraded-scan": "degraded"}
HELDOUT_SEED = 0x5EED_0FF


@dataclass(frozen=True, slots=True)
class CorpusEntry:
    """One (case, style) folder of the corpus, as index.json lists it."""

    case: str  # "case-003"
    style: str  # one of STYLES
    path: str  # the folder, relative to the corpus root
    seed: int  # the case's seed (the same for every style of a case)
    kind: str  # the petition kind, as case.toml has it
    target: str
    verdict: str  # truth.json's expected verdict
    sheets: int
    lines: int
    family: str = ""  # the layout family (synth/layouts.py); "" for the classic form
    split: str = ""  # its split, "dev" or "heldout"; "" for the classic form


def _as_index(e: CorpusEntry) -> dict[str, Any]:
    """An entry as index.json lists it (the layout's family and split only when drawn)."""
    out = dataclasses.asdict(e)
    return {k: v for k, v in out.items() if k not in ("family", "split") or v}


def _entry(root: Path, folder: Path, case: str, style: str, seed: int) -> CorpusEntry:
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    return CorpusEntry(
        case=case,
        style=style,
        path=folder.relative_to(root).as_posix(),
        seed=seed,
        kind=truth.get("kind", "permissive_referendum"),
        target=truth.get("target", ""),
        verdict=truth["expected"]["verdict"],
        sheets=len(truth["sheets"]),
        lines=truth["expected"]["lines_read"],
        family=truth.get("layout", {}).get("family", ""),
        split=truth.get("layout", {}).get("split", ""),
    )


@dataclass(frozen=True, slots=True)
class _CaseJob:
    """Everything one case needs, drawn up front so the corpus does not depend on the order
    (or the processes) the cases are made in."""

    root: str
    case: str
    seed: int
    target: str
    village_size: int
    styles: tuple[str, ...]
    scan_seeds: tuple[tuple[str, int], ...]
    variation: Variation


def _make_case(job: _CaseJob) -> list[CorpusEntry]:
    root = Path(job.root)
    entries = []
    with tempfile.TemporaryDirectory(prefix="petitions-corpus-") as tmp:
        born = "born-digital" in job.styles
        source = root / job.case / "born-digital" if born else Path(tmp)
        if born and source.exists():
            shutil.rmtree(source)
        generate_case(
            source,
            job.seed,
            village_size=job.village_size,
            target=job.target,
            variation=job.variation,
        )
        if born:
            entries.append(_entry(root, source, job.case, "born-digital", job.seed))
        for style, scan_seed in job.scan_seeds:
            if style not in job.styles:
                continue
            folder = root / job.case / style
            if folder.exists():
                shutil.rmtree(folder)
            scan_case(source, folder, _SCAN_STYLE[style], scan_seed)
            entries.append(_entry(root, folder, job.case, style, job.seed))
        if HELDOUT_STYLE in job.styles:
            # its seed from the degraded scan's (a draw of its own would change every corpus)
            folder = root / job.case / HELDOUT_STYLE
            if folder.exists():
                shutil.rmtree(folder)
            seed = dict(job.scan_seeds)["degraded-scan"] ^ HELDOUT_SEED
            scan_case(source, folder, "degraded-heldout", seed)
            entries.append(_entry(root, folder, job.case, HELDOUT_STYLE, job.seed))
    log.info("corpus: %s written (%s)", job.case, job.target)
    return entries


def _case_variation(variation: Variation, k: int) -> Variation:
    """Layouts "both": even cases from the development families, odd ones held out."""
    if variation.layouts != "both":
        return variation
    return dataclasses.replace(variation, layouts=("dev", "heldout")[k % 2])


def generate_corpus(
    out_dir: Path,
    seed: int,
    n_cases: int,
    styles: Sequence[str] = STYLES,
    *,
    variation: Variation | None = None,
    village_sizes: tuple[int, int] = (60, 160),
    mapper: Callable[..., Iterable[list[CorpusEntry]]] = map,
) -> Path:
    """Write `n_cases` cases in each of `styles` under out_dir; return the index.json path.

    Deterministic from `seed` (on a machine with the same handwriting fonts installed: truth
    records the font of every field). `mapper` makes the cases: the builtin `map`, or a
    process pool's `map` to use several cores; the output is the same."""
    unknown = [s for s in styles if s not in ALL_STYLES]
    if unknown:
        raise ValueError(f"unknown style(s) {unknown}: use {', '.join(ALL_STYLES)}")
    if n_cases < 1:
        raise ValueError("need at least one case")
    variation = variation or Variation()
    rng = random.Random(seed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    offset = rng.randrange(len(VARIED_TARGETS))
    ordered = tuple(s for s in ALL_STYLES if s in styles)
    jobs = []
    for k in range(n_cases):
        case_seed = rng.randrange(1, 10**6)
        village_size = rng.randint(*village_sizes)
        scan_seeds = tuple((s, rng.randrange(2**32)) for s in _SCAN_STYLE)
        jobs.append(
            _CaseJob(
                root=str(out_dir),
                case=f"case-{k:03d}",
                seed=case_seed,
                target=VARIED_TARGETS[(k + offset) % len(VARIED_TARGETS)],
                village_size=village_size,
                styles=ordered,
                scan_seeds=scan_seeds,
                variation=_case_variation(variation, k),
            )
        )
    entries = [e for made in mapper(_make_case, jobs) for e in made]
    index: dict[str, Any] = {
        "schema": CORPUS_SCHEMA,
        "synthetic": True,
        "seed": seed,
        "n_cases": n_cases,
        "styles": list(ordered),
        "variation": variation.as_json(),
        "entries": [_as_index(e) for e in entries],
    }
    path = out_dir / "index.json"
    path.write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m synth.corpus",
        description="Generate a synthetic petition corpus with ground truth (no real data).",
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cases", type=int, default=3)
    parser.add_argument("--seed", type=int, default=902)
    parser.add_argument(
        "--styles",
        nargs="+",
        choices=ALL_STYLES,
        default=list(STYLES),
        help=f"default: {' '.join(STYLES)}; {HELDOUT_STYLE}: scans with defects the reader "
        "was never developed on (synth/scan.py HELDOUT_DEFECTS)",
    )
    parser.add_argument(
        "--village-size",
        type=int,
        nargs=2,
        default=(60, 160),
        metavar=("LO", "HI"),
        help="voters in each case's village, drawn between LO and HI (default 60 160)",
    )
    parser.add_argument(
        "--builtin-fonts",
        action="store_true",
        help="draw entries in Helvetica even when handwriting fonts are installed",
    )
    parser.add_argument(
        "--written-statement",
        action="store_true",
        help="write the witness statement's blanks (name, residence, count, ...) by hand too",
    )
    parser.add_argument(
        "--fonts",
        choices=("all", "dev", "heldout"),
        default="all",
        help="handwriting fonts: all, or a part of their fixed development/held-out split",
    )
    parser.add_argument(
        "--layouts",
        choices=("classic", "dev", "heldout", "both"),
        default="classic",
        help="the layout families the sheets are set in (synth/layouts.py): the "
        "classic form only (default), the development or held-out families, or both (cases "
        "alternate)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="cases made in parallel")
    args = parser.parse_args(argv)
    variation = Variation(
        system_fonts=not args.builtin_fonts,
        written_statement=args.written_statement,
        fonts=args.fonts,
        layouts=None if args.layouts == "classic" else args.layouts,
    )
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        index = generate_corpus(
            args.out,
            args.seed,
            args.cases,
            args.styles,
            variation=variation,
            village_sizes=(args.village_size[0], args.village_size[1]),
            mapper=pool.map if args.jobs > 1 else map,
        )
    print(index)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
