"""The closed-world stage: each unsure field of a line read by OCR, read again as the value
among those it can hold that best explains what the recognizer saw (`score`), or as written
when "none of these" is likelier.

Between reading and matching (`pipeline.run.finish`). Per line, in order:

1. the date, among the days in or near the signing window (`values.date_choices`);
2. the residence, among the register's addresses in the town;
3. the signer's name (the printed name, else the signature's text), among the voters, each
   voter's prior weighted by the probability of their address from step 2, so that a name
   is read first among the people at the address the line gives.

A field given a value becomes `resolved`: its text is the form of the value that explains the
reading best and its confidence the value's probability, so the review rules
(`rules.reading`, with the thresholds chosen for resolved fields) send it to a person when the
probability is too low. A field whose best hypothesis is "none of these" is left as read. A
signature's confidence is its ink test's, so its text is replaced only when the name is sure.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz import process as rf_process

from ..case import CaseConfig
from ..dates import parse_written_date
from ..records import Field, RegisterEntry, Sheet, SignatureLine, Source
from ..rules.reading import RESOLVED_THRESHOLDS, threshold_for
from .score import (
    Params,
    Posterior,
    for_reading,
    frames_costs,
    posterior,
    ranked,
    value_costs,
)
from .sequence import chain_posteriors, joints_with_last
from .values import (
    OUTSIDE_WEIGHT,
    Choices,
    address_choices,
    date_choices,
    date_forms,
    district_choices,
    names_of,
)

__all__ = [
    "PARAMS",
    "Evidence",
    "World",
    "date_evidence",
    "date_params",
    "decide",
    "evidence",
    "line_evidence",
    "outside_cost",
    "params_for",
    "resolve_line",
    "resolve_sheets",
    "sheet_dates",
    "witness_evidence",
    "witnessed_pairs",
    "world_of",
]

log = logging.getLogger(__name__)

# The scorer's calibration per field: the temperature and "none of these" cost that gave the
# truth the highest likelihood on the development fonts (`bench/handwriting.py --fit --cases 4`:
# 237 dates, 235 residences, 246 names, 105 wards, 168 districts). A date's and a name's
# "none" are fitted at most 8 (the bench's NONE_CAP): no development date lies far outside
# the window and no unregistered signer's name is near a voter's, yet such a date or name
# must stay as written. The dates' insertion cost, 1.5, was chosen on the same fonts (a digit
# tesseract drops is common in handwriting); a name's "none" prior is 0.1 (signers who live
# with a voter but are not registered). The name's temperature, 2.0 (was 3.0 read alone),
# was chosen for the name and residence read together (`joint_posteriors`) on the same fonts
# (3 cases, 120 names resolved: 52 at or above the 0.90 threshold against 33 at 3.0, none
# wrong; the likeliest wrong one 0.863; at 1.5, 5 of 67 wrong).
PARAMS: Mapping[str, Params] = {
    "date": Params(
        insert=1.5,
        repeat=0.4,
        temperature=1.0,
        none=8.0,
        frames_weight=0.5,
        lattice_cap=8.0,
        lattice_weight=0.25,
    ),
    "residence": Params(temperature=1.0, none=14.0),
    "name": Params(temperature=2.0, none=8.0, none_per_char=8.0, none_prior=0.1),
    "ward": Params(temperature=3.0, none=20.0),
    "election_district": Params(temperature=3.0, none=4.0),
}
# A date's calibration is its lattices' and the project's recognizer's costs together
# (`Field.frames`, weighted `frames_weight`; the lattices' weighted `lattice_weight`), fitted on
# writing the recognizer was never trained on: the development sheets written in the seven
# calibration fonts (`bench/handwriting.py --fit --fonts calibration --cases 4 --seed 2101`, 158
# dates). Fitted on the fonts it was trained on it trusts itself where it has not learnt the writing
# (held out, dates were once resolved wrong at 0.93-0.98). The temperature stays the lattices' own,
# 1 (a sheet's dates the recognizer did not see keep their posterior), and "none" 8, the cap. The
# lattices weighed in full, as until the fourteenth session (each at its best temperature, 1 or
# 1.5), the recognizer's weights 0.1 / 0.2 / 0.3 / 0.5 gave -log of the truth's probability 0.59 /
# 0.46 / 0.43 / 0.47 nats a date, and 86 / 99 / 108 / 99 dates at or above the 0.816 threshold; the
# lattices weighed 0.25 beside the recognizer's 0.3 / 0.4 / 0.5 / 0.6, 0.18 / 0.15 / 0.16 / 0.18
# nats and 129 / 137 / 143 / 145, none wrong (the lattices at 0.1 the same within 0.01 nats; at 0.5,
# 0.18-0.23). Handwriting is where tesseract's reads explain the days worst: weighed in full, they
# outvote a recognizer that read the date right. 0.25 and 0.5: within 0.01 nats of the best, the
# likeliest wrong date 0.649 (0.17 under the threshold; 0.70 at 0.4, 0.55 at 0.6). The lattices'
# costs of a date the recognizer read are counted up to 8 (`Params.lattice_cap`, "none"'s own):
# where tesseract read the ink as no date at all ("Joo gon" for a witness's 10/08/2026 that the
# recognizer read exactly) its lattices no longer vote every day down below "none of these", which
# left the date as read and its sheet held (SHEET_FIELD_LOW_CONFIDENCE). A sheet whose dates the
# recognizer did not see (its weights missing) is read on the lattices' own calibration,
# LATTICE_DATE, uncapped. A digit the same as the one before it ("11", "22") costs 0.4 to insert,
# not 1.5 (`Params.repeat`): tesseract's LSTM, a CTC reader, merges such a pair with no blank
# between, and a narrow hand leaves none. On the calibration reads (`--fonts calibration --seed
# 2101`, Breip alone), 5 of 13 dates holding such a pair were explained better as the single digit;
# over the 17 pairs of a date and its real neighbour written with one digit more or less, the
# log-likelihood of the truth rose as the cost fell (-10.1 at 1.5, -7.4 at 0.4, -7.1 at 0): 0.4, a
# punctuation mark's, keeps the pair a little dearer than one digit. The recognizer's costs likewise
# do not tell such a pair from one digit (`merges`).
LATTICE_DATE = Params(insert=1.5, repeat=0.4, temperature=1.0, none=8.0)
# A ward's or district's number the project's recognizer read too (`[matching] recognizer`; a
# number only it saw anything in, a "1" tesseract read as nothing, among them): its exact CTC
# costs (weight 1) beside the lattices, at the temperature and "none" fitted with them on
# writing it never trained on, the calibration font (`bench/handwriting.py --fit --fonts
# calibration --cases 4 --seed 2101`: 98 wards, 133 districts). Weights 0 / 0.1 / 0.2 / 0.3 /
# 0.5 / 1: -log of the truth's probability 0.084 / 0.075 / 0.065 / 0.055 / 0.038 / 0.015 nats
# a ward, 0.293 / 0.226 / 0.161 / 0.106 / 0.042 / 0.007 a district; at 1, 98 of 98 wards and
# 127 of 133 districts resolved at 0.5 or more, none wrong (those ride on the address's
# prior: a district's probability to decide by is its RESOLVED_THRESHOLDS' 0.80).
RECOGNIZED_NUMBERS: Mapping[str, Params] = {
    "ward": Params(temperature=1.0, none=20.0, frames_weight=1.0),
    "election_district": Params(temperature=0.7, none=3.0, frames_weight=1.0),
}
# A voter's prior: this share goes to the voters at the line's address (by its probability),
# the rest is spread over every voter.
AT_ADDRESS = 0.9
# Names scored in full: the voters at the likeliest addresses and this many more, the nearest
# to the reading by a quick string measure (all of them in a small village).
NAME_SHORTLIST = 400
ADDRESS_SHORTLIST = 3000
# The prior weight of a witness statement dated after the filing, against one dated before.
AFTER_FILING = 0.05


@dataclass(frozen=True, slots=True)
class World:
    """What a case's fields can say: its dates, its addresses, its voters."""

    dates: Choices
    wards: Choices
    districts: Choices
    addresses: Choices
    voters: tuple[RegisterEntry, ...]
    names: Choices  # the voters' names: value k is voters[k]
    by_address: Mapping[str, tuple[int, ...]]  # address (casefolded) -> indexes into voters
    day_index: Mapping[dt.date, int]  # a day -> its value index in dates
    reference: dt.date  # the day a two-digit or missing year is read near (the filing)
    address_forms: frozenset[str]  # every way the addresses are written, folded


