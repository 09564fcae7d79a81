"""The petition-kind registry: a kind added from outside the package, dated versions of a rule
set and of a form, the signing window, and the package's import seams.

The toy kind below is invented for the test (no statute of that name exists); its case reuses
the synthetic demo fixture's sheets and register (synth, seed 902; no real person's
data).
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import functools
import re
import shutil
import tomllib
from collections.abc import Iterable
from functools import partial
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from pipeline.case import CaseConfig, load_case, parse_case
from pipeline.errors import CaseFileError
from pipeline.forms import STANDARD_STATEMENTS, WITNESS, Statement
from pipeline.ingest import ingest_file, read_page
from pipeline.kinds import BUILTIN_KINDS
from pipeline.records import Finding, Severity, Verdict
from pipeline.rules import village_nomination as nom
from pipeline.rules.base import (
    Dated,
    KindSpec,
    LineContext,
    RuleSet,
    SignatureCount,
    in_force,
)
from pipeline.rules.common import (
    check_dated,
    check_has_residence,
    check_signed,
    check_signer_registered,
    check_witness_statement,
    filing_window_from_the_case,
    signing_from_the_case,
)
from pipeline.run import check_case, read_context_for, rules_for
from pipeline.scan.context import ReadContext
from tests import builders as b

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"

# -- a toy kind, defined here only ---------------------------------------------------------------

TOY = "Toy Law § 1"
AMENDED = dt.date(2026, 11, 2)  # the toy statute's second version takes effect


class ToySection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    required: int = Field(ge=1)  # signatures the toy statute asks for


def toy_threshold(case, electors: int | None) -> SignatureCount:
    section = case.section
    assert isinstance(section, ToySection)
    return SignatureCount(section.required, None, f"{section.required} signatures ({TOY})")


def amended_threshold(case, electors: int | None) -> SignatureCount:
    """The second version asks for twice as many."""
    first = toy_threshold(case, electors)
    return SignatureCount(first.required * 2, None, f"{first.required * 2} signatures ({TOY})")


def toy_signed(ctx: LineContext) -> Iterable[Finding]:
    yield from check_signed(ctx, TOY)


def toy_dated(ctx: LineContext) -> Iterable[Finding]:
    yield from check_dated(ctx, TOY)


def toy_residence(ctx: LineContext) -> Iterable[Finding]:
    yield from check_has_residence(ctx, TOY)


def toy_registered(ctx: LineContext) -> Iterable[Finding]:
    yield from check_signer_registered(ctx, TOY, registered_after_signing=Severity.REVIEW)


def _toy_rules(threshold) -> RuleSet:
    return RuleSet(
        kind="toy_petition",
        statute=TOY,
        petition_rules=(),
        sheet_rules=(),
        line_rules=(toy_signed, toy_dated, toy_residence, toy_registered),
        threshold=threshold,
    )


TOY_RULES = _toy_rules(toy_threshold)
TOY_AMENDED = _toy_rules(amended_threshold)

TOY_SPEC = KindSpec(
    name="toy_petition",
    statute=TOY,
    label="toy petition",
    rule_sets=(Dated(dt.date.min, TOY_RULES), Dated(AMENDED, TOY_AMENDED)),
    filing_window=filing_window_from_the_case,
    signing_start=partial(signing_from_the_case, citation=TOY),
    statements=(WITNESS,),
    section="toy",
    section_model=ToySection,
)
KINDS = BUILTIN_KINDS.with_kind(TOY_SPEC)


def toy_case(tmp_path: Path, filed: str = "2026-10-09", **dates: str) -> Path:
    """The demo's sheets and register under the toy kind's case file."""
    for name in ("register.csv", "sheets"):
        src = DEMO / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / name)
    extra = "".join(f"{key} = {value}\n" for key, value in dates.items())
    (tmp_path / "case.toml").write_text(
        "# Synthetic: the demo fixture's sheets under an invented kind.\n"
        'name = "Village of Elmwood Falls: a toy petition (synthetic)"\n'
        'kind = "toy_petition"\n'
        'sheets = ["sheets"]\n\n'
        "[municipality]\n"
        'village = "Elmwood Falls"\ntown = "Greenfield"\ncounty = "Albany"\n'
        'election_districts = ["1", "2", "3", "4"]\n\n'
        f"[dates]\nfiled = {filed}\n{extra}\n"
        '[register]\npath = "register.csv"\nformat = "nysboe"\n\n'
        "[toy]\nrequired = 30\n",
        encoding="utf-8",
    )
    return tmp_path / "case.toml"


def test_a_kind_added_through_the_registry_alone_is_checked_end_to_end(tmp_path):
    case = load_case(toy_case(tmp_path, signing_from="2026-09-20"), kinds=KINDS)
    assert case.spec is TOY_SPEC and case.section == ToySection(required=30)
    assert rules_for(case) is TOY_RULES  # filed 2026-10-09, before the amendment
    report = check_case(case)
    assert report.petition_kind == "toy_petition" and report.statute == TOY
    assert report.petition_label == "toy petition"
    assert report.totals.lines_read == len(report.lines) == 60  # the demo's truth: all judged
    assert report.totals.required == 30 and report.totals.threshold_rule.endswith(f"({TOY})")
    # its rules, not 9-902's: no line held to the adoption, no sheet to 9-902(8)'s statement
    codes = [f.code for j in report.lines for f in j.findings]
    assert "DATE_BEFORE_ADOPTION" not in codes and "WITNESS_COUNT_MISMATCH" not in codes
    cited = {f.citation for j in report.lines for f in j.findings if f.citation}
    assert cited and all(c.startswith(TOY) for c in cited), cited
    # the case's signing window: the 7 lines dated before 2026-09-20 wait for a person
    assert codes.count("DATE_BEFORE_SIGNING_PERIOD") == 7
    t = report.totals
    assert (t.valid, t.invalid, t.needs_review, t.blank) == (35, 7, 7, 11)
    assert report.verdict is Verdict.SUFFICIENT  # 35 valid whatever the 7 in review hold
    # the built-in kinds do not know it
    with pytest.raises(CaseFileError, match="unknown petition kind 'toy_petition'"):
        load_case(tmp_path / "case.toml")


def test_a_second_dated_rule_set_is_chosen_on_and_after_its_day(tmp_path):
    path = toy_case(tmp_path)
    data = tomllib.loads(path.read_text())

    def on(day: dt.date) -> RuleSet:
        changed = {**data, "dates": {**data["dates"], "filed": day}}
        return rules_for(parse_case(changed, tmp_path, kinds=KINDS))

    assert on(AMENDED - dt.timedelta(days=1)) is TOY_RULES
    assert on(AMENDED) is TOY_AMENDED
    assert on(AMENDED + dt.timedelta(days=30)) is TOY_AMENDED


def test_in_force_takes_the_latest_version_on_or_before_the_day():
    versions = (Dated(dt.date.min, "seed"), Dated(dt.date(2020, 1, 1), "amended"))
    assert in_force(versions, dt.date(2019, 12, 31)) == "seed"
    assert in_force(versions, dt.date(2020, 1, 1)) == "amended"
    with pytest.raises(ValueError):
        in_force((Dated(dt.date(2020, 1, 1), "a"), Dated(dt.date(2019, 1, 1), "b")), dt.date.max)


def test_the_nominating_petitions_witness_forms_are_dated_versions():
    """Subd. 1: the statement "effective until November 22, 2017" the day before, the one
    "effective November 22, 2017" on and after it; by the day the sheet was witnessed."""
    changed = nom.FORM_CHANGED
    assert [v.effective_from for v in nom.WITNESS_FORMS][1:] == [changed]
    case = b.case(
        kind="independent_nomination",
        dates={"adopted": None, "previous_general_election": None, "filed": dt.date(2018, 1, 5)},
        nomination={"election": dt.date(2018, 3, 20), "population": 2400},
    )

    def form_on(day: dt.date) -> nom.WitnessForm:
        sheet = b.sheet(witness_statement=b.witness(date=day.strftime("%m/%d/%Y")))
        return nom.witness_form(sheet, case)

    before, on, after = (changed + dt.timedelta(days=d) for d in (-1, 0, 1))
    assert form_on(before).name == "before-2017-11-22" and form_on(before).resides_in_the_village
    assert form_on(on).name == form_on(after).name == "from-2017-11-22"
    assert {n[0] for n in form_on(before).needs} - {n[0] for n in form_on(on).needs} == {
        "village",
        "county",
    }


# -- the signing window ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "over"),
    [
        ("independent_nomination", {"nomination": {"election": "2026-11-03", "population": 2400}}),
        (
            "incorporation",
            {"incorporation": {"basis": "residents", "village_name": "Testville"}},
        ),
        ("toy_petition", {"toy": {"required": 3}}),
    ],
)
def test_a_line_signed_before_the_case_s_first_day_goes_to_a_person(kind, over):
    data = {
        "name": "Signing window (synthetic)",
        "kind": kind,
        "sheets": ["sheets"],
        "municipality": {"village": "Testville", "town": "Greenfield", "county": "Albany"},
        "dates": {"filed": "2026-10-09", "signing_from": "2026-09-20"},
        "register": {"path": "register.csv"},
        **over,
    }
    case = CaseConfig.model_validate(data, context={"kinds": KINDS})  # no files: not parse_case
    rules = rules_for(case)
    sheet = b.sheet(lines=[b.line(1, date="09/19/2026"), b.line(2, date="09/20/2026")])
    ctx = [
        LineContext(line, sheet, None, None, dt.date(2026, 9, d), case)
        for line, d in zip(sheet.lines, (19, 20), strict=True)
    ]
    found = [[f for rule in rules.line_rules for f in rule(c)] for c in ctx]
    early = [f for f in found[0] if f.code == "DATE_BEFORE_SIGNING_PERIOD"]
    assert len(early) == 1 and early[0].severity is Severity.REVIEW
    assert not any(f.code == "DATE_BEFORE_SIGNING_PERIOD" for f in found[1])
    assert case.spec.filing_window(case) == (dt.date(2026, 9, 20), dt.date(2026, 10, 9))


def test_9902_keeps_its_statutory_window_and_a_later_case_start_wins():
    case = b.case()
    assert case.spec.signing_start(case).code == "DATE_BEFORE_ADOPTION"
    later = b.case(dates={"signing_from": b.ADOPTED + dt.timedelta(days=3)})
    start = later.spec.signing_start(later)
    assert start.code == "DATE_BEFORE_SIGNING_PERIOD" and start.day > b.ADOPTED
    assert case.spec.filing_window(case)[0] == b.ADOPTED + dt.timedelta(days=1)


# -- seams ----------------------------------------------------------------------------------

PACKAGES = ("pipeline", "matchers", "flows", "dashboard", "synth")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


@functools.cache
def _all_imports(name: str, path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(module imported, names taken from it) for every import the module can run: at load and
    inside its functions alike (a cycle hidden in a function is a cycle), but not those under
    `if TYPE_CHECKING:` (never run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tuple(_imports(name, _run_nodes(tree.body), path))


def _run_nodes(nodes: Iterable[ast.AST]) -> Iterable[ast.AST]:
    """Every node under `nodes`, skipping the bodies of `if TYPE_CHECKING:`."""
    for node in nodes:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            yield from _run_nodes(node.orelse)
            continue
        yield node
        yield from _run_nodes(ast.iter_child_nodes(node))


def _imports(
    name: str, nodes: Iterable[ast.AST], path: Path
) -> Iterable[tuple[str, tuple[str, ...]]]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, tuple(a.name for a in node.names)


def test_no_module_imports_another_s_private_names():
    modules = _modules()
    bad = [
        f"{name} imports {taken} from {module}"
        for name, path in modules.items()
        for module, names in _all_imports(name, path)
        if module in modules
        for taken in names
        if taken.startswith("_") and not taken.startswith("__")
    ]
    assert not bad, bad


def _import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the modules importing it runs: each module named (`from a import b` where
    `a.b` is a module names `a.b`), and the packages above it, whose `__init__` runs first."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = set()
        for module, names in _all_imports(name, path):
            for target in [f"{module}.{n}" for n in names if f"{module}.{n}" in modules] or [
                module
            ]:
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    runs = ".".join(parts[:i])
                    # (a package's own modules run inside it: not an edge back to it)
                    if runs in modules and runs != name and not name.startswith(runs + "."):
                        graph[name].add(runs)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: its strongly connected parts of two modules or more
    (Tarjan's algorithm, without recursion), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, nexts = work[-1]
            for nxt in nexts:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))
    return found


# The scan reader's (pipeline/scan/, another helper's area): table.py imports textgrid.py inside
# a function, and textgrid.py builds on table.py's Grid. Known, and allowed alone.
KNOWN_CYCLES = [["pipeline.scan.table", "pipeline.scan.textgrid"]]


def test_no_circular_imports_between_modules():
    """Across pipeline/, matchers/, flows/, dashboard/ and the generators (synth/), counting
    the imports inside functions and the packages each import runs."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    cycles = [c for c in _cycles(_import_graph(_modules())) if c not in KNOWN_CYCLES]
    assert not cycles, cycles


