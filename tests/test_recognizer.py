"""The project's own recognizer (pipeline.recognizer): exact CTC scores of candidate strings,
the shipped weights reading synthetic handwriting, and its evidence in the closed world.

Frames here are made by hand or drawn from synthetic crops (samples: development fonts;
no real person's writing)."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import random
from dataclasses import replace

import numpy as np
import pytest

from pipeline.closedworld import world_of
from pipeline.closedworld.resolve import PARAMS, date_evidence, resolve_line
from pipeline.closedworld.score import posterior
from pipeline.recognizer import CHARSET, ctc_costs, encode, frames_of, greedy, relative_costs
from pipeline.recognizer.model import BLANK, HEIGHT, WEIGHTS, load, prepare
from pipeline.records import Field, SignatureLine, Source
from pipeline.rules.reading import RESOLVED_THRESHOLDS
from pipeline.scan.cells import recognized
from tests.builders import case as case_config
from tests.test_closedworld import VOTERS, lattice


def _small_frames(rng: np.random.Generator, t: int) -> np.ndarray:
    """Random frames over a few classes (the rest all but impossible), as log-probabilities."""
    z = np.full((t, len(CHARSET) + 1), -40.0)
    live = [*(encode("10") or []), BLANK]
    z[:, live] = rng.normal(0, 1.5, (t, 3))
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def _brute(logp: np.ndarray, text: str) -> float:
    """-log P(text) written plainly: every path over the three live classes ("1", "0", the
    blank) enumerated, collapsed the CTC way (repeats merged, blanks dropped) and summed."""
    live = [*(encode("10") or []), BLANK]
    names = {0: "1", 1: "0"}
    total = 0.0
    for path in itertools.product(range(3), repeat=logp.shape[0]):
        out = [names[k] for i, k in enumerate(path) if k != 2 and (i == 0 or path[i - 1] != k)]
        if "".join(out) == text:
            total += math.exp(sum(logp[t, live[k]] for t, k in enumerate(path)))
    return -math.log(total) if total else math.inf


def test_ctc_costs_are_the_sum_over_every_alignment() -> None:
    rng = np.random.default_rng(7)
    cands = ["1", "10", "11", "101", "0", "1100", "110011"]
    for _ in range(4):
        logp = _small_frames(rng, 5)
        for cand, cost in zip(cands, ctc_costs(logp, cands), strict=True):
            ref = _brute(logp, cand)  # "110011" needs 7 frames: impossible in 5
            assert cost == pytest.approx(ref, rel=1e-4) if math.isfinite(ref) else math.isinf(cost)


def test_a_string_with_a_character_the_model_does_not_know_costs_infinitely() -> None:
    logp = _small_frames(np.random.default_rng(1), 6)
    assert np.isinf(ctc_costs(logp, ["1#0", "", "x"])).all()
    assert encode("Oct  21, 2019") == encode("oct 21, 2019")


def _frames_for(text: str, sure: float = 0.97, hold: int = 2) -> tuple[tuple[float, ...], ...]:
    """Frames that read `text` plainly: each character held `hold` frames, blanks between."""
    rows = []
    for k in [BLANK, *sum(([c, BLANK] for c in encode(text) or []), [])]:
        for _ in range(hold if k != BLANK else 1):
            p = np.full(len(CHARSET) + 1, (1 - sure) / len(CHARSET))
            p[k] = sure
            rows.append(tuple(float(v) for v in np.log(p)))
    return tuple(rows)


def test_what_the_recognizer_read_costs_nothing_and_the_rest_more() -> None:
    frames = _frames_for("10/21/19")
    cands = ["10/21/19", "10/27/19", "1/21/19", "October 21, 2019"]
    rel, outside = relative_costs(frames, cands)
    assert rel[0] == pytest.approx(0.0, abs=0.2)
    assert (rel[1:] > 3).all() and outside > 3  # "none of these" costs as a misreading does
    rel, outside = relative_costs(frames, cands[1:])  # what it read is none of them
    assert outside == pytest.approx(0.0, abs=0.2) and (rel > 3).all()
    assert greedy(np.asarray(frames)) == "10/21/19"


@pytest.fixture(scope="module")
def world():  # type: ignore[no-untyped-def]
    case = case_config()
    return case, world_of(case, VOTERS)


def _date(written: str, seen: str, frames: str) -> Field:
    """An unsure date: tesseract's lattice of `seen`, the recognizer's frames of `frames` (read
    without a doubt: its costs are weighted low, `Params.frames_weight`)."""
    sure = _frames_for(frames, sure=0.99999)
    return Field("date", written, 0.3, Source.OCR, None, (lattice(seen, 0.6),), frames=sure)


def test_the_recognizer_settles_a_date_tesseract_misread(world) -> None:  # type: ignore[no-untyped-def]
    case, w = world
    day = case.dates.filed - dt.timedelta(days=6)
    other = day - dt.timedelta(days=2)
    written = f"{day.month}/{day.day}/{day.year % 100}"
    misread = f"{other.month}/{other.day}/{other.year % 100}"  # tesseract's lattice says `other`
    field = _date(misread, misread, written)
    on = resolve_line(SignatureLine("abc", 1, (field,)), w).get("date")
    assert on is not None and on.resolved and on.text == written
    off = replace(field, frames=())
    plain = resolve_line(SignatureLine("abc", 1, (off,)), w).get("date")
    assert plain is not None and plain.text != written  # the lattice alone keeps its misreading


def test_the_recognizer_reading_a_date_plainly_outweighs_lattices_sure_of_a_misread(world) -> None:  # type: ignore[no-untyped-def]
    """Handwriting is where tesseract's reads explain the days worst (`PARAMS["date"]`: its
    lattices weighed 0.25 beside the recognizer's 0.5): a day tesseract misread in one digit
    without hesitation, which the recognizer read plainly, is the recognizer's, and sure."""
    case, w = world
    day = case.dates.filed - dt.timedelta(days=6)
    other = day - dt.timedelta(days=2)
    written = f"{day.month}/{day.day}/{day.year % 100}"
    misread = f"{other.month}/{other.day}/{other.year % 100}"
    sure_of_it = Field("date", misread, 0.3, Source.OCR, None, (lattice(misread, 0.95),))
    field = replace(sure_of_it, frames=_frames_for(written, sure=0.95))
    on = resolve_line(SignatureLine("abc", 1, (field,)), w).get("date")
    assert on is not None and on.resolved and on.text == written
    assert on.confidence >= RESOLVED_THRESHOLDS["date"]