def params_for(ev: Evidence) -> Params:
    """The calibration of one field's evidence: its kind's (a signature's: the name's), its
    "none of these" cost grown with the doubt of what was read (`score.for_reading`); a
    residence read surely, what the read itself costs (`sure_residence_params`)."""
    if _read_surely(ev.field):
        return sure_residence_params(ev.field, len(ev.cost))
    name = "name" if ev.field.name == "signature" else ev.field.name
    if ev.seen and name in RECOGNIZED_NUMBERS:
        return for_reading(RECOGNIZED_NUMBERS[name], ev.field.lattices)
    return for_reading(PARAMS[name], ev.field.lattices)


def _in_town(entries: Sequence[RegisterEntry], town: str) -> list[RegisterEntry]:
    picked = [e for e in entries if e.town_city.casefold() == town.casefold()]
    return picked or list(entries)


def world_of(case: CaseConfig, entries: Sequence[RegisterEntry]) -> World:
    voters = tuple(_in_town(entries, case.municipality.town))
    by_address: dict[str, list[int]] = {}
    for k, e in enumerate(voters):
        by_address.setdefault(" ".join(e.address.split()).casefold(), []).append(k)
    place = case.municipality
    dates = date_choices(case)
    addresses = address_choices(voters)
    return World(
        dates,
        district_choices(place.wards, voters, ward=True),
        district_choices(place.election_districts, voters, ward=False),
        addresses,
        voters,
        names_of(voters),
        {a: tuple(v) for a, v in by_address.items()},
        {d: k for k, d in enumerate(dates.values)},  # type: ignore[misc]
        case.dates.filed,
        frozenset(" ".join(f.split()) for f in addresses.folded),
    )