def test_a_cycle_inside_a_function_or_through_a_package_is_found(tmp_path):
    """A function-level import closing a cycle, and a cycle through a package's __init__."""
    for rel, text in {
        "p/__init__.py": "from . import a\n",
        "p/a.py": "def f():\n    from .b import g\n",
        "p/b.py": "from typing import TYPE_CHECKING\nfrom .c import h\nif TYPE_CHECKING:\n"
        "    from .a import f\n",
        "p/c.py": "import p.a\n",
        "q/__init__.py": "from .x import y\n",
        "q/x.py": "y = 1\n",
        "q/z.py": "from q.x import y\n",
        "r/__init__.py": "from s.t import v\n",
        "r/u.py": "",
        "s/__init__.py": "",
        "s/t.py": "import r.u\n\nv = 1\n",
    }.items():
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(text)
    modules = {
        ".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
        for p in sorted(tmp_path.rglob("*.py"))
    }
    graph = _import_graph(modules)
    assert graph["p.b"] == {"p.c"}  # not p.a: TYPE_CHECKING only
    assert graph["s.t"] == {"r", "r.u"}  # r's __init__ runs first
    # q.z -> q.x (q's __init__ runs too, and q's imports are its own) is no cycle
    assert _cycles(graph) == [["p.a", "p.b", "p.c"], ["r", "s.t"]]


