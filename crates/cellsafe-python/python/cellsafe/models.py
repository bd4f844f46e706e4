"""Privacy models: each is one ``[[privacy]]`` entry of a TOML job, with the same keys."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Dict, Optional, Sequence


@dataclass(frozen=True)
class Model:
    """A privacy model; ``spec()`` is its ``[[privacy]]`` table."""

    def spec(self) -> Dict[str, object]:
        """The model as the TOML job writes it (``model = ...`` and its parameters)."""
        name = _NAMES[type(self)]
        out: Dict[str, object] = {"model": name}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class KAnonymity(Model):
    """Every released combination of quasi-identifier values is shared by at least ``k``
    rows."""

    k: int


@dataclass(frozen=True)
class DistinctLDiversity(Model):
    """Every class holds at least ``l`` distinct values of the sensitive ``attribute``."""

    attribute: str
    l: float  # noqa: E741 (the models' own name)


@dataclass(frozen=True)
class EntropyLDiversity(Model):
    """The entropy of ``attribute`` in every class is at least ``log(l)``."""

    attribute: str
    l: float  # noqa: E741


@dataclass(frozen=True)
class RecursiveClDiversity(Model):
    """Recursive (c, l)-diversity of ``attribute``: the most frequent value is rarer than
    ``c`` times the sum of all but the ``l - 1`` most frequent ones."""

    attribute: str
    c: float
    l: int  # noqa: E741


@dataclass(frozen=True)
class TCloseness(Model):
    """The distribution of ``attribute`` in every class is within ``t`` of the table's
    (``distance``: ``equal``, ``ordered`` or ``hierarchical``)."""

    attribute: str
    t: float
    distance: str = "equal"


@dataclass(frozen=True)
class DeltaDisclosure(Model):
    """No class changes a value's frequency of ``attribute`` by more than ``delta``
    (logarithmically)."""

    attribute: str
    delta: float


@dataclass(frozen=True)
class BetaLikeness(Model):
    """No value of ``attribute`` is more than ``beta`` times more frequent in a class than
    in the table (``enhanced``: the enhanced variant)."""

    attribute: str
    beta: float
    enhanced: bool = False


@dataclass(frozen=True)
class AverageRisk(Model):
    """The average re-identification risk (1 / class size) is at most ``threshold``;
    optionally bounds the highest risk and the share of records at risk."""

    threshold: float
    highest_risk: Optional[float] = None
    records_at_risk: Optional[float] = None


@dataclass(frozen=True)
class DeltaPresence(Model):
    """Membership in the released sample (``[input] subset``) is known only within
    ``[delta_min, delta_max]``."""

    delta_min: float
    delta_max: float


@dataclass(frozen=True)
class SampleUniqueness(Model):
    """At most ``threshold`` of the rows are unique in the sample."""

    threshold: float


@dataclass(frozen=True)
class PopulationUniqueness(Model):
    """At most ``threshold`` of the population is estimated unique (``estimator``:
    ``dankar``, ``zayatz``, ``pitman`` or ``snb``)."""

    threshold: float
    estimator: Optional[str] = None
    population_size: Optional[int] = None
    sampling_fraction: Optional[float] = None


@dataclass(frozen=True)
class Confidential(Model):
    """None of ``values`` of ``attribute`` may be learnt of a person (logical safety)."""

    attribute: str
    values: Sequence[str] = ()


_NAMES = {
    KAnonymity: "k-anonymity",
    DistinctLDiversity: "distinct-l-diversity",
    EntropyLDiversity: "entropy-l-diversity",
    RecursiveClDiversity: "recursive-cl-diversity",
    TCloseness: "t-closeness",
    DeltaDisclosure: "delta-disclosure",
    BetaLikeness: "beta-likeness",
    AverageRisk: "average-risk",
    DeltaPresence: "delta-presence",
    SampleUniqueness: "sample-uniqueness",
    PopulationUniqueness: "population-uniqueness",
    Confidential: "confidential",
}

__all__ = [
    "KAnonymity",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveClDiversity",
    "TCloseness",
    "DeltaDisclosure",
    "BetaLikeness",
    "AverageRisk",
    "DeltaPresence",
    "SampleUniqueness",
    "PopulationUniqueness",
    "Confidential",
]