def test_lattices_that_explain_no_day_leave_the_date_to_the_recognizer(world) -> None:  # type: ignore[no-untyped-def]
    case, w = world
    day = case.dates.filed - dt.timedelta(days=5)
    written = f"{day.month}/{day.day}/{day.year % 100}"
    field = _date("Joo gon", "Joo gon", written)  # tesseract read the ink as no date at all
    on = resolve_line(SignatureLine("abc", 1, (field,)), w).get("date")
    assert on is not None and on.resolved and on.text == written
    alone = resolve_line(SignatureLine("abc", 1, (replace(field, frames=()),)), w).get("date")
    assert alone is not None and not alone.resolved  # tesseract alone: none of these, as read


def test_a_date_the_recognizer_reads_outside_the_window_is_none_of_these(world) -> None:  # type: ignore[no-untyped-def]
    case, w = world
    far = case.dates.filed - dt.timedelta(days=900)
    written = f"{far.month}/{far.day}/{far.year % 100}"
    near = case.dates.filed - dt.timedelta(days=3)
    seen = f"{near.month}/{near.day}/{near.year % 100}"
    ev = date_evidence(_date(written, seen, written), w)
    assert ev is not None
    post = posterior(ev.cost, ev.prior, PARAMS["date"])
    assert post.none > 0.5  # read as written: a defect to find, not one to correct away


def test_the_weights_are_small_and_read_synthetic_dates_in_a_development_font() -> None:
    assert WEIGHTS.is_file() and WEIGHTS.stat().st_size < 2_000_000
    model = load()
    assert model is not None
    from pipeline.recognizer.samples import sample
    from synth.handwriting import CALIBRATION_FONTS, DEV_FONTS, font_path

    # the development fonts it trains on (the DKG faces), not the scrawls among its other
    # training hands, which it reads less often exactly
    hand = [p for f in DEV_FONTS if f not in CALIBRATION_FONTS if (p := font_path(f))]
    rng = random.Random(20261201)  # not a training seed's stream
    crops = [sample(rng, hand, []) for _ in range(30)]
    right = 0
    for img, text in crops:
        frames = model.frames(img)
        assert frames.shape[1] == len(CHARSET) + 1
        assert np.allclose(np.exp(frames).sum(axis=1), 1.0, atol=1e-4)
        right += greedy(frames) == text
    # about half read exactly by best path alone (16 of 30 with the weights trained on 31
    # hands, 2026-12-07; it scores candidates, not this): a broken model reads none
    assert right >= 12


