"""The matchers' seams: one protocol, a store whose SQL is per call, no import cycles.

Two matchers on one store (two petitions checked at once against a county's register) must not
see each other's temporary tables: each `match_all` runs on a cursor of its own. The register
and the lines are synthetic (`matchers.weights`' invented voters and noisy signers).
"""

from __future__ import annotations

import ast
import random
import threading
from pathlib import Path

import pytest

from matchers import BaselineMatcher, FSMatcher, Matcher
from matchers.store import open_store
from matchers.weights import noisy_signer, write_synthetic_register
from pipeline.case import MatchingConfig, RegisterConfig
from pipeline.records import Field, SignatureLine, Source
from tests.test_baseline import REGISTER, line

MATCHERS = Path(__file__).resolve().parents[1] / "matchers"


@pytest.fixture(scope="module")
def county(tmp_path_factory):
    """A store on disk (read-only, as `open_store` gives it) and two petitions' lines."""
    tmp = tmp_path_factory.mktemp("county")
    path = tmp / "register.csv"
    write_synthetic_register(path, 3_000, 7)
    store = open_store(RegisterConfig(path=path), tmp / "cache")
    rng = random.Random(8)
    petitions = []
    for p in range(2):
        lines = []
        for k, e in enumerate(store.by_rid(store.sample_rids(120, 20 + p))):
            name, residence = noisy_signer(e, rng, handwriting=k % 2 == 1)
            fields = (
                Field("name", name, 1.0, Source.TEXT_LAYER),
                Field("residence", residence, 1.0, Source.TEXT_LAYER),
            )
            lines.append(SignatureLine(f"{p:06x}{k // 20:06x}", k % 20 + 1, fields))
        petitions.append(lines)
    yield store, petitions
    store.close()


def test_both_matchers_satisfy_the_protocol():
    assert isinstance(FSMatcher(REGISTER, MatchingConfig()), Matcher)
    assert isinstance(BaselineMatcher(REGISTER, MatchingConfig()), Matcher)
    m = FSMatcher(REGISTER, MatchingConfig())
    (got,) = m.match_all([line("John Smith", "12 Main St")])
    assert got.method == m.method


@pytest.mark.slow
def test_two_matchers_on_one_store_at_once_give_what_each_gives_alone(county):
    store, petitions = county
    matchers = [FSMatcher(store, MatchingConfig()) for _ in petitions]
    alone = [m.match_all(lines) for m, lines in zip(matchers, petitions, strict=True)]
    assert sum(x.voter_id is not None for x in alone[0]) > len(petitions[0]) / 2
    got: dict[int, list] = {0: [], 1: []}
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def run(i: int) -> None:
        try:
            start.wait()
            for _ in range(2):  # overlapping calls: each one's tables must stay its own
                got[i].append(matchers[i].match_all(petitions[i]))
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i in (0, 1):
        assert [_steady(r) for r in got[i]] == [_steady(alone[i])] * 2


def test_no_module_of_matchers_imports_in_a_circle():
    """Every import of one module of `matchers` by another (at the top or inside a function;
    not the type checker's), as a graph: it has no cycle."""
    graph = {p.stem: _imports(p) for p in MATCHERS.glob("*.py")}
    state: dict[str, int] = {}

    def visit(node: str, path: tuple[str, ...]) -> None:
        if state.get(node) == 2:
            return
        assert state.get(node) != 1, " -> ".join((*path, node))
        state[node] = 1
        for nxt in graph.get(node, ()):
            visit(nxt, (*path, node))
        state[node] = 2

    for node in graph:
        visit(node, ())


def test_no_module_of_matchers_imports_another_modules_private_names():
    private = {
        (p.stem, alias.name)
        for p in MATCHERS.glob("*.py")
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.level or "matchers" in (node.module or ""))
        for alias in node.names
        if alias.name.startswith("_")
    }
    assert not private


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                out.add(node.module.split(".")[0])
            elif node.module and node.module.startswith("matchers."):
                out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[1] for a in node.names if a.name.startswith("matchers.")}
    return out - {"__init__"}


def _steady(matches):
    """Matches without the surname check's choice among equally close register surnames (its
    tie is broken arbitrarily, run to run)."""
    from tests.test_match_scale import _steady as steady

    return [steady(m) for m in matches]
