"""Core data model: element types, shapes, literals, IR construction and the registry."""

import ml_dtypes
import numpy as np
import pytest

from xlapy import dtypes
from xlapy.errors import InvalidArgument
from xlapy.ir import REGISTRY, HloComputation, HloInstruction, HloModule, Opcode
from xlapy.ir import attrs as A
from xlapy.literal import Literal, values_equal
from xlapy.shape import UNBOUNDED, Shape


def test_every_opcode_has_an_opdef():
    assert [o for o in Opcode if o not in REGISTRY] == []


def test_opcode_sections_are_sorted():
    names = [o.name for o in Opcode]
    xla = names[: names.index("XOR") + 1]
    ext = names[names.index("XOR") + 1 :]
    assert xla == sorted(xla)
    assert ext == sorted(ext)


@pytest.mark.parametrize(
    ("name", "mlir", "np_type", "bits"),
    [
        ("pred", "i1", np.bool_, 8),
        ("s4", "i4", ml_dtypes.int4, 4),
        ("u2", "ui2", ml_dtypes.uint2, 2),
        ("bf16", "bf16", ml_dtypes.bfloat16, 16),
        ("f8e4m3fn", "f8E4M3FN", ml_dtypes.float8_e4m3fn, 8),
        ("c64", "complex<f32>", np.complex64, 64),
        ("f4e2m1fn", "f4E2M1FN", ml_dtypes.float4_e2m1fn, 4),
    ],
)
def test_element_type_table(name, mlir, np_type, bits):
    t = dtypes.from_name(name)
    assert t.mlir == mlir
    assert t.numpy == np.dtype(np_type)
    assert t.bits == bits
    assert dtypes.from_mlir(mlir) is t
    assert dtypes.from_numpy(np_type) is t


def test_unknown_type_names_the_type():
    with pytest.raises(InvalidArgument, match="f31"):
        dtypes.from_name("f31")


def test_shape_printing():
    assert str(Shape.array(dtypes.F32, [2, 3])) == "f32[2,3]{1,0}"
    assert str(Shape.array(dtypes.F32, [2, 3], [0, 1])) == "f32[2,3]{0,1}"
    assert str(Shape.scalar(dtypes.S32)) == "s32[]"
    assert str(Shape.array(dtypes.F32, [4], dynamic=[True])) == "f32[<=4]{0}"
    assert str(Shape.array(dtypes.F32, [UNBOUNDED, 3])) == "f32[?,3]{1,0}"
    t = Shape.tuple_of([Shape.scalar(dtypes.S32), Shape.token()])
    assert str(t) == "(s32[], token[])"
    assert Shape.array(dtypes.F32, [2, 3]).to_mlir() == "tensor<2x3xf32>"
    assert Shape.array(dtypes.C64, [2]).to_mlir() == "tensor<2xcomplex<f32>>"


def test_literal_equality_is_bitwise():
    a = Literal.from_numpy(np.array([0.0, np.nan], np.float32))
    b = Literal.from_numpy(np.array([-0.0, np.nan], np.float32))
    assert a != b
    assert a == Literal.from_numpy(np.array([0.0, np.nan], np.float32))
    assert values_equal((np.int8(1),), (np.int8(1),))


def test_attrs_are_schema_checked():
    x = HloInstruction(
        Opcode.PARAMETER, Shape.array(dtypes.F32, [2]), attrs={"parameter_number": 0}
    )
    with pytest.raises(InvalidArgument, match="unknown attribute 'bogus'"):
        HloInstruction(Opcode.NEGATE, x.shape, [x], {"bogus": 1})
    with pytest.raises(InvalidArgument, match="missing required attribute 'direction'"):
        HloInstruction(Opcode.COMPARE, x.shape, [x, x], {})
    cmp = HloInstruction(Opcode.COMPARE, x.shape, [x, x], {"direction": A.ComparisonDirection.LT})
    assert cmp.attrs.direction is A.ComparisonDirection.LT
    assert cmp.attrs.type is None


def test_module_names_are_unique():
    m = HloModule("m")
    c = HloComputation("main")
    m.add_computation(c, entry=True)
    s = Shape.scalar(dtypes.F32)
    p = c.add_instruction(
        HloInstruction(Opcode.PARAMETER, s, attrs={"parameter_number": 0}, name="x")
    )
    a = c.add_instruction(HloInstruction(Opcode.NEGATE, s, [p], name="x"))
    assert (p.name, a.name) == ("x", "x.1")
    assert c.post_order() == [p, a]
    assert m.entry.root is a


def test_window_and_dim_labels_print():
    w = A.Window.make([3, 3], [2, 2], [(1, 1), (0, 2)], window_dilation=[2, 1])
    assert str(w) == "{size=3x3 stride=2x2 pad=1_1x0_2 rhs_dilate=2x1}"
    dn = A.ConvolutionDimensionNumbers.from_labels("bf01_oi01->b01f")
    assert dn.to_labels() == "bf01_oi01->b01f"
    assert dn.output_feature_dimension == 3
    assert str(A.PaddingConfig.make([(1, 2, 1), (-1, 3, 0)])) == "1_2_1x-1_3"
    assert A.IotaReplicaGroupList(4, 2, (2, 4), (1, 0)).expand() == ((0, 4), (1, 5), (2, 6), (3, 7))