def _shortlist(choices: Choices, text: str, limit: int) -> list[int]:
    """Indexes of the forms to score: all of them, or the `limit` nearest to the reading."""
    if len(choices.forms) <= limit:
        return list(range(len(choices.forms)))
    hits = rf_process.extract(text.casefold(), choices.folded, scorer=fuzz.ratio, limit=limit)
    return sorted(k for _, _, k in hits)


@dataclass(frozen=True, slots=True)
class Evidence:
    """One field's candidate values, what each costs against the reads, and their priors:
    enough to decide it under any calibration (`decide`; the benchmark fits on these)."""

    field: Field
    choices: Choices
    values: np.ndarray  # value indexes into choices.values
    cost: np.ndarray  # each value's cost (its best form's)
    form: np.ndarray  # each value's best form (index into choices.forms)
    prior: np.ndarray | None
    seen: bool = False  # the project's recognizer's costs are in `cost` (`Field.frames`)


def evidence(
    field: Field,
    choices: Choices,
    forms: Sequence[int],
    params: Params,
    priors: Mapping[int, float] | None = None,
) -> Evidence:
    picked = list(forms)
    extra = [choices.form_costs[k] for k in picked] if choices.form_costs else None
    if field.frames and params.frames_weight and picked:
        # "none of these" costs, beside its own (`params.none`, against the lattices), what
        # the recognizer makes of a string none of the values is: in the posterior the same
        # as every value's cost lowered by as much
        # a doubled digit ("11") the recognizer may have read as one is not told from it
        # by the recognizer (`recognizer._merged`), but by the lattices and the sheet
        written = [choices.forms[k] for k in picked]
        rec = params.frames_weight * frames_costs(field.frames, written, merges=True)
        extra = list(rec if extra is None else np.asarray(extra) + rec)
    else:  # read by tesseract alone: its lattices' costs as they are
        params = replace(params, lattice_cap=math.inf, lattice_weight=1.0)
    values, cost, best = value_costs(
        field.lattices,
        [choices.forms[k] for k in picked],
        [choices.owner[k] for k in picked],
        params,
        extra,
    )
    form = np.asarray(picked)[best] if picked else np.zeros(0, int)
    prior = None
    if priors is not None:
        prior = np.array([priors.get(int(v), 0.0) for v in values])
    seen = bool(field.frames and params.frames_weight and picked)
    return Evidence(field, choices, values, cost, form, prior, seen)


