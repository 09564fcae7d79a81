"""What reading a page needs besides the page: the OCR engine to read with and where the lines'
crops go.

A `ReadContext` is a small frozen value passed down from whoever runs the read (the CLI, the
Prefect flow, a benchmark, a test), never found in a global. It carries an engine *factory*, not
an engine: a tesseract handle cannot be pickled and must not be shared between threads, while
the context travels to a process pool's workers with each page (as OCRmyPDF's per-page context
carries options, never images or handles)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .engine import EngineFactory, OcrEngine, TesserocrFactory

__all__ = ["ReadContext"]


@dataclass(frozen=True, slots=True)
class ReadContext:
    engine_factory: EngineFactory = TesserocrFactory()
    crops_dir: Path | None = None  # each scanned line's crop is written here, for review

    def engine(self) -> OcrEngine:
        """The engine to read one page with."""
        return self.engine_factory()
