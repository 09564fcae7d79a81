"""A case's sheet numbers read in their closed world: a sheet's number is one of 1..N (N the
sheets the case has, or the largest number a sheet of it shows for sure, when sheets are
missing), and the numbers of a case's sheets are normally distinct.

Per sheet, the number's reads (`Field.lattices`, `pipeline.scan.sheetno.read_number`: as a
line, as a word and drawn three times; a read that saw nothing in the ink is an empty
lattice, which costs every value alike and so dilutes the others' guess) are scored against
every value 1..K (`score.costs`; a tiled read against the value said three times), beside
"none of these": what the sheet
says may be none of them (a number past the case's sheets), and is then read as written.
Numbers past N keep a smaller prior (BEYOND_PRIOR): a sheet of the filing may be missing.
An unsure number's ink is read by the project's own recognizer too (`Field.frames`,
`pipeline.recognizer`): every value's exact CTC cost, less that of the likeliest string none
of the values is ("none of these" as much as the recognizer doubts its reading, or nothing
when it read a number past them), times `Params.frames_weight`, is added to the value's
cost against tesseract's reads (those counted up to `Params.lattice_cap`, so that reads
that explain no value leave it to the recognizer). Tesseract reads a lone handwritten
digit as nothing, or as another digit even surely; the recognizer, trained on dates and
short numbers written by hand, reads most of them.

A number the reader read surely (`pipeline.scan.sheetno`: two reads agreeing, printed, at
0.85 or more) that the reads' probabilities agree with stands as read. For the others, the
case's evidence, a sheet at a time: a value another sheet holds surely is unlikely for this
one (each value's probability is multiplied by the chance that no other sheet sure of its
own number, as `_sure_values` counts them, holds it: an unsure sheet's guess takes nothing).
This raises the confidence of a sheet whose reads hesitate between a value another sheet
holds and one no sheet does, and lowers it where it hesitates towards a value taken. And the
stack's order: a sheet is likely numbered one past the sheet before it and one short of the
sheet after it, as likely as the case's surely read neighbours say (`_order_evidence`: a
case scanned out of order learns that its order says little). A
duplicate or a gap is never corrected away: the case's evidence may choose another value
only among those the sheet's own reads give at least SWITCH_FLOOR; otherwise the sheet
keeps its own reading at its (low) confidence and goes to a person, and
`rules.common.check_sheet_numbers` reports the duplicate or the gap (REVIEW, NOTE). A value
two sheets end up read as is no resolved sheet's for sure (SHARED_CAP): which of the two it
is the case cannot say (a written 8 both readers take for a 9, beside the 9); nor is a value
a sheet was read as when the case's evidence read it, unsurely, as another.

A number given a value becomes `resolved` with the value's probability as its confidence;
the review threshold (`rules.reading.FIELD_THRESHOLDS["sheet_number"]`) decides the rest.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..records import Field, Sheet, Source, sheet_number_parts
from ..rules.reading import threshold_for
from .score import Params, costs, frames_costs

__all__ = ["NUMBER_PARAMS", "number_probabilities", "resolve_numbers", "resolve_sheet_numbers"]

log = logging.getLogger(__name__)

# The scorer's calibration for sheet numbers, chosen on the development layouts (seed 31:
# the most numbers right at 0.85 with none wrong, and no wrong value above 0.70 either; a
# grid over floor, temperature, "none", BEYOND_PRIOR, SWITCH_FLOOR and how reads combine).
# The reads of one number are one piece of evidence seen three ways, so their costs are
# averaged ("mean"), not mixed. The recognizer's weight, with the temperature, the lattices'
# cap and "none", on development seeds 31 and 35 together (`bench/sheet_numbers.py c31 c35
# --fit`, 186 sheets, 2026-12-02): at temperature 1 the weights 0 / 0.25 / 0.5 / 1 / 2 give
# 137 / 176 / 180 / 182 / 181 right, none wrong, the likeliest wrong value 0.50 / 0.06 /
# 0.09 / 0.17 / 0.30. 0.5: the development hands are mostly those the recognizer trained on
# (the DKG faces), and on writing it did not see its probabilities were too sure for dates
# (README "A second reader for dates"), so the smaller of the weights that read nearly all.
# Temperature 0.6 reads as many but sharpens tesseract's own reads too; the cap and "none"
# change nothing between 6 and 10. Refitted with the recognizer trained on 26 more hands
# (2026-12-07) on the development layouts 1101, 1103, 1109 (280 scanned sheets; the same
# grid, `--fit`): the weights 0 / 0.5 / 1 / 1.5 / 2 / 3 read 261 / 275 / 275 / 275 / 276 /
# 276 right, none wrong; the likeliest wrong value, each case's sheets shuffled five ways,
# 0.52 / 0.50 / 0.06 / 0.01 / 0.00 / 0.00. 2: the first of the most right, the surest margin.
NUMBER_PARAMS = Params(
    temperature=1.0, none=8.0, combine="mean", frames_weight=2.0, lattice_cap=8.0
)
BEYOND = 2  # values past the case's sheets (and past any number read surely) scored
BEYOND_PRIOR = 0.25  # their prior weight, against 1 for a value within the case's sheets
SWITCH_FLOOR = 0.2  # the case's evidence chooses only among values the reads give this much
SHARED_CAP = 0.5  # the confidence of a resolved number another sheet is read as too
TILES = 3  # `pipeline.scan.cells.tile`: a tiled read says the number this many times
# The prior on the share of neighbouring sheets numbered one apart (`_order_evidence`), as
# counts (one apart, not): 0.2 where no two neighbours are sure, which a case's sure pairs soon
# outweigh. Chosen on the development corpora (1061, 1069, 1075, 1081, 2026-12-06): (1, 2),
# (1, 4), (0.5, 4) read as many right (336 of 346) with none wrong, shuffled too; on
# tesseract's reads alone (the recognizer's weight 0, where an unsure sheet's own reads are
# worst) (1, 2) made one more wrong at 0.86 and (0.5, 4) one at 0.88, (1, 4) none (0.84 at most).
ORDER_PRIOR = (1.0, 4.0)
SURE_OWN = 0.95  # a neighbour whose own reads give its value this much counts towards `rho`


def _label(field: Field) -> str:
    number = field.text.partition(" of ")[0]
    return re.sub(r"[\s_#]*\d[\d\s_]*$", "", number).strip()


def _value(field: Field | None) -> int | None:
    return sheet_number_parts(field)[0]


def _of(field: Field) -> str:
    """The field's " of M" (the number of sheets it prints), or ""."""
    total = sheet_number_parts(field)[1]
    return "" if total is None else f" of {total}"


