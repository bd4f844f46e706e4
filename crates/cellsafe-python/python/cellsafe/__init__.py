"""cellsafe: safe release of microdata, from pandas, Polars and Arrow.

A job is what a TOML job file says, given as keyword arguments: the quasi-identifiers with
their hierarchies, the sensitive columns, the privacy models, the suppression limit, the
utility metric and the search. The table goes in through Arrow (pandas, Polars, PyArrow,
DuckDB: any object with ``__arrow_c_stream__`` or ``__arrow_c_array__``) and the release
comes back as the same kind of object, audited by cellsafe's independent audit.

>>> import cellsafe as cs
>>> release = cs.anonymize(df, quasi_identifiers={"age": cs.hierarchy.intervals([5, 10])},
...                        models=[cs.KAnonymity(5)], seed=7)   # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import html
import json
import warnings
import os
import sys
import time
from typing import Any, Callable, Dict, Iterable, Iterator, Mapping, Optional, Sequence, Union

from . import hierarchy
from ._cellsafe import AuditFailed, ConfigError, DataError, Error, NothingAcceptable
from ._cellsafe import anonymize as _anonymize
from ._cellsafe import job_toml as _job_toml
from ._cellsafe import pareto as _pareto
from ._cellsafe import risk as _risk
from ._cellsafe import run as _run
from ._cellsafe import write_job as _write_job
from .models import (
    AverageRisk,
    BetaLikeness,
    Confidential,
    DeltaDisclosure,
    DeltaPresence,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    Model,
    PopulationUniqueness,
    RecursiveClDiversity,
    SampleUniqueness,
    TCloseness,
)

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

HierarchyLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
ModelLike = Union[Model, Mapping[str, Any]]


class CellsafeWarning(UserWarning):
    """What the report's ``warnings`` say (the CLI prints them on standard error)."""


class Job:
    """A job's keys, as a TOML job file holds them (``to_toml()`` writes that file; the
    CLI runs it on the same table, named by ``[input] path``, to the same release)."""

    def __init__(self, keys: Dict[str, Any]) -> None:
        self.keys = keys

    def to_toml(self, **input: Any) -> str:
        """The job as TOML text; ``input`` adds ``[input]`` keys, such as the ``path`` of
        the data file the CLI is to read (``to_toml(path="data.csv")``)."""
        keys = dict(self.keys)
        keys["input"] = {**keys.get("input", {}), **input}
        return _job_toml(json.dumps(keys))

    def __repr__(self) -> str:
        return f"Job({self.keys!r})"


def _hierarchy(value: HierarchyLike) -> Any:
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(
        f"a hierarchy is a builder of cellsafe.hierarchy or an ARX hierarchy file's path, "
        f"not {type(value).__name__}"
    )


def _model(value: Union[Model, Mapping[str, Any]]) -> Dict[str, Any]:
    if isinstance(value, Model):
        return value.spec()
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"a model is a cellsafe model or a mapping, not {type(value).__name__}")