def decide(ev: Evidence, params: Params, post: Posterior | None = None) -> tuple[Field, Posterior]:
    """The field as the likeliest value's best form, its probability as the confidence; as
    read when "none of these" is likelier. `post`: the posterior when it was computed with
    more than the field's own evidence (a sheet's dates together)."""
    post = post or posterior(ev.cost, ev.prior, params)
    best = post.best
    if best is None or best[1] <= post.none:
        return ev.field, post  # "none of these": read as written
    if ev.choices.says_value:
        text = str(ev.choices.values[int(ev.values[best[0]])])
    else:
        text = ev.choices.forms[int(ev.form[best[0]])]
    field = replace(ev.field, text=text, confidence=round(best[1], 3), resolved=True)
    days = [(ev.choices.values[int(ev.values[k])], p) for k, p in post.ranked]
    # a date keeps the days it may be (ISO: str of a date), a ward or district the numbers,
    # a name the voters (ids) it may be (`rules.reading`: whether its doubt changes what the
    # law makes of the line)
    if (
        ev.choices.says_value
        or ev.field.name == "name"
        or all(isinstance(day, dt.date) for day, _ in days)
    ):
        listed = tuple((str(day), round(p, 4)) for day, p in days)
        field = replace(field, alternatives=listed)
    return field, post


def _unsure(f: Field | None) -> bool:
    return (
        f is not None
        and f.source is Source.OCR
        and bool(f.lattices)
        and not f.resolved
        and not _read_surely(f)
    )


def _read_surely(f: Field) -> bool:
    """A residence tesseract read at or above its threshold, its lattices kept
    (`scan.reader._read_cell`): read in the closed world only when it writes none of the
    town's addresses (`_off_register`), "none of these" then costing what the read itself
    does (`sure_residence_params`)."""
    return (
        f.name == "residence"
        and f.source is Source.OCR
        and bool(f.lattices)
        and not f.resolved
        and f.confidence >= threshold_for("residence")
    )


def _off_register(f: Field, world: World) -> bool:
    return " ".join(f.text.split()).casefold() not in world.address_forms


# A residence read surely that writes none of the town's addresses is a sure misread ("S2
# Birch Rd" for 52, "155 Mill St" for 153) or the address of a signer the register lacks, read
# right ("246 Maple Ave" where the register has 86). Its "none of these" is not PARAMS' 14 nats
# (calibrated on unsure reads: it moved such right reads onto register addresses at 0.997),
# but what the read itself costs under its lattices, plus log(N * OFF_REGISTER_PER_ADDRESS)
# for N addresses scored: an address the register has is one of N, a string an off-register
# address writes is one of about OFF_REGISTER_PER_ADDRESS times as many (the house numbers a
# street could have, beside the ones its voters live at). An address then beats the read by
# log(19 * 5) = 4.6 nats less what the lattices charge it beyond the read, whatever the
# town's size: decided (0.949) when it costs 1.6 nats more at most, to a person up to 4.6,
# the read kept beyond. Chosen between the bounds the development reads set (`bench/
# handwriting.py`'s development fonts, seed 9930, 8 cases: no sure read off the register; seed
# 9920's: "155 Mill St" for 153 at 0.48 nats, decided at 1.6 or more; the printed part, seed
# 9931: "246 Maple Ave" read right at 6.2 nats, kept at 26 or less), not fitted.
OFF_REGISTER_PER_ADDRESS = 5.0


def sure_residence_params(f: Field, n: int) -> Params:
    """The calibration of a residence read surely (`_read_surely`) among `n` addresses:
    PARAMS' with "none of these" at the read's own cost under its lattices and
    log(n * OFF_REGISTER_PER_ADDRESS)."""
    params = PARAMS["residence"]
    _, own, _ = value_costs(f.lattices, [f.text], [0], params)
    return replace(params, none=float(own[0]) + math.log(max(1, n) * OFF_REGISTER_PER_ADDRESS))


def _seen_only(f: Field | None) -> bool:
    """A field only the project's recognizer saw anything in (a ward's or district's number
    whose ink tesseract read as nothing)."""
    return (
        f is not None
        and f.source is Source.OCR
        and not f.lattices
        and bool(f.frames)
        and not f.resolved
    )