def test_the_readme_layout_names_every_package_and_module():
    """README.md's "Layout" block names each top-level folder and each of pipeline/'s modules
    and subpackages (as `name.py` or `name/`)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    folders = [
        p.name
        for p in ROOT.iterdir()
        if p.is_dir()
        and not p.name.startswith(".")
        and p.name not in ("out", "build")
        and not p.name.endswith(".egg-info")
    ]
    missing = [f"{f}/" for f in folders if f"{f}/" not in block]
    for p in (ROOT / "pipeline").iterdir():
        if p.name.startswith(("_", ".")) or p.suffix not in (".py", "") or p.name == "py.typed":
            continue
        name = p.name if p.suffix else f"{p.name}/"
        if name not in block:
            missing.append(f"pipeline/{name}")
    assert not missing, f"README.md's layout does not name {missing}"


# -- a kind's section, kept generically --------------------------------------------------------


def _district_case(tmp_path: Path, **over) -> dict:
    (tmp_path / "sheets").mkdir(exist_ok=True)
    return {
        "name": "Sections (synthetic)",
        "kind": "improvement_district",
        "sheets": ["sheets"],
        "municipality": {"town": "Greenfield", "county": "Albany"},
        "dates": {"filed": "2026-10-09"},
        "district": {"name": "Sewer District No. 2", "roll": {"path": "roll.csv"}},
        **over,
    }


def test_a_kind_s_section_is_its_spec_s_model_and_not_a_field_of_the_case(tmp_path):
    from pipeline.rules.town_191 import DistrictConfig

    assert not {"nomination", "incorporation", "district"} & set(CaseConfig.model_fields)
    case = parse_case(_district_case(tmp_path), tmp_path)
    assert isinstance(case.section, DistrictConfig)
    assert case.roll == case.section.roll and case.roll.path == tmp_path / "roll.csv"  # resolved
    # its errors are named under the section, with the common keys' errors, all at once
    bad = _district_case(tmp_path, dates={}, district={"roll": {"path": "r.csv"}, "x": 1})
    with pytest.raises(CaseFileError) as info:
        parse_case(bad, tmp_path)
    said = str(info.value)
    assert "dates.filed" in said and "district.name" in said and "district.x" in said
    with pytest.raises(CaseFileError, match=r"needs \[district\]"):
        parse_case(_district_case(tmp_path, district=None), tmp_path)
    stray = _district_case(tmp_path, nomination={"election": "2026-11-03", "population": 9})
    with pytest.raises(CaseFileError, match=r"\[nomination\] belongs to another kind"):
        parse_case(stray, tmp_path)


def test_a_kind_checks_the_facts_of_its_own_section():
    """The nominating petition's spec: its election is after the filing (`KindSpec.problems`),
    and its section's dates are checked as the common ones are."""
    for election, said in (("2026-10-01", "before dates.filed"), ("2206-11-03", "plausible")):
        with pytest.raises(ValueError, match=f"nomination.election .*{said}"):
            b.case(
                kind="independent_nomination",
                dates={"adopted": None, "previous_general_election": None},
                nomination={"election": dt.date.fromisoformat(election), "population": 2400},
            )


