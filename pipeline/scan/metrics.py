"""How well scans were read, against a synthetic case's truth.json: character error rate per
column, lines found and invented, blank lines taken for signatures, sheet numbers and stated
counts. Used by the tests and by bench/scan_speed.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz.distance import Levenshtein

from ..records import Sheet
from ..rules.reading import threshold_for

__all__ = ["Accuracy", "cer", "compare_to_truth", "normalize_for_cer"]


def normalize_for_cer(text: str) -> str:
    """Whitespace collapsed: CER counts characters, not layout."""
    return " ".join(text.split())


def cer(reference: str, hypothesis: str) -> float:
    """Character error rate: edits to turn hypothesis into reference, per reference character.
    An empty reference gives 0.0 for an empty hypothesis and 1.0 otherwise."""
    ref, hyp = normalize_for_cer(reference), normalize_for_cer(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return Levenshtein.distance(ref, hyp) / len(ref)


@dataclass(slots=True)
class Accuracy:
    sheets: int = 0
    lines_truth: int = 0
    lines_found: int = 0
    lines_invented: int = 0
    lines_missing: int = 0
    blank_as_signed: int = 0  # truth blank, read as filled
    signed_as_blank: int = 0
    sheet_numbers_right: int = 0
    counts_right: int = 0
    counts_flagged: int = 0  # wrong (or missing) but with low confidence: sent to review
    counts_wrong_unflagged: int = 0
    errors: dict[str, int] = field(default_factory=dict)  # column -> edit distance
    chars: dict[str, int] = field(default_factory=dict)  # column -> reference characters
    low_conf_wrong: int = 0  # fields read wrong but flagged (below the rule's threshold)
    wrong_unflagged: int = 0  # fields read wrong at or above the threshold
    fields: int = 0
    problems: list[str] = field(default_factory=list)

    def cer(self, column: str) -> float:
        n = self.chars.get(column, 0)
        return self.errors.get(column, 0) / n if n else 0.0

    def add(self, column: str, reference: str, hypothesis: str) -> None:
        ref, hyp = normalize_for_cer(reference), normalize_for_cer(hypothesis)
        self.errors[column] = self.errors.get(column, 0) + Levenshtein.distance(ref, hyp)
        self.chars[column] = self.chars.get(column, 0) + max(1, len(ref))


def _key(path: str, case_dir: Path) -> str:
    try:
        return Path(path).resolve().relative_to(case_dir.resolve()).as_posix()
    except ValueError:
        return Path(path).name


def compare_to_truth(sheets: Sequence[Sheet], truth: Mapping[str, Any], case_dir: Path) -> Accuracy:
    """Score sheets read from a synthetic case against its truth.json. A field counts as
    flagged when its confidence is below the FIELD_LOW_CONFIDENCE rule's threshold for it."""
    acc = Accuracy()
    read = {(_key(s.page.path, case_dir), s.page.page_index): s for s in sheets}
    for t in truth["sheets"]:
        acc.sheets += 1
        sheet = read.get((t["file"], t["page_index"]))
        acc.lines_truth += len(t["lines"])
        if sheet is None:
            acc.lines_missing += len(t["lines"])
            acc.problems.append(f"{t['file']}#{t['page_index']}: not read")
            continue
        acc.lines_found += min(len(sheet.lines), len(t["lines"]))
        acc.lines_invented += max(0, len(sheet.lines) - len(t["lines"]))
        acc.lines_missing += max(0, len(t["lines"]) - len(sheet.lines))
        if sheet.sheet_number_value == t["sheet_number"]:
            acc.sheet_numbers_right += 1
        else:
            acc.problems.append(f"sheet {t['sheet_number']}: number read {sheet.sheet_number}")
        stated = t["witness"]["stated_count"] if t.get("witness") else None
        got = sheet.witness.stated_count if sheet.witness else None
        got_value = sheet.witness.stated_count_value if sheet.witness else None
        if got_value == stated:
            acc.counts_right += 1
        elif got is None or got.confidence < threshold_for("stated_count"):
            acc.counts_flagged += 1
        else:
            acc.counts_wrong_unflagged += 1
            acc.problems.append(f"sheet {t['sheet_number']}: count {got.text!r} != {stated}")
        for line, tl in zip(sheet.lines, t["lines"], strict=False):
            if tl["blank"] and not line.blank:
                acc.blank_as_signed += 1
                acc.problems.append(f"sheet {t['sheet_number']} line {line.line_no}: blank read")
            if not tl["blank"] and line.blank:
                acc.signed_as_blank += 1
            for name, ref in tl["fields"].items():
                f = line.get(name)
                hyp = f.text if f is not None else ""
                if name == "signature":  # judged by presence, not by its text
                    ref, hyp = ("x" if ref else ""), ("x" if hyp.strip() else "")
                acc.add(name, ref, hyp)
                acc.fields += 1
                if normalize_for_cer(ref) != normalize_for_cer(hyp):
                    conf = f.confidence if f is not None else 0.0
                    if conf < threshold_for(name):
                        acc.low_conf_wrong += 1
                    else:
                        acc.wrong_unflagged += 1
                        acc.problems.append(
                            f"sheet {t['sheet_number']} line {line.line_no} {name}: "
                            f"{hyp!r} != {ref!r} (conf {conf:.2f})"
                        )
    return acc
