"""Reading scanned petition sheets: load, clean, find the table, read each cell, judge ink.

`read_image_page` is the entry point `pipeline.ingest.read_page` uses for image files and
image-only PDF pages.
"""

from .engine import (
    CrashingEngine,
    FakeEngine,
    OcrEngine,
    OcrText,
    Psm,
    PytesseractEngine,
    TesserocrEngine,
    Word,
    default_engine,
    system_tesseract,
)
from .images import PageImage, estimate_dpi, load_page_image
from .reader import read_image_page, read_scan

__all__ = [
    "CrashingEngine",
    "FakeEngine",
    "OcrEngine",
    "OcrText",
    "PageImage",
    "Psm",
    "PytesseractEngine",
    "TesserocrEngine",
    "Word",
    "default_engine",
    "estimate_dpi",
    "load_page_image",
    "read_image_page",
    "read_scan",
    "system_tesseract",
]