def test_training_never_draws_a_held_out_or_calibration_font() -> None:
    from pipeline.recognizer.samples import calibration_fonts, fonts
    from synth.handwriting import (
        CALIBRATION_FONTS,
        HELD_OUT_FONTS,
        TRAINING_FONTS,
        font_path,
    )

    hand, prints = fonts()
    drawn = {p.name for p in hand + prints}
    unseen = {p.name for p in map(font_path, CALIBRATION_FONTS + HELD_OUT_FONTS) if p}
    assert unseen and not drawn & unseen
    assert not set(CALIBRATION_FONTS) & set(HELD_OUT_FONTS)  # fitted on: not held out
    # every face vendored: the Google Fonts' training faces are all drawn, the calibration
    # set is Breip and six faces of other designers
    assert {p.name for p in map(font_path, TRAINING_FONTS) if p} <= drawn
    assert len(TRAINING_FONTS) == 26
    names = [p.name for p in calibration_fonts()]
    assert names[0] == "Breip.ttf" and len(names) == 7


def test_training_crops_come_from_the_seed_and_are_labelled_lowercase() -> None:
    from pipeline.recognizer.samples import fonts, sample

    hand, prints = fonts()
    a = [sample(random.Random(7), hand, prints) for _ in range(3)]
    b = [sample(random.Random(7), hand, prints) for _ in range(3)]
    assert all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b, strict=True))
    rng = random.Random(11)
    labels = [sample(rng, hand, prints)[1] for _ in range(40)]
    assert all(t == t.casefold() and encode(t) is not None for t in labels)