def number_probabilities(
    field: Field, top: int, within: int, params: Params | None = None
) -> np.ndarray:
    """The probability of each value 1..`top` (index 0 is "none of these") given the sheet's
    reads: its lattices scored against the values, or, without lattices, its read value at
    its confidence. Values past `within` have the prior BEYOND_PRIOR."""
    params = params or NUMBER_PARAMS
    values = [str(n) for n in range(1, top + 1)]
    prior = np.array([1.0 if n <= within else BEYOND_PRIOR for n in range(1, top + 1)])
    if not field.lattices and not (field.frames and params.frames_weight):
        out = np.zeros(top + 1)
        v = _value(field)
        conf = field.confidence if v is not None and 1 <= v <= top else 0.0
        if conf:
            out[v] = conf  # type: ignore[index]
        out[0] = 1.0 - conf
        return out
    cost = _lattice_costs(field, values, params)
    if field.frames and params.frames_weight:
        cost = np.minimum(cost, params.lattice_cap) + params.frames_weight * frames_costs(
            field.frames, values
        )
    weight = prior / prior.sum() * (1.0 - params.none_prior)
    logits = np.concatenate(
        ([-params.none / params.temperature + math.log(params.none_prior)],
         -cost / params.temperature + np.log(weight))
    )  # fmt: skip
    probs = np.exp(logits - logits.max())
    return probs / probs.sum()


