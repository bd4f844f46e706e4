"""Type stubs of the extension module (the public API is in ``cellsafe``)."""

from typing import Any, Callable, List, Optional, Tuple

__all__ = [
    "Error",
    "ConfigError",
    "DataError",
    "NothingAcceptable",
    "AuditFailed",
    "anonymize",
    "run",
    "write_job",
    "job_toml",
    "risk",
    "pareto",
]

class Error(Exception): ...
class ConfigError(Error): ...
class DataError(Error): ...
class NothingAcceptable(Error): ...
class AuditFailed(Error): ...

def anonymize(
    config: str,
    data: Any,
    name: str,
    source: str,
    progress: Optional[Callable[[str, int, Optional[int]], None]] = None,
) -> Tuple[str, Optional[Any]]: ...
def run(
    path: str, progress: Optional[Callable[[str, int, Optional[int]], None]] = None
) -> Tuple[str, Optional[Any]]: ...
def write_job(
    path: str,
    output: Optional[str] = None,
    report: Optional[str] = None,
    progress: Optional[Callable[[str, int, Optional[int]], None]] = None,
) -> str: ...
def job_toml(config: str) -> str: ...
def risk(
    config: str,
    data: Any,
    name: str,
    source: str,
    levels: Optional[List[int]] = None,
    threshold: float = 0.2,
    population_size: Optional[int] = None,
    sampling_fraction: Optional[float] = None,
) -> str: ...
def pareto(
    config: str,
    data: Any,
    name: str,
    source: str,
    seed: Optional[int] = None,
    exhaustive: bool = False,
    progress: Optional[Callable[[str, int, Optional[int]], None]] = None,
) -> str: ...