def test_stroke_drawn_digits_take_every_form_a_hand_keeps_one() -> None:
    # The digits a hand writes in forms no training font has (an open 4 in two strokes, a
    # crossed 7), drawn from strokes: every form of every mark draws some ink, on the
    # baseline, and one hand draws its 4s alike; letters are left to the fonts.
    from pipeline.recognizer.strokes import FORMS, Hand, draw

    rng = random.Random(3)
    for ch, forms in FORMS.items():
        for k in range(len(forms)):
            hand = Hand({c: k for c in FORMS}, 1.0, 0.08, 0.0)
            drawn = draw(rng, hand, ch, 40.0)
            assert drawn is not None
            ink, left, top, advance = drawn
            assert ink.any() and advance > 0
            if ch.isdigit():  # a digit stands on the baseline, about as tall as asked
                rows = np.flatnonzero(ink.any(axis=1))
                assert 34 <= rows[-1] - rows[0] <= 50
                assert abs(top + rows[-1]) <= 6  # its foot on the baseline (y 0)
    assert draw(rng, Hand.drawn(rng), "a", 40.0) is None
    hand = Hand({c: 1 for c in FORMS}, 1.0, 0.08, 0.0)  # the open 4, no wobble
    a, b = draw(rng, hand, "4", 40.0), draw(rng, hand, "4", 40.0)
    assert a is not None and b is not None
    closed = draw(rng, Hand({c: 0 for c in FORMS}, 1.0, 0.08, 0.0), "4", 40.0)
    assert closed is not None
    # one hand's 4s alike (the width varies by a tenth), unlike the closed form
    assert abs(a[0].shape[1] - b[0].shape[1]) <= 0.2 * a[0].shape[1]
    # the open 4's first stroke starts at the top left; the closed 4's top is its stem alone
    top_left = lambda img: int(img[: img.shape[0] // 5, : img.shape[1] // 3].sum())  # noqa: E731
    assert top_left(closed[0]) == 0 < top_left(a[0])


def test_training_crops_draw_digits_from_strokes_unless_told_not_to() -> None:
    from pipeline.recognizer import samples

    hand, prints = samples.fonts()
    drawn: list[object] = []
    real = samples.draw

    def spy(*args):  # type: ignore[no-untyped-def]
        drawn.append(args[2])
        return real(*args)

    samples.draw = spy  # type: ignore[assignment]
    try:
        rng = random.Random(5)
        for _ in range(20):
            samples.sample(rng, hand, prints, strokes=0.0, text="10/21/26")
        assert drawn == []
        for _ in range(20):
            samples.sample(rng, hand, prints, strokes=1.0, text="10/21/26")
        assert set("10/2").issubset(set(drawn))
    finally:
        samples.draw = real  # type: ignore[assignment]


def test_the_reader_keeps_frames_for_dates_wards_and_districts_only() -> None:
    crop = np.full((40, 160), 255, np.uint8)
    crop[10:30, 20:25] = 0  # a stroke
    assert recognized("residence", crop) == ()
    assert recognized("ward", crop) and recognized("election_district", crop)
    frames = recognized("date", crop)
    assert frames and len(frames) == prepare(crop).shape[1] // 4
    assert prepare(crop).shape[0] == HEIGHT
    assert frames_of(np.zeros((1, 5), np.uint8)) == ()


def test_a_date_the_recognizer_did_not_see_keeps_its_lattices_posterior(world) -> None:  # type: ignore[no-untyped-def]
    from pipeline.closedworld.resolve import LATTICE_DATE

    case, w = world
    day = case.dates.filed - dt.timedelta(days=4)
    written = f"{day.month}/{day.day}/{day.year % 100}"
    plain = Field("date", written, 0.9, Source.OCR, None, (lattice(written, 0.9),))
    alone = date_evidence(plain, w, LATTICE_DATE)
    mixed = date_evidence(plain, w, PARAMS["date"])  # a sheet whose other dates it saw
    assert alone is not None and mixed is not None
    a = posterior(alone.cost, alone.prior, LATTICE_DATE)
    b = posterior(mixed.cost, mixed.prior, PARAMS["date"])
    assert a.none == pytest.approx(b.none, rel=1e-6)
    assert [k for k, _ in a.ranked[:5]] == [k for k, _ in b.ranked[:5]]
    assert a.ranked[0][1] == pytest.approx(b.ranked[0][1], rel=1e-6)


def test_a_case_may_read_its_dates_without_the_recognizer() -> None:
    from pipeline.closedworld import resolve_sheets
    from tests.builders import sheet as make_sheet

    case = case_config()
    day = case.dates.filed - dt.timedelta(days=6)
    other = day - dt.timedelta(days=2)
    written = f"{day.month}/{day.day}/{day.year % 100}"
    misread = f"{other.month}/{other.day}/{other.year % 100}"
    sheet = make_sheet((SignatureLine("abc", 1, (_date(misread, misread, written),)),))
    off = case.model_copy(
        update={"matching": case.matching.model_copy(update={"recognizer": False})}
    )
    assert case.matching.recognizer  # on by default
    on_date = resolve_sheets([sheet], case, VOTERS)[0].lines[0].get("date")
    off_date = resolve_sheets([sheet], off, VOTERS)[0].lines[0].get("date")
    assert on_date is not None and on_date.text == written
    assert off_date is not None and off_date.text != written


def test_frames_that_read_nothing_make_none_of_these_cheap() -> None:
    """Every frame a blank: the likeliest string is the empty one, which no candidate is, so
    "none of these" costs about nothing and every number more (it was counted infinite, so
    that a crop the recognizer read as nothing made every candidate likelier than none)."""
    blank = _frames_for("", sure=0.99)
    rel, outside = relative_costs(blank, ["1", "2", "3"])
    assert outside == pytest.approx(0.0, abs=0.1) and (rel > 3).all()


def _ward_seen_only(frames: str) -> Field:
    """A ward cell whose ink tesseract read as nothing (no lattices) and the recognizer read as
    `frames`."""
    return Field("ward", "", 0.0, Source.OCR, None, (), frames=_frames_for(frames, sure=0.999))


def test_a_number_only_the_recognizer_saw_is_read_in_the_closed_world_when_it_is_on() -> None:
    """A "1" tesseract read as nothing, that the recognizer read: with the recognizer on it
    is read among the village's wards as 1; off, it is left as read (empty, unsure). A cell
    the recognizer read as nothing is left as read either way."""
    from pipeline.closedworld import resolve_sheets
    from tests.builders import sheet as make_sheet

    on = case_config(municipality={"wards": ["1", "2", "3"]})
    off = on.model_copy(update={"matching": on.matching.model_copy(update={"recognizer": False})})
    for frames, on_text in (("1", "1"), ("", "")):
        sheet = make_sheet((SignatureLine("abc", 1, (_ward_seen_only(frames),)),))
        got_on = resolve_sheets([sheet], on, VOTERS)[0].lines[0].get("ward")
        got_off = resolve_sheets([sheet], off, VOTERS)[0].lines[0].get("ward")
        assert got_on is not None and got_on.text == on_text and got_on.resolved == bool(on_text)
        assert got_off is not None and got_off.text == "" and not got_off.resolved


def test_a_doubled_digit_the_recognizer_read_as_one_is_not_told_from_it() -> None:
    """CTC reads "11" as "1" unless a blank frame falls between the two: frames that saw one
    "1" make "11" dear (no blank between), which is no evidence in a narrow hand (in the
    calibration fonts, 16% of dates with such a pair were read so). With `merges` a
    candidate with a doubled digit costs no more than the pair written once; another digit
    as before."""
    from pipeline.recognizer import relative_costs

    classes = len(CHARSET) + 1

    def frame(ch: str | None) -> tuple[float, ...]:
        row = np.full(classes, np.log(1e-4))
        row[classes - 1 if ch is None else CHARSET.index(ch)] = np.log(1 - 1e-4 * (classes - 1))
        return tuple(row)

    frames = (frame(None), frame("1"), frame("1"), frame(None))
    plain, _ = relative_costs(frames, ["1", "11", "7"])
    merged, _ = relative_costs(frames, ["1", "11", "7"], merges=True)
    assert plain[1] > 10 and merged[1] == pytest.approx(merged[0])
    assert merged[2] == pytest.approx(plain[2]) and plain[2] > 10
