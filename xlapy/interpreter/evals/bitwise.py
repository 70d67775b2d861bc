"""Bitwise and logical ops (and, or, xor, not, shifts, count-leading-zeros, popcnt) as table
rows: logical on pred, bitwise on the two's-complement pattern of integers.

Spec: stablehlo#and, #or, #xor, #not, #shift_left, #shift_right_arithmetic,
#shift_right_logical, #count_leading_zeros, #popcnt. Out-of-range shift amounts: ``intmath``.
"""

from __future__ import annotations

import numpy as np

from xlapy.interpreter import intmath
from xlapy.interpreter.evals.elementwise import Row, register, typeless
from xlapy.ir.opcode import Opcode

register(
    Row(Opcode.AND, pred=np.logical_and, integer=typeless(np.bitwise_and)),
    Row(Opcode.OR, pred=np.logical_or, integer=typeless(np.bitwise_or)),
    Row(Opcode.XOR, pred=np.logical_xor, integer=typeless(np.bitwise_xor)),
    Row(Opcode.NOT, pred=np.logical_not, integer=typeless(np.invert)),
    Row(Opcode.SHIFT_LEFT, integer=intmath.shift_left),
    Row(Opcode.SHIFT_RIGHT_ARITHMETIC, integer=intmath.shift_right_arithmetic),
    Row(Opcode.SHIFT_RIGHT_LOGICAL, integer=intmath.shift_right_logical),
    Row(Opcode.CLZ, integer=intmath.count_leading_zeros),
    Row(Opcode.POPCNT, integer=intmath.popcnt),
)
