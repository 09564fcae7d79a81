"""The finding-code catalogue (pipeline/codes.py) against the code base, the README, the report
schema and the fixtures: every code a finding can carry is catalogued, every catalogued code is
emitted somewhere, and what is generated from the catalogue is up to date.

Emitted codes are found by reading the source (ast), not by running it: the code argument of
every `finding(...)`, `ctx.finding(...)` and `Finding(...)` call, and the value of a `"code"` key
in a dict display (an objection's ground the report writes itself). A code passed through a name
(a loop over a table of codes, a module constant, a table passed to a shared check) is found
among the string literals of the modules that make finding calls: every UPPER_SNAKE literal of
such a module, other than its `__all__`, is taken for a code. A code built at run time (an
f-string, a concatenation) cannot be checked and fails.

The fixtures used here are the repository's synthetic ones; no real person's data."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TypeGuard

import jsonschema
import pytest

from pipeline import codes
from pipeline.case import PetitionKind, load_case
from pipeline.codes import CATALOGUE, CODE_PATTERN, Scope
from pipeline.records import Finding, PageKind, Severity, SufficiencyReport

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pipeline", "matchers", "flows", "dashboard")
FINDING_CALLS = {"finding", "Finding"}
CODE_SHAPE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")

# Codes catalogued for another helper's branch that is not merged yet: nothing on this branch
# emits them. Remove a line when its branch is merged (the test below says when).
AWAITING_MERGE: dict[str, str] = {}


def _modules() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path != ROOT / "pipeline" / "codes.py":
                yield path


def _code_argument(call: ast.Call) -> ast.expr | None:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if name not in FINDING_CALLS:
        return None
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "code"), None)


def _is_str(node: ast.expr | None) -> TypeGuard[ast.Constant]:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _all_names(tree: ast.Module) -> set[ast.AST]:
    """The string nodes of the module's `__all__`: names, not codes."""
    out: set[ast.AST] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            out.update(ast.walk(node.value))
    return out


def scan() -> tuple[dict[str, set[str]], list[str]]:
    """(code -> the modules emitting it, the calls whose code cannot be read from the source)."""
    emitted: dict[str, set[str]] = {}
    unreadable: list[str] = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = str(path.relative_to(ROOT))
        calls = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):  # a ground written into the report: {"code": ...}
                for key, value in zip(node.keys, node.values, strict=True):
                    if _is_str(key) and key.value == "code" and _is_str(value):
                        emitted.setdefault(value.value, set()).add(where)
            if not isinstance(node, ast.Call) or (arg := _code_argument(node)) is None:
                continue
            calls = True
            if _is_str(arg):
                emitted.setdefault(arg.value, set()).add(where)
            elif not isinstance(arg, ast.Name | ast.Attribute):
                unreadable.append(f"{where}:{node.lineno}: {ast.unparse(arg)}")
        if calls:  # codes in tables, constants and arguments of shared checks
            names = _all_names(tree)
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and CODE_SHAPE.match(node.value)
                    and node not in names
                ):
                    emitted.setdefault(node.value, set()).add(where)
    return emitted, unreadable


@pytest.fixture(scope="module")
def scanned() -> tuple[dict[str, set[str]], list[str]]:
    return scan()


def test_every_code_the_code_base_emits_is_catalogued(scanned) -> None:
    emitted, unreadable = scanned
    assert not unreadable, f"codes built at run time (write each code as a literal): {unreadable}"
    missing = {c: sorted(w) for c, w in emitted.items() if c not in CATALOGUE}
    assert not missing, f"add these codes to pipeline/codes.py: {missing}"


def test_every_catalogued_code_is_emitted_somewhere(scanned) -> None:
    emitted, _ = scanned
    dead = sorted(set(CATALOGUE) - set(emitted) - set(AWAITING_MERGE))
    assert not dead, f"nothing emits these catalogued codes (remove them): {dead}"
    merged = sorted(set(AWAITING_MERGE) & set(emitted))
    assert not merged, f"these codes are emitted now: remove them from AWAITING_MERGE: {merged}"
    assert set(AWAITING_MERGE) <= set(CATALOGUE)


def test_catalogue_entries_are_well_formed() -> None:
    for code, entry in CATALOGUE.items():
        assert entry.code == code and re.match(CODE_PATTERN, code), code
        assert entry.description.strip() and entry.uses, code
        for use in entry.uses:
            assert use.kinds and use.severities and use.rule.strip() and use.citation, code
        for kind in PetitionKind:  # one use per kind: a kind's severity and rule are unambiguous
            assert len(entry.uses_for(kind)) <= 1, (code, kind)


def test_readme_tables_are_generated_from_the_catalogue() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert codes.render_readme(text) == text, "run: python -m pipeline.codes --readme"
    for code in CATALOGUE:
        assert f"`{code}`" in text, code


