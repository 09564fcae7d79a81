"""Scanned sheets saved as "searchable PDFs" (an earlier OCR's invisible text layer over the
image): the read with the layer against the same pages read from the image alone.

Synthetic data only (synth: invented village, voters and signers). Each sheet of a
generated case is rasterized and saved with its words laid over it as an OCR layer
(`synth.degrade.write_searchable_pdf`); half of the sheets' layers skip the
witness's name, as an earlier OCR skips handwriting, so the layer is not used there. Prints CPU
seconds per sheet both ways, how many sheets used their layer, and whether every blank's value
and every signature line came out the same.

Run: `OMP_THREAD_LIMIT=1 .venv/bin/python bench/searchable_pdf.py [--sheets 20]`.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before tesserocr is imported anywhere

from pipeline.ingest import ingest_file  # noqa: E402
from pipeline.records import PageKind, Sheet  # noqa: E402
from pipeline.scan.layer import layer_words  # noqa: E402
from pipeline.scan.reader import read_image_page  # noqa: E402
from synth import generate_case  # noqa: E402
from synth.degrade import rasterize_pdf, write_searchable_pdf  # noqa: E402


def _blanks(sheet: Sheet) -> list[str | None]:
    w = sheet.witness
    fields = [sheet.header.village, sheet.header.county, sheet.header.proposition]
    fields.append(sheet.sheet_number)
    if w is not None:
        fields += [w.witness_name, w.residence, w.village, w.county, w.stated_count, w.date]
        fields.append(w.signature)
    return [f.text if f is not None else None for f in fields]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=20)
    ap.add_argument("--dpi", type=float, default=300.0)
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args(argv)

    root = Path(tempfile.mkdtemp(prefix="searchable-"))
    generate_case(
        root / "case", seed=args.seed, n_sheets=args.sheets, village_size=max(150, args.sheets * 12)
    )
    pdfs = []
    for k, pdf in enumerate(sorted((root / "case" / "sheets").glob("*.pdf"))):
        for page, image in enumerate(rasterize_pdf(pdf, args.dpi)):
            words = layer_words(pdf, page)
            if k % 2:  # an earlier OCR that skipped the witness's name: the layer is not used
                words = _without_witness_name(words)
            pdfs.append(write_searchable_pdf(image, args.dpi, words, root / f"s{len(pdfs)}.pdf"))
    refs = [ref for pdf in pdfs for ref in ingest_file(pdf)]
    assert all(ref.kind is PageKind.PDF_OCR for ref in refs)
    read_image_page(refs[0])  # the engine made before timing

    t = time.process_time()
    with_layer = [read_image_page(ref) for ref in refs]
    layer_s = time.process_time() - t
    t = time.process_time()
    image_only = [read_image_page(replace(ref, kind=PageKind.PDF_IMAGE)) for ref in refs]
    image_s = time.process_time() - t

    n = len(refs)
    same_blanks = sum(_blanks(a) == _blanks(b) for a, b in zip(with_layer, image_only, strict=True))
    same_lines = sum(a.lines == b.lines for a, b in zip(with_layer, image_only, strict=True))
    good = n - n // 2
    print(
        f"{n} searchable-PDF sheets at {args.dpi:.0f} dpi ({good} with a layer holding every "
        f"blank, {n - good} whose layer skipped the witness's name)"
    )
    print(
        f"read with the layer: {layer_s / n:.2f} CPU-s/sheet; from the image alone: "
        f"{image_s / n:.2f} CPU-s/sheet; with a good layer about "
        f"{(image_s - layer_s) / max(1, good) / (image_s / n):.0%} less a sheet"
    )
    print(
        f"blanks the same both ways on {same_blanks}/{n} sheets; signature lines {same_lines}/{n}"
    )
    return 0


def _without_witness_name(words: list[tuple[str, float, float, float, float]]) -> list:
    """The layer without the words between "I," and "state" (the witness's name)."""
    texts = [w[0] for w in words]
    start = next(k for k, t in enumerate(texts) if t == "I," and "state:" in texts[k : k + 8])
    end = texts.index("state:", start)
    return words[: start + 1] + words[end:]


if __name__ == "__main__":
    raise SystemExit(main())
