"""Hierarchy builders: how a quasi-identifier is generalized, level by level.

Each function returns the same table a TOML job writes as ``hierarchy = { kind = ... }``;
a hierarchy may also be given as the path of an ARX hierarchy file (a ``str`` or
``os.PathLike``), read with ``hierarchy_delimiter``.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Sequence


def intervals(widths: Sequence[float]) -> Dict[str, object]:
    """Numeric intervals ``[lo, lo+w)`` aligned on multiples of each width, one level per
    width (widths must nest: each divides the next), then ``*``."""
    return {"kind": "intervals", "widths": [float(w) for w in widths]}


def mask() -> Dict[str, object]:
    """Characters masked from the right, one per level: ``24126 → 2412* → … → *****``."""
    return {"kind": "mask"}


def date(format: str) -> Dict[str, object]:
    """Dates written as ``format`` (``%d``, ``%m``, ``%y``/``%Y``): day → month → year → ``*``."""
    return {"kind": "date", "format": format}


def groups(levels: Sequence[Mapping[str, Sequence[str]]]) -> Dict[str, object]:
    """Explicit groupings, bottom up: per level, a group's label → the labels (or values)
    it groups; ``*`` is added above when the last level has more than one group."""
    out: List[Dict[str, List[str]]] = [
        {label: [str(v) for v in members] for label, members in level.items()}
        for level in levels
    ]
    return {"kind": "groups", "levels": out}


def suppress() -> Dict[str, object]:
    """One level ``*`` above the values: the column is kept or suppressed."""
    return {"kind": "suppress"}


def partitions(partitions: Mapping[str, Mapping[str, Sequence[str]]]) -> Dict[str, object]:
    """Admissible partitions that need not form a chain (set-based generalization):
    partition name → group label → the values in the group."""
    return {
        "kind": "partitions",
        "partitions": {
            name: {label: [str(v) for v in members] for label, members in groups.items()}
            for name, groups in partitions.items()
        },
    }