def test_the_command_rewrites_and_checks_the_generated_files(tmp_path: Path) -> None:
    readme, schema = tmp_path / "README.md", tmp_path / "schema.json"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    readme.write_text(text.replace("| `NO_SIGNATURE` | fatal |", "| `NO_SIGNATURE` | note |"))
    raw = (ROOT / "pipeline" / "schema" / "report.schema.json").read_text(encoding="utf-8")
    schema.write_text(raw.replace('"SIGNER_PURGED",', ""))
    paths = ["--readme-path", str(readme), "--schema-path", str(schema)]
    assert codes.main(["--check", *paths]) == 1
    assert codes.main(["--readme", "--schema", *paths]) == 0
    assert codes.main(["--check", *paths]) == 0
    assert readme.read_text() == text and schema.read_text() == raw


def test_readme_table_rows_share_cells_only_between_neighbours() -> None:
    table = codes.table_markdown(codes.TABLES[0])
    assert "| `WARD_MISSING`, `ELECTION_DISTRICT_MISSING` | review |" in table
    assert "| `SIGNER_PURGED` | fatal / review |" in table
    assert "| `SHEET_NUMBERING_GAP` | note (petition) |" in table


def test_schema_lists_the_catalogued_codes() -> None:
    raw = (ROOT / "pipeline" / "schema" / "report.schema.json").read_text(encoding="utf-8")
    schema = json.loads(raw)
    assert codes.schema_text(codes.render_schema(schema)) == raw, (
        "run: python -m pipeline.codes --schema"
    )
    definition = schema["$defs"]["finding_code"]
    assert definition["examples"] == sorted(CATALOGUE)
    validator = jsonschema.Draft202012Validator(
        {"$defs": schema["$defs"], "$ref": "#/$defs/finding_code"}
    )
    for code in CATALOGUE:
        validator.validate(code)
    for bad in ("", "lower_case", "TRAILING_", "WITH SPACE"):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(bad)
    refs = raw.count('"$ref": "#/$defs/finding_code"')
    assert refs == 4  # a finding's and a line finding's code, an objection's, finding_codes


def test_the_fixtures_truth_uses_catalogued_codes() -> None:
    found: set[str] = set()
    for path in (ROOT / "fixtures").rglob("truth.json"):
        found |= set(re.findall(r'"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"', path.read_text("utf-8")))
    assert found and found <= set(CATALOGUE), sorted(found - set(CATALOGUE))


def test_categories_drive_the_verdict_logic() -> None:
    from pipeline.judge import READING_DOUBTS, status_of

    assert {"FIELD_LOW_CONFIDENCE", "SHEET_FIELD_LOW_CONFIDENCE"} <= READING_DOUBTS
    for code in codes.codes_in(codes.Category.READING):
        fatal = Finding("NO_SIGNATURE", Severity.FATAL, "", "m")
        assert status_of([fatal, Finding(code, Severity.REVIEW, "", "m")]).value == "needs_review"
    assert codes.category("SHEET_NOT_READ") is codes.Category.UNREAD


def check_report_against_catalogue(report: SufficiencyReport, kind: PetitionKind) -> None:
    """Each finding's code has a use for the kind, with the finding's severity and scope."""
    scanned = {s.page.page_id for s in report.sheets if s.page.kind is not PageKind.PDF_TEXT}

    def allowed(f: Finding) -> set[Severity]:
        severities = set(CATALOGUE[f.code].severities_for(kind))
        if f.page_id in scanned and Severity.FATAL in severities:
            severities.add(Severity.REVIEW)  # a scanned sheet's fatal defect: a person confirms
        return severities

    def scope(f: Finding) -> Scope:
        (use,) = CATALOGUE[f.code].uses_for(kind)
        return use.scope

    for f in report.findings:
        assert f.severity in allowed(f), (kind, f.code, f.severity)
        want = Scope.SHEET if f.page_id is not None else Scope.PETITION
        assert scope(f) is want, (kind, f.code, f.page_id)
    for j in report.lines:
        for f in j.findings:
            assert f.severity in allowed(f), (kind, f.code, f.severity)
            assert scope(f) in (Scope.LINE, Scope.SHEET), (kind, f.code)


def _check(folder: Path) -> tuple[SufficiencyReport, PetitionKind]:
    from pipeline.run import check_case

    case = load_case(folder / "case.toml")
    return check_case(case), PetitionKind(case.kind)


def test_the_demo_case_findings_agree_with_the_catalogue() -> None:
    report, kind = _check(ROOT / "fixtures" / "demo")
    assert report.findings and kind == PetitionKind.PERMISSIVE_REFERENDUM
    check_report_against_catalogue(report, kind)
    with pytest.raises(AssertionError):  # 9-902's calendar notes are no other kind's
        check_report_against_catalogue(report, PetitionKind.IMPROVEMENT_DISTRICT)


@pytest.mark.slow
@pytest.mark.parametrize(
    "folder", sorted(p.name for p in (ROOT / "fixtures" / "kinds").iterdir() if p.is_dir())
)
def test_each_kinds_fixture_agrees_with_the_catalogue(folder: str) -> None:
    report, kind = _check(ROOT / "fixtures" / "kinds" / folder)
    check_report_against_catalogue(report, kind)
