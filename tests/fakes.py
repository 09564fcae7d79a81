"""OCR engines for tests: one that answers what it is told and one that crashes, as OCRmyPDF's
tests swap theirs. Synthetic: no real person's data."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from pipeline.scan.context import ReadContext
from pipeline.scan.engine import OcrText, Psm, Rect, Word

__all__ = ["CrashingEngine", "FakeEngine", "reading"]


class FakeEngine:
    """Answers from a function of (rect, psm, whitelist) -> text, or a fixed mapping keyed by
    whitelist ("" for none), with one confidence. Records every call."""

    name = "fake"

    def __init__(
        self,
        answer: Callable[[Rect, Psm, str], str] | Mapping[str, str] | None = None,
        confidence: float = 0.95,
    ) -> None:
        self._answer = answer
        self._confidence = confidence
        self.calls: list[tuple[Rect, Psm, str]] = []
        self.dpi = 300.0

    def set_page(self, image: np.ndarray, dpi: float) -> None:
        self.dpi = dpi

    def read_image(self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = "") -> OcrText:
        """Answered as a read of the whole image's rectangle."""
        hgt, wid = image.shape[:2]
        return self.read((0, 0, wid, hgt), psm, whitelist)

    def read(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        self.calls.append((rect, psm, whitelist))
        if callable(self._answer):
            text = self._answer(rect, psm, whitelist)
        elif self._answer is not None:
            text = self._answer.get(whitelist, "")
        else:
            text = ""
        x, y, w, h = rect
        words: Sequence[Word] = tuple(
            Word(t, self._confidence, (x, y, x + w, y + h), n)
            for n, line in enumerate(text.splitlines())
            for t in line.split()
        )
        return OcrText(tuple(words))


class CrashingEngine:
    """An engine that fails every read, as a broken tesseract install would."""

    name = "crashing"

    def set_page(self, image: np.ndarray, dpi: float) -> None:
        pass

    def read(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        raise RuntimeError("tesseract crashed (fake)")

    def read_image(self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = "") -> OcrText:
        raise RuntimeError("tesseract crashed (fake)")


def reading(engine: object, crops_dir: Path | None = None) -> ReadContext:
    """A read context whose every page is read with this one engine (tests run on one thread)."""
    return ReadContext(lambda: engine, crops_dir)  # type: ignore[arg-type,return-value]
