"""Reading scanned petition sheets: load, clean, find the table, read each cell, judge ink.

`read_image_page` is the entry point `pipeline.ingest.read_page` uses for image files and
image-only PDF pages.

Pages are read in parallel by processes (or threads), each on one thread: OpenCV's own thread
pool only contends with them (a page took ~5% more CPU with it on 2 cores), so it is limited
to one thread here, before OpenCV first starts it. The environment variable is used, not
`cv2.setNumThreads`: called in a process forked from one whose pool was running, that waits
forever on the parent's threads (seen: the scan benchmark's workers hung).
"""

import os

os.environ.setdefault("OPENCV_FOR_THREADS_NUM", "1")

from .context import ReadContext  # noqa: E402
from .engine import (  # noqa: E402
    EngineFactory,
    OcrEngine,
    OcrText,
    Psm,
    PytesseractEngine,
    TesserocrEngine,
    TesserocrFactory,
    Word,
    system_tesseract,
)
from .images import PageImage, estimate_dpi, load_page_image
from .reader import read_image_page, read_scan

__all__ = [
    "EngineFactory",
    "OcrEngine",
    "OcrText",
    "PageImage",
    "Psm",
    "PytesseractEngine",
    "ReadContext",
    "TesserocrEngine",
    "TesserocrFactory",
    "Word",
    "estimate_dpi",
    "load_page_image",
    "read_image_page",
    "read_scan",
    "system_tesseract",
]