def line_evidence(
    line: SignatureLine,
    world: World,
    date_params: Params | None = None,
    recognizer: bool = True,
    number_params: Mapping[str, Params] | None = None,
) -> dict[str, Evidence]:
    """The evidence for the line's unsure date (under `date_params`, PARAMS' by default),
    residence and name, the name's priors weighted by the residence's posterior, and its
    ward and district (under `number_params`, PARAMS' by default): with what the project's
    recognizer saw of them when `recognizer` (a number only it saw anything in, too), else
    on tesseract's lattices alone."""
    out: dict[str, Evidence] = {}
    fields = {f.name: f for f in line.fields}
    date = date_evidence(fields.get("date"), world, date_params)
    if date is not None:
        out["date"] = date
    address_p: dict[str, float] = {}
    residence = fields.get("residence")
    sure_off = residence is not None and _read_surely(residence) and _off_register(residence, world)
    if residence is not None and (_unsure(residence) or sure_off):
        forms = _shortlist(world.addresses, residence.text, ADDRESS_SHORTLIST)
        ev = out["residence"] = evidence(residence, world.addresses, forms, PARAMS["residence"])
        post = posterior(ev.cost, None, params_for(ev))
        for k, p in post.ranked:
            address_p[str(world.addresses.values[int(ev.values[k])]).casefold()] = p
    elif residence is not None and not residence.empty:
        address_p[" ".join(residence.text.split()).casefold()] = 1.0
    name = fields.get("name") or fields.get("signature")
    if name is not None and _unsure(name):
        near = {k for a in address_p for k in world.by_address.get(a, ())}
        names = world.names
        shortlist = set(_shortlist(names, name.text, NAME_SHORTLIST))
        shortlist |= {f for f, o in enumerate(names.owner) if o in near}
        n = max(1, len(world.voters))
        priors = {k: (1 - AT_ADDRESS) / n for k in range(len(world.voters))}
        for a, p in address_p.items():
            at = world.by_address.get(a, ())
            for k in at:
                priors[k] += AT_ADDRESS * p / len(at)
        out[name.name] = evidence(name, names, sorted(shortlist), PARAMS["name"], priors)
    for key, choices in (("ward", world.wards), ("election_district", world.districts)):
        number = fields.get(key)
        params = (number_params or PARAMS)[key]
        if recognizer and number_params is None and number is not None and number.frames:
            params = RECOGNIZED_NUMBERS[key]
        params = params if recognizer else replace(params, frames_weight=0.0)
        # a number only the recognizer saw anything in is read on what it saw, if weighed
        seen = _unsure(number) or (bool(params.frames_weight) and _seen_only(number))
        if number is not None and seen and choices.values:
            priors = _district_priors(world, choices, address_p, key)
            out[key] = evidence(number, choices, range(len(choices.forms)), params, priors)
    return out


def _district_priors(
    world: World, choices: Choices, address_p: Mapping[str, float], key: str
) -> dict[int, float]:
    """A ward's or district's prior: AT_ADDRESS of it follows the line's address (the register
    places each address in one), the rest is spread over all of them."""
    index = {v: k for k, v in enumerate(choices.values)}
    priors = {k: (1 - AT_ADDRESS) / len(index) for k in index.values()}
    for a, p in address_p.items():
        at = world.by_address.get(a, ())
        for k in at:
            value = getattr(world.voters[k], key)
            v = index.get(value.lstrip("0") or value)
            if v is not None:
                priors[v] += AT_ADDRESS * p / len(at)
    return priors


def _logsumexp(x: np.ndarray) -> float:
    top = float(x.max())
    return top + math.log(float(np.exp(x - top).sum()))


def joint_posteriors(
    world: World, residence: Evidence, name: Evidence
) -> tuple[Posterior, Posterior]:
    """The residence's and the name's posteriors read together: a registered signer writes
    their own address, so the line is one of the voters (name and address both explained), or
    someone not registered at one of the addresses, or a voter writing an address the register
    does not have, or neither. Each field's posterior sums the hypotheses that give it a value
    ("none of these": those that give it none). Priors: a signer not registered
    `name.none_prior`, an address not on the register `residence.none_prior`; a voter, and an
    address for the unregistered, uniform."""
    pr, pn = params_for(residence), params_for(name)
    log_r = -residence.cost / pr.temperature
    log_n = -name.cost / pn.temperature
    r_none, n_none = -pr.none / pr.temperature, -pn.none / pn.temperature
    rho, eps = pn.none_prior, pr.none_prior
    n_voters, n_addr = max(1, len(world.voters)), max(1, len(world.addresses.values))
    where = {
        str(world.addresses.values[int(v)]).casefold(): k for k, v in enumerate(residence.values)
    }
    # each of the name's values (a voter) -> its address's place among the residence's values
    at = np.array(
        [
            where.get(" ".join(world.voters[int(v)].address.split()).casefold(), -1)
            for v in name.values
        ],
        int,
    )
    known = at >= 0
    log_v = math.log((1 - rho) * (1 - eps) / n_voters) + log_n + np.where(known, log_r[at], -np.inf)
    log_a = math.log(rho * (1 - eps) / n_addr) + log_r + n_none  # not registered, at address a
    log_vx = math.log((1 - rho) * eps / n_voters) + r_none + log_n  # a voter, address not listed
    log_x = math.log(rho * eps) + r_none + n_none
    total = _logsumexp(np.concatenate([log_v, log_a, log_vx, [log_x]]))
    p_v, p_vx = np.exp(log_v - total), np.exp(log_vx - total)
    p_res = np.exp(log_a - total)
    np.add.at(p_res, at[known], p_v[known])
    p_name = p_v + p_vx
    res_none = float(p_vx.sum() + math.exp(log_x - total))
    name_none = float(np.exp(log_a - total).sum() + math.exp(log_x - total))
    return Posterior(ranked(p_res), res_none), Posterior(ranked(p_name), name_none)