def _lattice_costs(field: Field, values: Sequence[str], params: Params) -> np.ndarray:
    """Each value's cost against tesseract's reads of the number (each read explained by the
    value said once or, a tiled read, TILES times)."""
    if not field.lattices:  # the recognizer's reads alone: tesseract's say nothing of any value
        return np.full(len(values), params.none)
    forms = [*values, *(v * TILES for v in values)]
    stack = np.stack(
        [costs(lat, forms, params).reshape(2, len(values)).min(axis=0) for lat in field.lattices]
    )
    if params.combine == "mean":
        return stack.mean(axis=0)
    # each read equally likely to be the one that saw it right (`score.mixed_costs`)
    low = stack.min(axis=0)
    return low - np.log(np.exp(-(stack - low)).mean(axis=0))


def _order_evidence(own: np.ndarray, stands: set[int]) -> np.ndarray:
    """Each sheet's likelihood of each value 1..top (relative to no evidence: 1) from its
    neighbours in the case's order (files by name, pages in order: how a stack is scanned):
    a sheet is numbered one past the sheet before it, and one short of the sheet after it,
    with probability `rho`, else anything. `rho` is the case's own: the share of neighbouring
    pairs both read surely (`_sure_values`) that are numbered one apart, under a prior of
    ORDER_PRIOR (a case scanned out of order has a small `rho`, and its order says little).
    A neighbour's evidence is its own reads' probabilities (`own`), not what they resolve to,
    so an unsure neighbour says as little as it knows and no sheet's doubt feeds back on
    itself. The first sheet's "neighbour before" is the number 0 (9-902(8): sheets "numbered
    consecutively beginning with number one", statutes/village-law-9-902-referendum-petition.txt).
    A gap or a duplicate beside an unsure sheet is never made up: a value its own reads give
    under SWITCH_FLOOR is not chosen (`resolve_numbers`)."""
    n, width = own.shape
    top, values = width - 1, own[:, 1:]  # values[k, v - 1]: P(sheet k is v)
    sure = _sure_values(own, stands)
    pairs = [(a, b) for a, b in zip(sure, sure[1:], strict=False) if a and b]
    yes, no = ORDER_PRIOR
    rho = (yes + sum(b == a + 1 for a, b in pairs)) / (yes + no + len(pairs))
    from_before = np.zeros((n, top))  # [k, v - 1]: P(sheet k - 1 is v - 1)
    from_before[1:, 1:] = values[:-1, :-1]
    from_before[0, 0] = 1.0  # the first sheet follows "sheet 0"
    from_after = np.zeros((n, top))  # [k, v - 1]: P(sheet k + 1 is v + 1)
    from_after[:-1, :-1] = values[1:, 1:]
    # P(sheet k is v | a neighbour) against no evidence: rho * P(neighbour fits) * top + 1 - rho
    return (rho * from_before * top + (1 - rho)) * (rho * from_after * top + (1 - rho))


def _sure_values(own: np.ndarray, stands: set[int]) -> list[int | None]:
    """Each sheet's value where it stands as read or its own reads give it SURE_OWN or more."""
    out: list[int | None] = []
    for k, p in enumerate(own):
        v = int(p.argmax())
        out.append(v if v and (k in stands or p[v] >= SURE_OWN) else None)
    return out


def resolve_sheet_numbers(sheets: Sequence[Sheet]) -> list[Sheet]:
    """The case's sheets with their OCR-read numbers read among 1..K and against each other
    (`resolve_numbers`)."""
    numbers = resolve_numbers([s.sheet_number for s in sheets])
    return [
        s if f is s.sheet_number else replace(s, sheet_number=f)
        for s, f in zip(sheets, numbers, strict=True)
    ]


