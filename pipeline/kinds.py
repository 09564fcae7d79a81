"""The petition kinds: one `KindSpec` each (pipeline/rules/base.py), written in its rule module
beside its rules, and collected here.

A case file's `kind` names one of them; `load_case` looks it up (`BUILTIN_KINDS`, or the kinds a
caller passes) and the case carries it (`CaseConfig.spec`), so no stage branches on the kind.
A kind added by a caller is `BUILTIN_KINDS.with_kind(spec)` passed to `load_case`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from .rules import town_191, village_2202, village_9902, village_nomination
from .rules.base import KindSpec

__all__ = ["BUILTIN_KINDS", "KindRegistry"]


class KindRegistry(Mapping[str, KindSpec]):
    """Petition kinds by name (immutable: `with_kind` gives a new registry)."""

    __slots__ = ("_specs",)

    def __init__(self, specs: Iterable[KindSpec]) -> None:
        self._specs: dict[str, KindSpec] = {}
        for spec in specs:
            if spec.name in self._specs:
                raise ValueError(f"petition kind {spec.name!r} is defined twice")
            self._specs[spec.name] = spec

    def __getitem__(self, name: str) -> KindSpec:
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def with_kind(self, spec: KindSpec) -> KindRegistry:
        """These kinds and one more."""
        return KindRegistry([*self._specs.values(), spec])


BUILTIN_KINDS = KindRegistry(
    (village_9902.SPEC, village_nomination.SPEC, village_2202.SPEC, town_191.SPEC)
)