def resolve_line(
    line: SignatureLine,
    world: World,
    evidences: Mapping[str, Evidence] | None = None,
    date_post: Posterior | None = None,
) -> SignatureLine:
    """The line with its unsure date, residence and name read in the closed world (its
    evidence given or computed; `date_post`: its date's posterior from the sheet's chain;
    the residence and the name, when both are unsure, together: `joint_posteriors`)."""
    decided: dict[str, Field] = {}
    found = line_evidence(line, world) if evidences is None else evidences
    posts: dict[str, Posterior | None] = {"date": date_post}
    who = "name" if "name" in found else "signature"
    if "residence" in found and who in found:
        posts["residence"], posts[who] = joint_posteriors(world, found["residence"], found[who])
    for name, ev in found.items():
        field, _ = decide(ev, params_for(ev), posts.get(name))
        if name == "signature":
            # The signature's confidence is its ink test's: its text is replaced by the name
            # only when the name is sure, and the field is not marked resolved.
            sure = field.resolved and field.confidence >= RESOLVED_THRESHOLDS["signature"]
            field = replace(ev.field, text=field.text) if sure else ev.field
        decided[name] = field
    return replace(line, fields=tuple(decided.get(f.name, f) for f in line.fields))


def sure_day(field: Field | None, world: World, reference: dt.date) -> int | None:
    """The index among the world's days of a date read surely (not unsure), else None."""
    if field is None or field.empty or _unsure(field):
        return None
    day = parse_written_date(field.text, reference)
    return world.day_index.get(day) if day is not None else None


def _date_costs(field: Field, choices: Choices, params: Params, weights: bool) -> Evidence:
    """A date's evidence among `choices` (all their forms), under `params`: a date the
    recognizer did not see (tesseract was sure of it) keeps the posterior its lattices alone
    give it (LATTICE_DATE's), under the sheet's calibration."""
    priors = dict(enumerate(choices.weights)) if weights else None
    ev = evidence(field, choices, range(len(choices.forms)), params, priors)
    if params.frames_weight and not field.frames:
        scale = params.temperature / LATTICE_DATE.temperature
        ev = replace(ev, cost=(ev.cost - params.none) * scale + params.none)
    return ev


# A date outside the signing window and its margins is a defect to find, not to correct away
# (the "read as written"): the real days this many years either side of the window's
# likeliest days, and the day the reading itself says, are scored beside the window's, and
# whichever explains the reads best is counted in "none of these", at the prior of a day in
# the window's margins.
OUTSIDE_YEARS = 2
# The window's likeliest days whose same month and day in other years are scored.
OUTSIDE_NEAREST = 3
# The prior weight of such a day against a day inside the window: a day's in the margins.
# A tenth of it (0.025), tried on the development fonts (seeds 1202 and 8080), sent fewer
# lines to review but let back lines decided on a wrong day (dates right on the lines decided
# 71.4% against 83.3%, seed 8080, recognizer off).
OUTSIDE_DAY_WEIGHT = OUTSIDE_WEIGHT


def _outside_days(field: Field, ev: Evidence, world: World) -> list[dt.date]:
    """Real days outside the world's that the reads may say: the day the text read parses to,
    and the same month and day, OUTSIDE_YEARS either side, of the window's likeliest days."""
    days: dict[dt.date, None] = {}
    said = parse_written_date(field.text, world.reference)
    if said is not None:
        days[said] = None
    for k in np.argsort(ev.cost)[:OUTSIDE_NEAREST]:
        day = world.dates.values[int(ev.values[k])]
        assert isinstance(day, dt.date)
        for shift in range(-OUTSIDE_YEARS, OUTSIDE_YEARS + 1):
            try:
                days[day.replace(year=day.year + shift)] = None
            except ValueError:  # 29 February in a year without one
                continue
    return [d for d in days if d not in world.day_index]