def job(
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    models: Sequence[Union[Model, Mapping[str, Any]]] = (),
    sensitive: Union[Iterable[str], Mapping[str, Optional[HierarchyLike]]] = (),
    insensitive: Iterable[str] = (),
    identifying: Iterable[str] = (),
    semi_sensitive: Iterable[str] = (),
    suppression_limit: float = 0.0,
    metric: Union[None, str, Mapping[str, Any]] = None,
    search: Union[None, str, Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    keep_order: bool = False,
    suppression: Optional[str] = None,
    threads: Optional[int] = None,
    levels: Optional[Sequence[int]] = None,
    hierarchy_delimiter: Optional[str] = None,
    **sections: Any,
) -> Job:
    """The :class:`Job` that :func:`anonymize` runs, from the same arguments (see there).

    Every other top-level key or section of a TOML job may be given by its name, as a
    value or a mapping (``pareto={...}``, ``safety={...}``, ``disclose={...}``, ...)."""
    keys: Dict[str, Any] = {"suppression_limit": float(suppression_limit)}
    inp: Dict[str, Any] = {}
    if hierarchy_delimiter is not None:
        inp["hierarchy_delimiter"] = hierarchy_delimiter
    keys["input"] = inp
    attributes: Dict[str, Dict[str, Any]] = {}
    for name, h in quasi_identifiers.items():
        attributes[name] = {"role": "quasi-identifying"}
        if h is not None:
            attributes[name]["hierarchy"] = _hierarchy(h)
    sensitive_items = (
        sensitive.items() if isinstance(sensitive, Mapping) else ((s, None) for s in sensitive)
    )
    for name, h in sensitive_items:
        attributes[name] = {"role": "sensitive"}
        if h is not None:
            attributes[name]["hierarchy"] = _hierarchy(h)
    for role, names in (
        ("insensitive", insensitive),
        ("identifying", identifying),
        ("semi-sensitive", semi_sensitive),
    ):
        for name in names:
            attributes[name] = {"role": role}
    roles: Dict[str, str] = {}
    for role, names in (
        ("quasi_identifiers", list(quasi_identifiers)),
        ("sensitive", [n for n, _ in (sensitive.items() if isinstance(sensitive, Mapping) else ((s, None) for s in sensitive))]),
        ("insensitive", list(insensitive)),
        ("identifying", list(identifying)),
        ("semi_sensitive", list(semi_sensitive)),
    ):
        for name in names:
            if name in roles and roles[name] != role:
                raise ConfigError(
                    f"column `{name}` is given two roles: in `{roles[name]}` and in `{role}`"
                )
            roles[name] = role
    keys["attributes"] = attributes
    keys["privacy"] = [_model(m) for m in models]
    if metric is not None:
        keys["metric"] = {"name": metric} if isinstance(metric, str) else dict(metric)
    search_keys: Dict[str, Any] = {}
    if search is not None:
        search_keys = {"algorithm": search} if isinstance(search, str) else dict(search)
    if threads is not None:
        search_keys["threads"] = int(threads)
    if levels is not None:
        search_keys["levels"] = [int(v) for v in levels]
    if search_keys:
        keys["search"] = search_keys
    output: Dict[str, Any] = {}
    if seed is not None:
        output["seed"] = int(seed)
    if keep_order:
        output["keep_order"] = True
    if suppression is not None:
        output["suppression"] = suppression
    if output:
        keys["output"] = output
    for name, value in sections.items():
        if value is None:
            continue
        if isinstance(value, Mapping) and isinstance(keys.get(name), dict):
            keys[name].update(value)
        else:
            keys[name] = value
    return Job(keys)


class _Bar:
    """A text progress bar on standard error: a line per stage of the work, redrawn in
    place (``\\r``) as it goes, with the stage's position and total, and the time since
    the call began."""

    WIDTH = 30

    def __init__(self) -> None:
        self.stage: Optional[str] = None
        self.started = time.monotonic()

    def __call__(self, stage: str, position: int, total: Optional[int]) -> None:
        if stage != self.stage:
            if self.stage is not None:
                sys.stderr.write("\n")
            self.stage = stage
        elapsed = time.monotonic() - self.started
        if total:
            done = min(max(position, 0), total) / total
            filled = int(done * self.WIDTH)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            text = f"{stage:<12} [{bar}] {int(done * 100):3d} %  {position:,}/{total:,}"
        else:
            text = f"{stage:<12} {position:,}"
        sys.stderr.write(f"\r{text}  {elapsed:.1f} s")
        sys.stderr.flush()

    def close(self) -> None:
        if self.stage is not None:
            sys.stderr.write("\n")
            sys.stderr.flush()


Progress = Union[bool, Callable[[str, int, Optional[int]], None]]


@contextlib.contextmanager
def _progress(progress: Progress) -> Iterator[Optional[Callable[[str, int, Optional[int]], None]]]:
    """The callback a call reports its progress to: the caller's, a bar for ``True``
    (its line ended when the call returns or raises), or none."""
    if callable(progress):
        yield progress
    elif progress:
        bar = _Bar()
        try:
            yield bar
        finally:
            bar.close()
    else:
        yield None


def _kind(data: Any) -> str:
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(data, pd.DataFrame):
        return "pandas"
    pl = sys.modules.get("polars")
    if pl is not None and isinstance(data, pl.DataFrame):
        return "polars"
    return "arrow"


def _pandas_from(table: Any) -> Any:
    import pandas as pd
    import pyarrow as pa

    # integer and boolean columns with nulls (a suppressed row's cells) stay integers
    nullable = {
        pa.int8(): pd.Int8Dtype(),
        pa.int16(): pd.Int16Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.uint8(): pd.UInt8Dtype(),
        pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
    }
    frame = table.to_pandas()
    for name in table.column_names:
        column = table.column(name)
        if column.null_count and column.type in nullable:
            frame[name] = column.to_pandas(types_mapper=nullable.get)
    return frame


def _returned(table: Any, kind: str) -> Any:
    if table is None:
        return None
    if kind == "pandas":
        return _pandas_from(table)
    if kind == "polars":
        import polars as pl

        return pl.from_arrow(table)
    return table


def _arrow_of(data: Any) -> Any:
    if _kind(data) == "pandas":
        import pyarrow as pa

        # the index is not a column of the table (a frame's own export may add it); one
        # thread: pyarrow's pool costs more than it saves below a million rows (columns
        # of pyarrow strings and numbers are taken without copying)
        threads = 1 if len(data) < 1_000_000 else None
        return pa.Table.from_pandas(data, preserve_index=False, nthreads=threads)
    return data


class Release:
    """What a job released: ``table`` (the same kind of object as the input), ``levels``
    (per quasi-identifier, the hierarchy level chosen), ``report`` (the same dict as the
    CLI's JSON report) and ``job`` (the :class:`Job` run, when built from arguments)."""

    def __init__(self, table: Any, report: Dict[str, Any], job: Optional[Job] = None) -> None:
        self.table = table
        self.report = report
        self.job = job

    @property
    def levels(self) -> Dict[str, int]:
        """The hierarchy level of each quasi-identifier (empty for a local recoding)."""
        return dict(self.report.get("levels") or {})

    @property
    def suppressed_rows(self) -> int:
        """Rows suppressed (all their quasi-identifiers ``*``, or dropped)."""
        return int(self.report.get("suppressed_rows", 0))

    def __repr__(self) -> str:
        return (
            f"Release(levels={self.levels}, suppressed_rows={self.suppressed_rows}, "
            f"rows={self.report.get('rows')})"
        )

    def _repr_html_(self) -> str:
        r = self.report
        figures = [
            ("rows", r.get("rows")),
            ("suppressed rows", r.get("suppressed_rows")),
            ("classes", r.get("classes")),
            ("classes released", r.get("released_classes")),
            ("smallest released class", r.get("min_class_size")),
            ("metric", f"{r.get('metric')} = {r.get('score')}"),
        ]
        for m in r.get("models") or []:
            figures.append((m.get("model", "model"), m.get("value")))
        audit = r.get("audit") or {}
        if "passed" in audit:
            figures.append(("audit", "passed" if audit["passed"] else "FAILED"))
        levels = "".join(
            f"<tr><td>{html.escape(str(k))}</td><td>{v}</td></tr>"
            for k, v in self.levels.items()
        )
        rows = "".join(
            f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>"
            for k, v in figures
            if v is not None
        )
        return (
            "<div><b>cellsafe release</b><table><tr><th>quasi-identifier</th>"
            f"<th>level</th></tr>{levels}</table><table>{rows}</table></div>"
        )


def _report(text: str) -> Dict[str, Any]:
    return json.loads(text)


def anonymize(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    models: Sequence[Union[Model, Mapping[str, Any]]] = (),
    progress: Progress = False,
    **keys: Any,
) -> Release:
    """Anonymizes ``data`` and returns the audited :class:`Release`.

    ``quasi_identifiers`` maps each quasi-identifying column to its hierarchy (a builder
    of :mod:`cellsafe.hierarchy` or an ARX hierarchy file's path; ``None`` for none, as a
    Mondrian job allows). The other arguments are the TOML job's keys: ``sensitive`` (a
    list, or a mapping to hierarchies for t-closeness), ``insensitive``, ``identifying``,
    ``models``, ``suppression_limit``, ``metric`` (a name such as ``"loss"`` or the
    ``[metric]`` table), ``search`` (an algorithm name or the ``[search]`` table),
    ``seed``, ``keep_order``, ``suppression`` (``"star"`` or ``"drop"``), ``threads``,
    ``levels``, and any other section by its name. Columns not named are released as the
    TOML job releases them.

    Raises :class:`ConfigError` (a key is wrong), :class:`DataError` (the data does not
    fit), :class:`NothingAcceptable`, :class:`AuditFailed`, and ``KeyboardInterrupt`` on
    Ctrl-C. With ``progress=True`` the stages are shown on standard error; a callable
    is called instead with (stage, position, total or None) as the work goes on.
    """
    j = job(quasi_identifiers=quasi_identifiers, models=models, **keys)
    kind = _kind(data)
    with _progress(progress) as shown:
        report, table = _anonymize(
            json.dumps(j.keys),
            _arrow_of(data),
            "cellsafe.anonymize",
            f"{type(data).__module__}.{type(data).__name__}",
            shown,
        )
    return _finish(report, table, kind, j)


def _finish(report: str, table: Any, kind: str, j: Optional[Job]) -> Release:
    r = _report(report)
    if not r.get("found"):
        why = "; ".join(r.get("warnings") or [])
        raise NothingAcceptable(
            "no transformation satisfies the privacy models within the suppression limit"
            + (f": {why}" if why else "")
        )
    if table is None:
        # a job the library ran without keeping its release (it refuses those: see
        # job::run); never a release without its audited table
        raise Error("the job returned no released table")
    for message in r.get("warnings") or []:
        warnings.warn(message, CellsafeWarning, stacklevel=3)
    return Release(_returned(table, kind), r, j)


def mondrian(data: Any, *, quasi_identifiers: Mapping[str, Optional[HierarchyLike]], **keys: Any) -> Release:
    """:func:`anonymize` with Mondrian's local recoding (``search="mondrian"``): each
    class shows the intervals or value sets of its own rows."""
    given = keys.pop("search", None) or {}
    search = {"algorithm": given} if isinstance(given, str) else dict(given)
    if search.get("algorithm", "mondrian") != "mondrian":
        raise ConfigError(f"cs.mondrian runs search.algorithm = \"mondrian\", not {search['algorithm']!r}")
    search["algorithm"] = "mondrian"
    return anonymize(data, quasi_identifiers=quasi_identifiers, search=search, **keys)


def evaluate(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    levels: Sequence[int],
    **keys: Any,
) -> Release:
    """The release at the given ``levels`` (one per quasi-identifier, in order), judged by
    the models as :func:`anonymize` judges a node: raises :class:`NothingAcceptable` when
    it does not satisfy them."""
    return anonymize(data, quasi_identifiers=quasi_identifiers, levels=levels, **keys)


def risk(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    levels: Optional[Sequence[int]] = None,
    threshold: float = 0.2,
    population_size: Optional[int] = None,
    sampling_fraction: Optional[float] = None,
    **keys: Any,
) -> Dict[str, Any]:
    """``cellsafe risk``: the re-identification risks of ``data`` as it is, or at
    ``levels`` (one per quasi-identifier, in column order) as a release at that
    transformation would show it (the classes failing the models suppressed). Records
    whose risk is above ``threshold`` count as at risk; ``population_size`` or
    ``sampling_fraction`` add the population-based estimates. Returns the CLI's report."""
    if population_size is not None and sampling_fraction is not None:
        raise ConfigError("give population_size or sampling_fraction, not both")
    j = job(quasi_identifiers=quasi_identifiers, **keys)
    return _report(
        _risk(
            json.dumps(j.keys),
            _arrow_of(data),
            "cellsafe.risk",
            f"{type(data).__module__}.{type(data).__name__}",
            None if levels is None else [int(v) for v in levels],
            float(threshold),
            population_size,
            sampling_fraction,
        )
    )


def pareto(
    data: Any,
    *,
    quasi_identifiers: Mapping[str, Optional[HierarchyLike]],
    pareto: Mapping[str, Any],
    seed: Optional[int] = None,
    exhaustive: bool = False,
    progress: Progress = False,
    **keys: Any,
) -> Dict[str, Any]:
    """``cellsafe pareto``: a representative set of Pareto-optimal transformations for
    the objectives of ``pareto`` (the ``[pareto]`` table: ``objectives``, the budget,
    PBG-EA's parameters), found by PBG-EA with ``seed``; with ``exhaustive`` also the
    exact front. Returns the CLI's report; :func:`evaluate` or :func:`anonymize` with
    ``levels`` releases a node of the front."""
    j = job(quasi_identifiers=quasi_identifiers, pareto=dict(pareto), **keys)
    with _progress(progress) as shown:
        text = _pareto(
            json.dumps(j.keys),
            _arrow_of(data),
            "cellsafe.pareto",
            f"{type(data).__module__}.{type(data).__name__}",
            seed,
            exhaustive,
            shown,
        )
    return _report(text)


def write(
    path: Union[str, "os.PathLike[str]"],
    *,
    output: Union[str, "os.PathLike[str]", None] = None,
    report: Union[str, "os.PathLike[str]", None] = None,
    progress: Progress = False,
) -> Dict[str, Any]:
    """Runs the TOML job at ``path`` as ``cellsafe anonymize`` does: writes the released
    table to ``output`` (default: the job's ``[output] path``, else none) and the JSON
    report to ``report``, all or nothing, and returns the report as a dict. This is how a
    job on the Spark engine (``[engine] kind = "spark"``) runs from Python: the cluster
    writes the release, which never comes to this machine."""
    with _progress(progress) as shown:
        text = _write_job(
            os.fspath(path),
            None if output is None else os.fspath(output),
            None if report is None else os.fspath(report),
            shown,
        )
    result: Dict[str, Any] = json.loads(text)
    return result


def run(path: Union[str, "os.PathLike[str]"], *, progress: Progress = False) -> Release:
    """Runs the TOML job at ``path`` (its ``[input]`` names the data) and returns its
    :class:`Release`, with the table as a PyArrow table; nothing is written."""
    with _progress(progress) as shown:
        report, table = _run(os.fspath(path), shown)
    return _finish(report, table, "arrow", None)

