"""Shape inference agrees with XLA on real programs: every instruction of the HLO modules that
jaxlib printed (``examples/*.hlo``, ``tests/e2e/**/*.hlo``) re-infers to its stored shape."""

from pathlib import Path

import pytest

from xlapy.ir import Opcode
from xlapy.shape_inference import infer_shape

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted({*ROOT.glob("examples/*.hlo"), *ROOT.glob("tests/e2e/**/*.hlo")})

# Ops whose result is declared by the instruction rather than determined by its operands.
DECLARED = {
    Opcode.PARAMETER, Opcode.CONVERT, Opcode.BITCAST_CONVERT, Opcode.BROADCAST, Opcode.RESHAPE,
    Opcode.IOTA, Opcode.RNG, Opcode.RNG_BIT_GENERATOR, Opcode.INFEED, Opcode.RECV,
    Opcode.CUSTOM_CALL, Opcode.DOT, Opcode.CONVOLUTION, Opcode.BITCAST, Opcode.CONSTANT,
    Opcode.ALL_GATHER, Opcode.REDUCE_SCATTER, Opcode.ASYNC_START, Opcode.ALL_GATHER_START,
    Opcode.DYNAMIC_RESHAPE, Opcode.COPY, Opcode.RAGGED_DOT, Opcode.SCALED_DOT,
    Opcode.RNG_GET_AND_UPDATE_STATE,
}  # fmt: skip


@pytest.mark.skipif(not FILES, reason="no jaxlib-printed HLO files in this checkout")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_instruction_reinfers_to_its_shape(path):
    hlo_parser = pytest.importorskip("xlapy.text.hlo_parser")
    module = hlo_parser.parse_hlo(path.read_text(), str(path))
    for instr in module.instructions():
        declared = instr.shape if instr.opcode in DECLARED else None
        shape = infer_shape(instr.opcode, [o.shape for o in instr.operands], instr.attrs,
                            result=declared, name=instr.name)  # fmt: skip
        assert shape.compatible(instr.shape), (
            f"{instr.name}: inferred {shape}, stored {instr.shape}"
        )