def outside_cost(field: Field, ev: Evidence, world: World, params: Params) -> float:
    """The cost of the likeliest real day outside the world's that the reads may say
    (`_outside_days`), each written only in the forms that give its year (a date written
    without its year is read in the window's); inf when there is none."""
    days = _outside_days(field, ev, world)
    chosen = [(d, date_forms(d, with_year=True)) for d in days]
    choices = Choices(
        tuple(d for d, _ in chosen),
        tuple(f for _, forms in chosen for f in forms),
        tuple(k for k, (_, forms) in enumerate(chosen) for _ in forms),
    )
    if not choices.forms:
        return math.inf
    return float(_date_costs(field, choices, params, weights=False).cost.min())


def _outside_shift(params: Params, outside: float, weights: Sequence[float]) -> float:
    """How much every value's cost rises when "none of these" also holds a day outside the
    window costing `outside`, whose prior is a day's in the window's margins (OUTSIDE_DAY_WEIGHT
    of the `weights` a day inside has): the same in the posterior as adding that day's
    probability to "none of these"'s."""
    if not math.isfinite(outside):
        return 0.0
    t = params.temperature
    none = -params.none / t + math.log(params.none_prior)
    share = (1.0 - params.none_prior) * OUTSIDE_DAY_WEIGHT / max(sum(weights), 1e-300)
    day = -outside / t + math.log(share)
    return float(t * (np.logaddexp(none, day) - none))


def date_evidence(
    field: Field | None, world: World, params: Params | None = None
) -> Evidence | None:
    """An unsure date's evidence among the world's days (None for a date read surely), under
    `params` (PARAMS' by default), "none of these" holding the real days outside them that
    the reads may say (`outside_cost`)."""
    if field is None or not _unsure(field):
        return None
    params = params or PARAMS["date"]
    ev = _date_costs(field, world.dates, params, weights=True)
    shift = _outside_shift(params, outside_cost(field, ev, world, params), world.dates.weights)
    return replace(ev, cost=ev.cost + shift) if shift else ev


def date_params(fields: Sequence[Field | None]) -> Params:
    """The calibration of a sheet's dates: PARAMS' when the recognizer saw any of them, else
    the lattices' alone (LATTICE_DATE)."""
    seen = any(f is not None and f.frames for f in fields)
    return PARAMS["date"] if seen else LATTICE_DATE


def witness_date_field(sheet: Sheet) -> Field | None:
    return sheet.witness.date if sheet.witness is not None else None


def witness_evidence(
    sheet: Sheet, world: World, filed: dt.date, params: Params | None = None
) -> Evidence | None:
    """The witness statement's unsure date among the world's days, a day after the filing
    weighted AFTER_FILING (a sheet's statement is made before the sheet is filed; one dated
    after it is a defect, read when its own evidence is clear)."""
    params = params or PARAMS["date"]
    ev = date_evidence(witness_date_field(sheet), world, params)
    if ev is None:
        return None
    late = np.array([world.dates.values[int(v)] > filed for v in ev.values])  # type: ignore[operator]
    cost = ev.cost - np.where(late, math.log(AFTER_FILING) * params.temperature, 0.0)
    return replace(ev, cost=cost)


def _chain(
    dates: Sequence[tuple[Field | None, Evidence | None]], world: World, reference: dt.date
) -> list[tuple[np.ndarray | None, int | None]]:
    return [(ev.cost if ev is not None else None, sure_day(f, world, reference)) for f, ev in dates]


def sheet_dates(
    dates: Sequence[tuple[Field | None, Evidence | None]],
    world: World,
    reference: dt.date,
    params: Params | None = None,
) -> list[Posterior | None]:
    """The unsure dates' posteriors of one sheet, read together (`sequence`): its lines' in
    order, then the witness statement's, which is dated on or after every line it attests
    (the witness saw each signed)."""
    chain = _chain(dates, world, reference)
    return chain_posteriors(chain, np.asarray(world.dates.weights), params or PARAMS["date"])


# A line's date and its witness's keep the pairs of days of at least this probability
# (`Field.witnessed`), at most WITNESSED_MAX of them; what they leave counts against.
WITNESSED_MIN = 1e-5
WITNESSED_MAX = 3000


