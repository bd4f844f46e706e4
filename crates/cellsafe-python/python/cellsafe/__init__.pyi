"""Type stubs of cellsafe's public API (see the module's docstrings)."""

import os
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Union

from . import hierarchy as hierarchy
from ._cellsafe import AuditFailed as AuditFailed
from ._cellsafe import ConfigError as ConfigError
from ._cellsafe import DataError as DataError
from ._cellsafe import Error as Error
from ._cellsafe import NothingAcceptable as NothingAcceptable
from .models import AverageRisk as AverageRisk
from .models import BetaLikeness as BetaLikeness
from .models import Confidential as Confidential
from .models import DeltaDisclosure as DeltaDisclosure
from .models import DeltaPresence as DeltaPresence
from .models import DistinctLDiversity as DistinctLDiversity
from .models import EntropyLDiversity as EntropyLDiversity
from .models import KAnonymity as KAnonymity
from .models import Model as Model
from .models import PopulationUniqueness as PopulationUniqueness
from .models import RecursiveClDiversity as RecursiveClDiversity
from .models import SampleUniqueness as SampleUniqueness
from .models import TCloseness as TCloseness

__all__ = [
    "anonymize",
    "mondrian",
    "evaluate",
    "risk",
    "pareto",
    "run",
    "write",
    "job",
    "Job",
    "Release",
    "hierarchy",
    "Error",
    "CellsafeWarning",
    "ConfigError",
    "DataError",
    "NothingAcceptable",
    "AuditFailed",
    "Model",
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

HierarchyLike = Union[str, os.PathLike[str], Mapping[str, Any]]
Progress = Union[bool, Callable[[str, int, Optional[int]], None]]
ModelLike = Union[Model, Mapping[str, Any]]

class CellsafeWarning(UserWarning): ...

class Job:
    keys: Dict[str, Any]
    def __init__(self, keys: Dict[str, Any]) -> None: ...
    def to_toml(self, **input: Any) -> str: ...

class Release:
    table: Any
    report: Dict[str, Any]
    job: Optional[Job]
    def __init__(self, table: Any, report: Dict[str, Any], job: Optional[Job] = ...) -> None: ...
    @property
    def levels(self) -> Dict[str, int]: ...
    @property
    def suppressed_rows(self) -> int: ...
    def _repr_html_(self) -> str: ...

def job(
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    models: Sequence[ModelLike] = ...,
    sensitive: Union[Iterable[str], Mapping[str, Optional[HierarchyLike]]] = ...,
    insensitive: Iterable[str] = ...,
    identifying: Iterable[str] = ...,
    semi_sensitive: Iterable[str] = ...,
    suppression_limit: float = ...,
    metric: Union[None, str, Mapping[str, Any]] = ...,
    search: Union[None, str, Mapping[str, Any]] = ...,
    seed: Optional[int] = ...,
    keep_order: bool = ...,
    suppression: Optional[str] = ...,
    threads: Optional[int] = ...,
    levels: Optional[Sequence[int]] = ...,
    hierarchy_delimiter: Optional[str] = ...,
    **sections: Any,
) -> Job: ...
def anonymize(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    models: Sequence[ModelLike] = ...,
    progress: Progress = ...,
    **keys: Any,
) -> Release: ...
def mondrian(
    data: Any, *, quasi_identifiers: Mapping[str, Optional[HierarchyLike]], **keys: Any
) -> Release: ...
def evaluate(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    levels: Sequence[int],
    **keys: Any,
) -> Release: ...
def risk(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    levels: Optional[Sequence[int]] = ...,
    threshold: float = ...,
    population_size: Optional[int] = ...,
    sampling_fraction: Optional[float] = ...,
    **keys: Any,
) -> Dict[str, Any]: ...
def pareto(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    pareto: Mapping[str, Any],
    seed: Optional[int] = ...,
    exhaustive: bool = ...,
    progress: Progress = ...,
    **keys: Any,
) -> Dict[str, Any]: ...
def run(path: Union[str, os.PathLike[str]], *, progress: Progress = ...) -> Release: ...
def write(
    path: Union[str, os.PathLike[str]],
    *,
    output: Union[str, os.PathLike[str], None] = ...,
    report: Union[str, os.PathLike[str], None] = ...,
    progress: Progress = ...,
) -> Dict[str, Any]: ...
