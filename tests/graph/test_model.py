"""The drawing model of ``xlapy graph``: nodes, numbered edges, clusters, families, --depth."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlapy.errors import InvalidArgument
from xlapy.graph import build_graph
from xlapy.graph.families import OPCODE_FAMILY, Family
from xlapy.graph.model import ClusterKind, EdgeKind, Graph
from xlapy.ir import REGISTRY, HloModule, Opcode
from xlapy.loader import load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = sorted(EXAMPLES.glob("*.hlo"))

# One instruction of every family, and a while loop with its condition and body.
FAMILIES_HLO = """HloModule families, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}

cond {
  c = (s32[], f32[4]) parameter(0)
  ci = s32[] get-tuple-element(c), index=0
  limit = s32[] constant(3)
  ROOT lt = pred[] compare(ci, limit), direction=LT
}

body {
  state = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(state), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[4] get-tuple-element(state), index=1
  ROOT t = (s32[], f32[4]) tuple(next, v)
}

ENTRY main {
  x = f32[4] parameter(0)
  m = f32[4,4] parameter(1)
  e = f32[4] exponential(x)
  r = f32[4] reverse(e), dimensions={0}
  d = f32[4] dot(m, r), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  s = f32[] reduce(d, zero), dimensions={0}, to_apply=add
  ar = f32[4] all-reduce(d), replica_groups={}, to_apply=add
  tok = token[] after-all()
  out = token[] outfeed(ar, tok), outfeed_config="o", outfeed_shape=f32[4]{0}
  big = f32[3,4] constant({{1,2,3,4},{5,6,7,8},{9,10,11,12}})
  c0 = s32[] constant(0)
  init = (s32[], f32[4]) tuple(c0, ar)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  cc = f32[4] custom-call(x), custom_call_target="my<target>&\\"q\\""
  ROOT result = (f32[], f32[4], (s32[], f32[4]), f32[3,4], token[], f32[4]) tuple(s, ar, loop, big, out, cc)
}
"""


def by_name(graph: Graph) -> dict[str, str]:
    return {node.name: node.id for node in graph.nodes.values()}


def edges_into(graph: Graph, name: str) -> list[tuple[str, str, EdgeKind]]:
    """``(source name, label, kind)`` of the edges entering instruction ``name``."""
    names = {node.id: node.name for node in graph.nodes.values()}
    target = by_name(graph)[name]
    return [(names[e.source], e.label, e.kind) for e in graph.edges if e.target == target]


@pytest.fixture(scope="module")
def families() -> Graph:
    return build_graph(load(FAMILIES_HLO, verify=False))


def test_every_opcode_has_one_family() -> None:
    assert set(OPCODE_FAMILY) == set(REGISTRY)


def test_families_of_instructions(families: Graph) -> None:
    expected = {
        "x": Family.PARAMETER,
        "e": Family.ELEMENTWISE,
        "r": Family.DATA_MOVEMENT,
        "d": Family.CONTRACTION,
        "s": Family.REDUCTION,
        "ar": Family.COLLECTIVE,
        "out": Family.SIDE_EFFECT,
        "loop": Family.CONTROL_FLOW,
        "tok": Family.TUPLE,
        "zero": Family.CONSTANT,
        "cc": Family.CUSTOM_CALL,
    }
    got = {n.name: n.family for n in families.nodes.values() if n.name in expected}
    assert got == expected


def test_parameters_root_and_constants(families: Graph) -> None:
    nodes = {n.name: n for n in families.nodes.values()}
    assert (nodes["x"].title, nodes["x"].lines) == ("Parameter 0", ("x", "f32[4]"))
    assert nodes["m"].title == "Parameter 1"
    assert nodes["m"].is_parameter
    assert nodes["result"].title == "ROOT tuple"
    assert nodes["result"].is_root
    # Every computation marks its own root.
    assert {n.name for n in families.nodes.values() if n.is_root} == {"result", "sum", "lt", "t"}
    # A tiny constant shows its value, a 12-element one only its shape; both are small.
    assert nodes["zero"].lines == ("zero", "f32[] 0")
    assert nodes["zero"].small
    assert nodes["big"].lines == ("big", "f32[3,4]")
    assert nodes["big"].small
    assert nodes["d"].lines == ("d", "lhs_contracting_dims={1}", "rhs_contracting_dims={0}",
                                "f32[4]")  # fmt: skip


def test_operand_edges_are_numbered(families: Graph) -> None:
    # Several operands: each edge carries its operand number; one operand: no label.
    assert edges_into(families, "d") == [
        ("m", "0", EdgeKind.OPERAND),
        ("r", "1", EdgeKind.OPERAND),
    ]
    assert edges_into(families, "e") == [("x", "", EdgeKind.OPERAND)]
    labels = [label for _, label, kind in edges_into(families, "result")]
    assert labels == ["0", "1", "2", "3", "4", "5"]


def test_called_computations_are_clusters(families: Graph) -> None:
    clusters = {c.title: c for c in families.top.walk()}
    assert clusters["main"].kind is ClusterKind.TOP
    assert clusters["cond"].lines == ("condition of loop",)
    assert clusters["body"].lines == ("body of loop",)
    # `add` is called by the reduce and by the all-reduce: drawn once, in its first caller's
    # computation, with a call edge to each caller.
    assert clusters["add"].lines == ("to_apply of s",)
    assert [c.title for c in clusters["main"].clusters] == ["add", "cond", "body"]
    names = {n.id: n.name for n in families.nodes.values()}
    body = [names[n] for n in clusters["body"].nodes]
    assert body == ["state", "i", "one", "next", "v", "t"]
    calls = sorted((names[e.source], names[e.target], e.label)
                   for e in families.edges if e.kind is EdgeKind.CALL)  # fmt: skip
    assert calls == [("lt", "loop", "condition"), ("sum", "ar", "to_apply"),
                     ("sum", "s", "to_apply"), ("t", "loop", "body")]  # fmt: skip


def test_fusion_is_the_box_of_its_computation() -> None:
    module = load(EXAMPLES / "transformer.opt.hlo", verify=False)
    graph = build_graph(module)
    fusion = next(c for c in graph.top.walk() if c.lines[:1] == ("wrapped_reduce",))
    assert fusion.kind is ClusterKind.FUSION
    assert fusion.family is Family.FUSION
    assert fusion.title == "fusion"
    assert fusion.lines == ("wrapped_reduce", "kind=kLoop", "f32[2,6]",
                            "calls wrapped_reduce_computation")  # fmt: skip
    names = {n.id: n.name for n in graph.nodes.values()}
    assert "wrapped_reduce" not in by_name(graph)  # no node: the box stands for it
    inner = [names[n] for n in fusion.nodes]
    computation = module.computation("wrapped_reduce_computation")
    assert inner == [i.name for i in computation.instructions]
    # Operands enter the fused parameters with their numbers; users leave the fused root.
    for number, parameter in enumerate(computation.parameters):
        operand = module.entry.instruction("wrapped_reduce").operands[number]
        assert edges_into(graph, parameter.name) == [(operand.name, str(number),
                                                      EdgeKind.OPERAND)]  # fmt: skip
    # Its users are fusions too: the edge from the fused root enters their fused parameter.
    root = computation.root.name
    users = [i for i in module.entry.instructions
             if any(o.name == "wrapped_reduce" for o in i.operands)]  # fmt: skip
    assert users
    assert all(u.opcode is Opcode.FUSION for u in users)
    for user in users:
        number = [o.name for o in user.operands].index("wrapped_reduce")
        parameter = user.attrs.calls.parameter(number).name
        assert edges_into(graph, parameter) == [(root, str(number) if len(user.operands) > 1
                                                 else "", EdgeKind.OPERAND)]  # fmt: skip


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_every_instruction_drawn_once(path: Path) -> None:
    """Each instruction of each reachable computation is one node, except expanded fusions;
    each operand is one edge, and every edge joins two drawn nodes."""
    module: HloModule = load(path, verify=False)
    graph = build_graph(module)
    instructions = [i for c in module.computations for i in c.instructions]
    fusions = {i.name for i in instructions if i.opcode is Opcode.FUSION}
    drawn = [n.name for n in graph.nodes.values()]
    assert len(drawn) == len(set(drawn))
    reachable = {i.name for i in instructions} - fusions  # examples call every computation
    assert set(drawn) == reachable
    operand_edges = [e for e in graph.edges if e.kind is EdgeKind.OPERAND]
    assert len(operand_edges) == sum(len(i.operands) for i in instructions)
    clustered = [n for c in graph.top.walk() for n in c.nodes]
    assert sorted(clustered) == sorted(graph.nodes)
    assert all(e.source in graph.nodes and e.target in graph.nodes for e in graph.edges)


def test_depth_around_an_instruction(families: Graph) -> None:
    module = load(FAMILIES_HLO, verify=False)
    graph = build_graph(module, instruction="d", depth=1)
    assert sorted(by_name(graph)) == ["ar", "d", "m", "r", "s"]
    nodes = {n.name: n for n in graph.nodes.values()}
    assert nodes["d"].focus
    assert not nodes["r"].focus
    assert nodes["r"].hidden == "1 operand not shown"
    assert nodes["ar"].hidden == "3 users not shown"  # out, init, result
    assert nodes["d"].hidden == ""
    # Two steps reach across calls: from the reduce into its reducer (root and parameters).
    deeper = build_graph(module, instruction="d", depth=2)
    assert {"a", "b", "sum", "zero", "e"} <= set(by_name(deeper))
    assert "x" not in by_name(deeper)  # three steps: d, r, e, x
    assert {c.title for c in deeper.top.walk()} == {"main", "add"}
    # Depth 0: the instruction alone.
    assert list(by_name(build_graph(module, instruction="loop", depth=0))) == ["loop"]


def test_computation_choice() -> None:
    module = load(FAMILIES_HLO, verify=False)
    graph = build_graph(module, computation="body")
    assert graph.top.title == "body"
    assert sorted(by_name(graph)) == ["i", "next", "one", "state", "t", "v"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"depth": 2}, "--depth needs --instruction"),
        ({"instruction": "d", "depth": -1}, "--depth must be at least 0; got -1"),
        ({"instruction": "nope"}, "no instruction named 'nope' in computation main"),
        ({"computation": "nope"}, "no computation named 'nope'"),
        ({"computation": "cond", "instruction": "d"}, "no instruction named 'd'"),
    ],
)
def test_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        build_graph(load(FAMILIES_HLO, verify=False), **kwargs)  # type: ignore[arg-type]