def witnessed_pairs(
    dates: Sequence[tuple[Field | None, Evidence | None]],
    world: World,
    reference: dt.date,
    params: Params | None = None,
) -> list[tuple[tuple[str, str, float], ...]]:
    """For each of a sheet's dates (its lines', then its witness statement's last, as for
    `sheet_dates`): the pairs of days it and the witness's unsure date may be together, ISO,
    with their probability, likeliest first (() for a date read surely, or when the witness's
    is)."""
    chain = _chain(dates, world, reference)
    days = world.dates.values
    out: list[tuple[tuple[str, str, float], ...]] = []
    weights = np.asarray(world.dates.weights)
    for joint in joints_with_last(chain, weights, params or PARAMS["date"]):
        if joint is None:
            out.append(())
            continue
        flat = joint.ravel()
        top = np.argsort(-flat)[:WITNESSED_MAX]
        n = joint.shape[1]
        out.append(
            tuple(
                (str(days[k // n]), str(days[k % n]), round(float(flat[k]), 5))
                for k in top
                if flat[k] >= WITNESSED_MIN
            )
        )
    return out


def days_alone(ev: Evidence | None, params: Params) -> tuple[tuple[str, float], ...]:
    """The days a date may be read alone (ISO, likeliest first, as `decide` lists them): its
    own evidence and the window's weights, not its sheet's chain (`Field.alone`)."""
    if ev is None:
        return ()
    post = posterior(ev.cost, ev.prior, params)
    return tuple((str(ev.choices.values[int(ev.values[k])]), round(p, 4)) for k, p in post.ranked)


def _keeping(
    line: SignatureLine,
    witnessed: tuple[tuple[str, str, float], ...],
    alone: tuple[tuple[str, float], ...],
) -> SignatureLine:
    """The line with its resolved date keeping the pairs of days it and its witness's date
    may be (`Field.witnessed`) and the days it may be read alone (`Field.alone`)."""
    date = line.get("date")
    if date is None or not date.resolved or not (witnessed or alone):
        return line
    kept = replace(date, witnessed=witnessed or date.witnessed, alone=alone or date.alone)
    return replace(line, fields=tuple(kept if f is date else f for f in line.fields))


def resolve_sheets(
    sheets: Sequence[Sheet], case: CaseConfig, entries: Sequence[RegisterEntry]
) -> list[Sheet]:
    """Every sheet with its lines' unsure fields, and its witness statement's unsure date, read
    in the closed world of the case's dates and the register's (or roll's) addresses and
    people. Without any entries in memory (a register matched in DuckDB) only the dates, wards
    and districts are."""
    fields = [f for s in sheets for ln in s.lines for f in ln.fields]
    seen = [_unsure(f) or (case.matching.recognizer and _seen_only(f)) for f in fields]
    if not any(seen) and not any(map(_unsure, map(witness_date_field, sheets))):
        return list(sheets)
    world = world_of(case, entries)
    out = []
    for sheet in sheets:
        filled = [ln for ln in sheet.lines if not ln.blank]
        witnessed = witness_date_field(sheet)
        p = date_params([*(ln.get("date") for ln in filled), witnessed])
        p = p if case.matching.recognizer else LATTICE_DATE
        on = case.matching.recognizer
        evidences = [line_evidence(ln, world, p, on) for ln in filled]
        witness_ev = witness_evidence(sheet, world, case.dates.filed, p)
        chain = [(ln.get("date"), ev.get("date")) for ln, ev in zip(filled, evidences, strict=True)]
        chain.append((witnessed, witness_ev))
        *dates, witness_post = sheet_dates(chain, world, case.dates.filed, p)
        pairs = witnessed_pairs(chain, world, case.dates.filed, p)
        read = {
            ln.line_no: _keeping(
                resolve_line(ln, world, ev, post), together, days_alone(ev.get("date"), p)
            )
            for ln, ev, post, together in zip(
                filled, evidences, dates, pairs[: len(filled)], strict=True
            )
        }
        lines = tuple(read.get(ln.line_no, ln) for ln in sheet.lines)
        sheet = replace(sheet, lines=lines)
        if sheet.witness is not None and witness_ev is not None:
            date, _ = decide(witness_ev, p, witness_post)
            sheet = replace(sheet, witness=replace(sheet.witness, date=date))
        out.append(sheet)
    return out
