"""Reading one table cell (pipeline/scan/cells.py): the crop, the re-reads of unsure cells and
the title case of block capitals. Fake engines only; images drawn here (synthetic)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.rules.reading import threshold_for
from pipeline.scan.cells import (
    PAD_PX,
    RE_READ_CAP,
    TILES,
    block_capitals_to_title,
    ink_rect,
    reread,
    shear,
    slant,
    tile,
    untile,
)
from pipeline.scan.engine import DATE_CHARS, DIGITS, OcrText, Psm, Word
from tests.fakes import FakeEngine


def _read(text: str, confidence: float) -> OcrText:
    return OcrText(tuple(Word(t, confidence, (0, 0, 1, 1), 0) for t in text.split()))


@pytest.mark.parametrize(
    ("read", "want"),
    [
        ("ODETTE C DOVECOTE", "Odette C Dovecote"),
        ("ENID COPPERFIELD JR", "Enid Copperfield Jr"),
        ("JASPER A ASHGROVE III", "Jasper A Ashgrove III"),
        ("12 N MAPLE AVE APT 3", "12 N Maple Ave Apt 3"),
        ("ANNE ROOKWOOD-GLADWELL", "Anne Rookwood-Gladwell"),
        ("Odette C Dovecote", "Odette C Dovecote"),  # as written: left alone
        ("Ann McDONALD", "Ann McDONALD"),  # mostly small letters: left alone
        ("12 ST", "12 ST"),  # too few letters to tell
        ("", ""),
    ],
)
def test_block_capitals_become_title_case(read: str, want: str) -> None:
    assert block_capitals_to_title(read) == want


def test_ink_rect_adds_a_margin_within_the_cell() -> None:
    cell = (100, 200, 400, 260)
    assert ink_rect(cell, (50, 20, 90, 40), 300.0) == (141, 211, 58, 38)
    # near the cell's edges the margin stops at the cell
    assert ink_rect(cell, (2, 1, 299, 59), 300.0) == (100, 200, 300, 60)


def test_tile_repeats_the_digits_with_gaps_and_a_margin() -> None:
    ink = np.zeros((30, 12), np.uint8)
    img = tile(ink)
    pad = 10
    gap = int(30 * 0.6)
    assert img.shape == (30 + 2 * pad, TILES * 12 + (TILES - 1) * gap + 2 * pad)
    assert (img == 0).sum() == TILES * ink.size  # the ink three times, white elsewhere
    assert img[:pad].min() == 255 and img[:, :pad].min() == 255


@pytest.mark.parametrize(
    ("read", "want"),
    [("4 4 4", "4"), ("444", "4"), ("12 12 12", "12"), ("4 1 4", ""), ("44", ""), ("", "")],
)
def test_untile_needs_the_same_value_each_time(read: str, want: str) -> None:
    assert untile(read) == want


INK = np.full((20, 60), 255, np.uint8)
INK[2:18, 10:14] = 0  # one upright stroke


def test_a_sure_first_read_is_kept_without_another_read() -> None:
    fake = FakeEngine({"": "never"})
    sure = threshold_for("name") + 0.05
    assert reread(fake, "name", INK, 300, _read("Ann Lee", sure)) == ("Ann Lee", sure)
    assert fake.calls == []


def test_an_unsure_name_is_read_again_upright_and_stays_below_the_threshold() -> None:
    fake = FakeEngine({"": "Ann Leigh"}, confidence=0.95)
    text, conf = reread(fake, "name", INK, 300, _read("Am Lcigh", 0.4))
    assert text == "Ann Leigh"
    assert conf == pytest.approx(threshold_for("name") - RE_READ_CAP)  # still goes to review
    assert [(c[1], c[2]) for c in fake.calls] == [(Psm.SINGLE_LINE, ""), (Psm.SINGLE_WORD, "")]
    # the upright stroke needs no shear: the image is the ink with its white margin
    assert fake.calls[0][0][2:] == (INK.shape[1] + 2 * PAD_PX, INK.shape[0] + 2 * PAD_PX)


def test_re_reads_less_sure_than_the_first_read_are_dropped() -> None:
    worse = FakeEngine({"": "Arn"}, confidence=0.3)
    assert reread(worse, "name", INK, 300, _read("Ann Lee", 0.4)) == (
        "Ann Lee",
        pytest.approx(0.4),
    )
    empty = FakeEngine({"": ""}, confidence=0.9)
    assert reread(empty, "residence", INK, 300, _read("12 Elm", 0.2)) == (
        "12 Elm",
        pytest.approx(0.2),
    )


def test_an_unsure_date_is_read_again_with_the_date_characters() -> None:
    fake = FakeEngine({DATE_CHARS: "9/20/26"}, confidence=0.7)
    assert reread(fake, "date", INK, 300, _read("9/2O/2b", 0.3)) == (
        "9/20/26",
        pytest.approx(0.7),
    )
    assert {c[2] for c in fake.calls} == {DATE_CHARS}


def test_an_unsure_district_is_read_again_tiled() -> None:
    fake = FakeEngine({DIGITS: "3 3 3"}, confidence=0.8)
    ink = np.zeros((20, 8), np.uint8)
    got = reread(fake, "election_district", ink, 300, _read("8", 0.85))
    assert got == ("3", pytest.approx(0.8))  # the tiled read wins even when less sure
    ((rect, psm, whitelist),) = fake.calls
    assert rect[2:] == tile(ink).shape[::-1] and psm is Psm.SINGLE_LINE and whitelist == DIGITS


def test_a_tiled_read_that_disagrees_votes_with_lower_confidence() -> None:
    fake = FakeEngine({DIGITS: "3 8 3"}, confidence=0.9)
    got = reread(fake, "ward", np.zeros((20, 8), np.uint8), 300, _read("", 0.0))
    assert got == ("3", pytest.approx(0.6))


def test_an_engine_without_image_reads_keeps_the_first_read() -> None:
    class PageOnly:
        name = "page-only"

        def set_page(self, image: np.ndarray, dpi: float) -> None: ...

        def read(self, rect: tuple[int, int, int, int], psm: Psm, whitelist: str = "") -> OcrText:
            raise AssertionError("not called")

    assert reread(PageOnly(), "name", INK, 300, _read("Am", 0.2)) == ("Am", pytest.approx(0.2))


@pytest.mark.parametrize("slope", [0.0, 0.3, 0.6])
def test_slant_finds_the_lean_of_a_stroke_and_shear_stands_it_up(slope: float) -> None:
    img = np.full((40, 80), 255, np.uint8)
    for y in range(40):  # a stroke leaning right by `slope`, drawn from the bottom up
        x = int(round(20 + slope * (39 - y)))
        img[y, x : x + 3] = 0
    found = slant(img)
    assert found == pytest.approx(slope, abs=0.06)
    cols = np.flatnonzero((shear(img, found) < 128).any(axis=0))
    assert cols[-1] - cols[0] <= 4  # upright: the stroke's ink within a few columns


def _bars(n: int, gap: int = 6) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A binary page (ink 255) with n upright bars, like a sans-serif "III", and their box."""
    ink = np.zeros((60, 200), np.uint8)
    x = 50
    for _ in range(n):
        ink[15:45, x : x + 4] = 255
        x += 4 + gap
    return ink, (48, 13, x - gap + 2, 47)


