"""Pictures of HLO modules: the graph model, and writers for DOT, SVG and a self-contained
HTML page (``xlapy graph``)."""

from xlapy.graph.model import Graph, build_graph

__all__ = ["Graph", "build_graph"]