def resolve_numbers(fields: Sequence[Field | None], order: bool = True) -> list[Field | None]:
    """A case's sheet numbers (None: a sheet without one) in the case's order, those read by
    OCR read among 1..K, against each other and, with `order`, by their neighbours
    (`_order_evidence`; see the module's docstring); the others, and numbers whose likeliest
    reading is "none of these", as they were."""
    ocr = [k for k, f in enumerate(fields) if f is not None and f.source is Source.OCR]
    if not ocr:
        return list(fields)
    # the case's sheets, or as many as a sheet says the petition has ("Page 3 of 12", read
    # surely: `pipeline.scan.reader`), where sheets are missing
    within = max([len(fields), *(sheet_number_parts(f)[1] or 0 for f in fields)])
    sure = [
        v
        for f in fields
        if f is not None and f.confidence >= threshold_for("sheet_number")
        if (v := _value(f)) is not None
    ]
    top = max([within, *sure]) + BEYOND
    own = np.stack(
        [
            number_probabilities(f, top, within) if f is not None else np.eye(top + 1)[0]
            for f in fields
        ]
    )
    # a number the reader read surely, that its reads' probabilities agree with, stands: a
    # duplicate of it is the numbering rule's finding, not a doubt about the reading
    stands = set()
    for k in ocr:
        field, v = fields[k], _value(fields[k])
        assert field is not None
        if v is None or field.confidence < threshold_for("sheet_number"):
            continue
        if 1 <= v <= top and own[k].argmax() == v:
            stands.add(k)  # its evidence for the others: the reader's confidence at least
            own[k] *= (1.0 - field.confidence) / max(1e-9, 1.0 - own[k][v])
            own[k][v] = max(field.confidence, own[k][v])
            own[k] /= own[k].sum()
    # log of the chance that no sheet sure of its value holds each value, and each sheet's
    # share of it. A sheet unsure of its own number says nothing of which numbers are taken:
    # its reads' guess, counted as evidence against that value for the others, made a sheet
    # whose handwritten 1 both readers missed "hold" the 4 it leaned to, and the real 4 beside
    # it was read as 1 surely (held-out 1115).
    sure_own = {k for k, v in enumerate(_sure_values(own, stands)) if v}
    free = np.log(np.clip(1.0 - own[:, 1:], 1e-9, 1.0))
    free[[k for k in range(len(fields)) if k not in sure_own]] = 0.0
    others = free.sum(axis=0) - free
    by_order = _order_evidence(own, stands) if order else np.ones((len(fields), top))
    out = list(fields)
    for k in ocr:
        field = fields[k]
        assert field is not None
        p = own[k]
        if k in stands or p.argmax() == 0:
            continue  # read surely, or none of these: as read
        joint = p.copy()
        joint[1:] = p[1:] * np.exp(others[k]) * by_order[k]
        joint /= joint.sum()
        best = int(p[1:].argmax()) + 1
        pick = int(joint[1:].argmax()) + 1
        if p[pick] < SWITCH_FLOOR:
            pick = best
        conf = round(float(joint[pick]), 3)
        if pick != _value(field):
            log.debug("sheet %d: number %r read as %d (%.3f)", k, field.text, pick, conf)
        text = f"{_label(field)} {pick}".strip() + _of(field)
        out[k] = replace(field, text=text, confidence=conf, resolved=True)
    # a value two sheets are read as is no resolved sheet's for sure: either may be the other
    # number (a written 8 that reads as a 9 beside the 9), and which one the case's evidence
    # cannot say. They go to a person, as read (the numbering rule reports the duplicate).
    # So is the value a sheet was read as when the case's evidence read it as another, not
    # surely: fresh held-out 1147, two sheets printed 5, the first read "5" at 0.68 and taken
    # for 4 at 0.03 (its reads and the recognizer's leaning to 4), the second then read 5 at
    # 1.0 by the stack's order, its lines decided with the duplicate hidden. (A sheet the
    # evidence reads as another value surely no longer says its first reading: dev 1103, a
    # "5" read 3 at 1.0 beside the real 5.)
    claimed = Counter(_value(f) for f in out)
    for k in ocr:
        read_as, now = _value(fields[k]), out[k]
        unsure = now is not None and now.confidence < threshold_for("sheet_number")
        if unsure and read_as is not None and read_as != _value(now):
            claimed[read_as] += 1
    for k in ocr:
        f = out[k]
        if f is not None and f.resolved and k not in stands and claimed[_value(f)] > 1:
            out[k] = replace(f, confidence=min(f.confidence, SHARED_CAP))
    return out
