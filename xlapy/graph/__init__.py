"""Pictures of HLO modules (``xlapy graph``): the drawing model (``model``), op families and
colours (``families``), writers for Graphviz DOT (``dot``), SVG from xlapy's own layout
(``layout``, ``svg``) and a self-contained HTML page (``html``), and ``render``."""

from xlapy.graph.model import Graph, build_graph
from xlapy.graph.render import FORMATS, LAYOUTS, render

__all__ = ["FORMATS", "LAYOUTS", "Graph", "build_graph", "render"]
