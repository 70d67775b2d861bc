"""Indexing analysis: affine expressions, indexing maps, their simplifier and text form,
per-op output-to-input / input-to-output maps and their composition through fusions.

Spec: ``INDEXING.md`` (XLA's HLO indexing analysis).
"""

from xlapy.indexing.affine import AffineExpr, constant, dim, symbol
from xlapy.indexing.indexing_map import IndexingMap, Variable, compose
from xlapy.indexing.interval import Interval
from xlapy.indexing.text import format_indexing_map, parse_affine_expr, parse_indexing_map

__all__ = [
    "AffineExpr",
    "IndexingMap",
    "Interval",
    "Variable",
    "compose",
    "constant",
    "dim",
    "format_indexing_map",
    "parse_affine_expr",
    "parse_indexing_map",
    "symbol",
]
