"""Layout families of the synthetic corpus (synth/layouts.py): a fixed development /
held-out split of families and fonts, recorded in the truth, and born-digital sheets in every
family read back as truth has them. Synthetic; no real person's data."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pdfplumber
import pytest

from pipeline.columns import place_title
from pipeline.records import PageKind, PageRef
from pipeline.textlayer import SIGNED, read_text_page
from synth.corpus import _case_variation, generate_corpus
from synth.handwriting import (
    BUILTIN_HAND,
    BUILTIN_SIGNATURE,
    available_fonts,
    font_part,
)
from synth.layouts import (
    FAMILIES,
    PRINT_FONTS,
    SPLITS,
    draw_layout,
    families,
    hand_font_split,
    hand_fonts_for,
    max_rows,
)
from synth.sheets import COLUMNS
from synth.varied import Variation


def test_the_split_is_fixed_and_covers_both_sides() -> None:
    names = [f.name for f in FAMILIES]
    assert len(set(names)) == len(names)
    assert {f.name for f in families("dev")} >= {"classic"}
    assert families("dev") and families("heldout")
    assert not {f.name for f in families("dev")} & {f.name for f in families("heldout")}
    for split in SPLITS:  # each split has the phenomena the reader must handle
        fams = families(split)
        assert {"grid", "horizontal", "none", "heavy-title"} <= {r for f in fams for r in f.rules}
        roles = {c.role for f in fams for cs in f.column_sets for c in cs}
        assert {"street", "town", "signature_residence", "line_number"} <= roles
        assert {"image", "vector"} <= {i for f in fams for i in f.signature_ink}
    assert {s for *_, s in PRINT_FONTS.values()} == set(SPLITS)
    for split in SPLITS:
        fonts = font_part(split)
        assert all(hand_font_split(f) == split for f in fonts)
        assert any(f.script for f in fonts) and any(not f.script for f in fonts)


def test_a_drawn_layout_fits_its_page() -> None:
    rng = random.Random(4)
    for family in FAMILIES:
        for _ in range(5):
            layout, columns = draw_layout(rng, family, COLUMNS)
            assert layout.family == family.name and layout.split == family.split
            width = sum(w for _, _, w in columns)
            assert width <= layout.page[0] - 2 * layout.margin + 1
            assert max_rows(layout) >= 8
            if family.name != "classic":
                assert PRINT_FONTS[layout.print_font][2] == family.split


def test_hand_fonts_follow_the_split() -> None:
    for split in SPLITS:
        picked = hand_fonts_for(True, "all", split)
        builtin = (BUILTIN_HAND, BUILTIN_SIGNATURE)
        assert picked and all(hand_font_split(f) == split for f in picked if f not in builtin)
        assert hand_fonts_for(True, "dev", split) == available_fonts(True, "dev")


def test_a_corpus_of_both_splits_alternates() -> None:
    both = Variation(layouts="both")
    assert [_case_variation(both, k).layouts for k in range(3)] == ["dev", "heldout", "dev"]
    assert _case_variation(Variation(), 1).layouts is None


def _read(folder: Path, sheet: dict[str, Any]) -> Any:
    with pdfplumber.open(folder / sheet["file"]) as pdf:
        page = pdf.pages[sheet["page_index"]]
        size = (float(page.width), float(page.height))
        ref = PageRef(sheet["file"], sheet["page_index"], "cd" * 32, PageKind.PDF_TEXT, *size)
        return read_text_page(page, ref)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layouts")
    generate_corpus(root, 6, 2, ("born-digital",), variation=Variation(layouts="dev"))
    return root


def test_truth_and_index_record_family_and_split(corpus: Path) -> None:
    index = json.loads((corpus / "index.json").read_text(encoding="utf-8"))
    assert [e["split"] for e in index["entries"]] == ["dev", "dev"]
    for e in index["entries"]:
        truth = json.loads((corpus / e["path"] / "truth.json").read_text(encoding="utf-8"))
        assert truth["layout"]["family"] == e["family"]
        assert truth["layout"]["split"] == e["split"]
        assert truth["variation"]["layouts"] == e["split"]


def test_born_digital_sheets_read_back_as_truth_says(corpus: Path) -> None:
    """Every row, every field (a signature drawn as ink reads as signed), every sheet number;
    on development layouts only (the held-out ones are for the benchmark)."""
    index = json.loads((corpus / "index.json").read_text(encoding="utf-8"))
    for e in index["entries"]:
        folder = corpus / e["path"]
        truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
        ink = truth["layout"]["signature_ink"] != "text"
        for sheet in truth["sheets"]:
            read = _read(folder, sheet)
            assert read.sheet_number_value == sheet["sheet_number"], e["family"]
            assert len(read.lines) == len(sheet["lines"]), e["family"]
            for got, want in zip(read.lines, sheet["lines"], strict=True):
                assert got.blank == want["blank"]
                expect = dict(want["fields"])
                if ink and expect.get("signature"):
                    expect["signature"] = SIGNED
                assert {f.name: f.text for f in got.fields} == expect, (e["family"], got.line_no)


@pytest.mark.parametrize(
    ("kind", "variant"),
    [("independent_nomination", "old-form"), ("improvement_district", "sufficient")],
)
def test_other_kinds_in_development_layouts_read_back(
    tmp_path: Path, kind: str, variant: str
) -> None:
    """The other kinds' signature tables set as a development family sets them: truth says
    which, and the born-digital reader reads every row as truth has it."""
    from synth.kinds import generate_kind

    truth = generate_kind(tmp_path, kind, variant, 5, layouts="dev")
    assert truth["layout"]["split"] == "dev"
    for sheet in truth["sheets"]:
        read = _read(tmp_path, sheet)
        assert read.sheet_number_value == sheet["sheet_number"]
        assert [{f.name: f.text for f in ln.fields} for ln in read.lines] == [
            ln["fields"] for ln in sheet["lines"]
        ]


class _Recorder:
    """A canvas that records where text is drawn (the synthetic generator's calls)."""

    def __init__(self) -> None:
        self.drawn: list[tuple[float, str]] = []

    def setFont(self, *_: object) -> None:  # noqa: N802 (reportlab's name)
        pass

    def drawString(self, x: float, y: float, text: str) -> None:  # noqa: N802
        self.drawn.append((y, text))

    drawRightString = drawCentredString = drawString  # noqa: N815


@pytest.mark.parametrize(("lowest", "at_top"), [(200.0, False), (44.0, True)])
def test_a_foot_caption_is_never_printed_over_the_statement(lowest: float, at_top: bool) -> None:
    # A statement reaching the sheet's foot had "Sheet 2 of 4" printed over its "Date"
    # caption: no print shop sets a form so (a synthetic artefact the reader was measured on).
    # The caption stays FOOT_CLEAR under the statement, else goes to the top of the sheet.
    import dataclasses
    import random as _random

    from synth.sheets import CLASSIC, FOOT_CLEAR, SheetPlan, _draw_number

    layout = dataclasses.replace(
        CLASSIC, number_at="foot-left", number_written=False, number_caption="Sheet {n} of {of}"
    )
    plan = SheetPlan(3, "Elmwood Falls", "Albany", "Local Law 3", (), None, layout=layout, of=4)
    canvas = _Recorder()
    _draw_number(canvas, plan, _random.Random(1), lowest)  # type: ignore[arg-type]
    [(y, text)] = canvas.drawn
    assert text == "Sheet 3 of 4"
    assert y > layout.page[1] / 2 if at_top else y <= lowest - FOOT_CLEAR


def test_every_title_a_family_prints_is_placed_in_its_role() -> None:
    """The reader places each title the generator prints in its column's role (a residence
    beside a town column is its street: the reader joins the two either way)."""
    same = {"street": "residence"}
    for family in FAMILIES:
        for columns in family.column_sets:
            for column in columns:
                for title in column.titles:
                    m = place_title(title)
                    got = None if m is None else same.get(m.role, m.role)
                    assert got == same.get(column.role, column.role), (family.name, title)