# -- a kind that brings the wording of its own statement ------------------------------------------

# An invented statement (no statute gives it): the circulator's certificate at the sheet's foot.
CIRCULATOR = Statement(
    "circulator",
    re.compile(r"CERTIFICATE\s+OF\s+CIRCULATOR", re.IGNORECASE),
    names=(re.compile(r"I\s*,\s*(?P<x>[^,\n]*?)\s*,\s*certify", re.IGNORECASE),),
    counts=(re.compile(r"each\s+of\s+the\s+(?P<x>\S+)\s*\(count\)", re.IGNORECASE),),
)


def toy_certified(sheet, case) -> Iterable[Finding]:
    yield from check_witness_statement(
        sheet,
        TOY,
        needs=(("witness_name", "WITNESS_NAME_MISSING", "the circulator's name"),),
        forms=(CIRCULATOR,),
    )


CERTIFIED_SPEC = dataclasses.replace(
    TOY_SPEC,
    rule_sets=(Dated(dt.date.min, dataclasses.replace(TOY_RULES, sheet_rules=(toy_certified,))),),
    statements=(CIRCULATOR,),
)


def _certified_sheet(path: Path) -> None:
    """One born-digital sheet of the toy kind, two lines signed, its foot the circulator's
    certificate (invented names; no real person's data)."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=letter)
    _, height = letter
    c.setFont("Helvetica", 10)
    c.drawString(72, height - 72, "PETITION FOR A TOY DISTRICT (synthetic)")
    xs, top, rh = (72, 162, 312, 432, 540), height - 120, 28
    rows = [
        ("Date", "Signature", "Printed Name", "Residence"),
        ("October 1, 2026", "Ada Quill", "Ada Quill", "12 Elm St"),
        ("October 2, 2026", "Bo Rusk", "Bo Rusk", "14 Elm St"),
        ("", "", "", ""),
    ]
    for i in range(len(rows) + 1):
        c.line(xs[0], top - i * rh, xs[-1], top - i * rh)
    for x in xs:
        c.line(x, top, x, top - len(rows) * rh)
    for r, row in enumerate(rows):
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, top - r * rh - 18, text)
    y = top - len(rows) * rh - 40
    for text in (
        "CERTIFICATE OF CIRCULATOR",
        "I, Jane Roe, certify that each of the 2 (count) signatures on",
        "this sheet was made in my presence on the date beside it.",
    ):
        c.drawString(72, y, text)
        y -= 16
    c.drawString(72, 60, "Sheet No. 1")
    c.save()


def test_a_kind_brings_the_wording_of_its_own_statement_and_its_sheets_are_read_by_it(tmp_path):
    path = toy_case(tmp_path)
    shutil.rmtree(tmp_path / "sheets")
    (tmp_path / "sheets").mkdir()
    _certified_sheet(tmp_path / "sheets" / "sheet-01.pdf")
    case = load_case(path, kinds=BUILTIN_KINDS.with_kind(CERTIFIED_SPEC))
    context = read_context_for(case)
    assert CIRCULATOR in context.statements  # the kind's own wording, beside the statutes'
    assert set(STANDARD_STATEMENTS) <= set(context.statements)
    report = check_case(case)
    (sheet,) = report.sheets
    assert sheet.witness is not None and sheet.witness.form == "circulator"
    assert sheet.witness.witness_name is not None
    assert sheet.witness.witness_name.text == "Jane Roe"
    assert sheet.witness.stated_count is not None and sheet.witness.stated_count.text == "2"
    codes = {f.code for j in report.lines for f in j.findings} | {f.code for f in report.findings}
    assert "WITNESS_STATEMENT_MISSING" not in codes and "WITNESS_NAME_MISSING" not in codes
    # read with the statutes' statements only, the sheet carries none of them
    (ref,) = ingest_file(tmp_path / "sheets" / "sheet-01.pdf")
    assert read_page(ref, ReadContext()).witness is None
    assert read_page(ref, context).witness == sheet.witness
