"""Fuzzing the parsers of what a user gives (hypothesis, bounded in time for CI): the case file,
the register, the assessment roll and the decisions file. Whatever the bytes, each either
reads or raises the project's own error (a clear message and an exit code), never anything
else; and a register read loses no row. The inputs are random; the seeds of structure come
from the bundled synthetic fixtures."""

from __future__ import annotations

import contextlib
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchers.assessment_roll import read_roll
from matchers.register import read_register
from pipeline.case import RegisterConfig, RollConfig, load_case, parse_case
from pipeline.decisions import load_decisions
from pipeline.errors import PetitionError

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo"
DEMO_CASE = tomllib.loads((DEMO / "case.toml").read_text(encoding="utf-8"))
REGISTER_ROWS = (DEMO / "register.csv").read_text(encoding="utf-8").splitlines()[:6]
ROLL = REPO / "fixtures" / "kinds" / "improvement_district-sufficient" / "roll.csv"
ROLL_ROWS = ROLL.read_text(encoding="utf-8").splitlines()[:6]
DECISION = (
    '{"line_id": "3f2a9c01be77-04", "action": "accept", "reviewer": "clerk@elmwood", '
    '"decided_at": "2026-10-12T14:03:00+00:00"}'
)

FUZZ = settings(
    max_examples=40,
    deadline=2000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.dates(),
    st.lists(st.text(max_size=5), max_size=3),
)


def _mutated(lines: list[str], data: st.DataObject) -> bytes:
    """Structure-aware noise: rows kept, cut, repeated, with random text or bytes spliced in."""
    out = []
    for line in data.draw(st.lists(st.sampled_from(lines), min_size=1, max_size=12)):
        cut = data.draw(st.integers(0, len(line)))
        noise = data.draw(st.text(alphabet=st.characters(codec="utf-8"), max_size=8))
        out.append((line[:cut] + noise + line[cut:]).encode("utf-8"))
    raw = b"\n".join(out)
    if data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + data.draw(st.binary(max_size=8)) + raw[at:]
    return raw


def _file(tmp_path: Path, name: str, raw: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(raw)
    return path


@FUZZ
@given(raw=st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_case_file_bytes(tmp_path, raw):
    with contextlib.suppress(PetitionError):
        load_case(_file(tmp_path, "case.toml", raw))


@FUZZ
@given(
    section=st.sampled_from(["", "dates", "municipality", "register", "limits", "denominator"]),
    key=st.sampled_from(
        ["filed", "adopted", "previous_general_election", "town", "path", "electors",
         "pages_per_file", "name", "kind", "sheets", "election_districts", "format"]
    ),
    value=SCALARS,
)  # fmt: skip
def test_case_file_values(tmp_path, section, key, value):
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in DEMO_CASE.items()}
    (data.setdefault(section, {}) if section else data)[key] = value
    (tmp_path / "sheets").mkdir(exist_ok=True)
    with contextlib.suppress(PetitionError):
        parse_case(data, tmp_path)


@FUZZ
@given(data=st.data(), fmt=st.sampled_from(["nysboe", "csv"]))
def test_register(tmp_path, data, fmt):
    columns = {"voter_id": "SBOEID", "last_name": "LASTNAME", "first_name": "FIRSTNAME"}
    header = ",".join(columns.values()) if fmt == "csv" else ""
    lines = REGISTER_ROWS if fmt == "nysboe" else [header, "NY1,CARTER,ANN", "NY2,DOE,JO"]
    path = _file(tmp_path, "register.csv", _mutated(lines, data))
    cfg = RegisterConfig(path=path, format=fmt, columns=columns if fmt == "csv" else {})
    try:
        read = read_register(cfg)
    except PetitionError:
        return
    assert read.rows_read == len(read.entries) + len(read.bad_rows)


@FUZZ
@given(data=st.data())
def test_roll(tmp_path, data):
    path = _file(tmp_path, "roll.csv", ROLL_ROWS[0].encode() + b"\n" + _mutated(ROLL_ROWS, data))
    try:
        read = read_roll(RollConfig(path=path))
    except PetitionError:
        return
    assert read.rows_read >= len(read.bad_rows)


@FUZZ
@given(data=st.data())
def test_decisions(tmp_path, data):
    path = _file(tmp_path, "decisions.jsonl", _mutated([DECISION, "", "{}", "[1, 2]"], data))
    with contextlib.suppress(PetitionError):
        load_decisions(path)


@settings(FUZZ, max_examples=4, deadline=None)
@given(data=st.data())
def test_register_imported_into_duckdb_loses_no_line(tmp_path, data):
    """The import of a register of 64 MB or more (matchers.store): every line with something on
    it is an entry or a bad row (a header row aside), or the file is refused with a clear line."""
    from matchers.store import open_store

    raw = _mutated(REGISTER_ROWS, data)
    path = _file(tmp_path, "register.csv", raw)
    cache = tmp_path / f"cache-{hash(raw)}"
    try:
        store = open_store(RegisterConfig(path=path, format="nysboe"), cache, memory_limit="256MB")
    except PetitionError:
        return
    try:
        info = store.info
        lines = [ln for ln in raw.split(b"\n") if ln.strip(b"\r")]
        assert info.rows_read == info.entries + info.bad_rows >= len(lines)
    finally:
        store.close()
