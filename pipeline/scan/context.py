"""What reading a page needs besides the page: the OCR engine to read with and where the lines'
crops go.

It also carries the statements a sheet's foot may carry (`forms.Statement`): the printed
wording both readers look for, the statutes' own (`forms.STANDARD_STATEMENTS`) unless the case's
petition kind brings others (`run.read_context_for`).

A `ReadContext` is a small frozen value passed down from whoever runs the read (the CLI, the
Prefect flow, a benchmark, a test), never found in a global. It carries an engine *factory*, not
an engine: a tesseract handle cannot be pickled and must not be shared between threads, while
the context travels to a process pool's workers with each page (as OCRmyPDF's per-page context
carries options, never images or handles)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..forms import STANDARD_STATEMENTS, Statement
from .engine import EngineFactory, OcrEngine, TesserocrFactory

__all__ = ["ReadContext"]


@dataclass(frozen=True, slots=True)
class ReadContext:
    engine_factory: EngineFactory = TesserocrFactory()
    crops_dir: Path | None = None  # each scanned line's crop is written here, for review
    statements: tuple[Statement, ...] = STANDARD_STATEMENTS

    def engine(self) -> OcrEngine:
        """The engine to read one page with."""
        return self.engine_factory()