@pytest.mark.parametrize(
    ("bars", "read", "want", "flagged"),
    [
        (3, "II", "Hazel Oakhurst III", True),  # a stroke dropped: counted back, for a person
        (2, "II", "Hazel Oakhurst II", False),  # the count agrees: left as read
        (3, "III", "Hazel Oakhurst III", False),
        (2, "III", "Hazel Oakhurst II", True),
    ],
)
def test_a_suffix_of_is_is_counted_in_the_ink(
    bars: int, read: str, want: str, flagged: bool
) -> None:
    from pipeline.rules.reading import threshold_for
    from pipeline.scan.cells import count_suffix_strokes
    from pipeline.scan.engine import Word

    ink, box = _bars(bars)
    words = [Word("Hazel", 0.95, (0, 0, 10, 10), 0), Word(read, 0.88, box, 0)]
    text, conf = count_suffix_strokes(f"Hazel Oakhurst {read}", 0.9, words, ink, "name")
    assert text == want
    assert (conf < threshold_for("name")) is flagged


def test_a_suffix_whose_strokes_run_together_is_left_but_flagged() -> None:
    from pipeline.scan.cells import count_suffix_strokes
    from pipeline.scan.engine import Word

    ink, box = _bars(3, gap=0)  # blurred into one block
    words = [Word("II", 0.88, box, 0)]
    assert count_suffix_strokes("Ann Lee II", 0.9, words, ink, "name") == ("Ann Lee II", 0.79)
    assert count_suffix_strokes("Ann Lee", 0.9, words, ink, "name") == ("Ann Lee", 0.9)
