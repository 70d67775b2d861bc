"""Mutations of program text and of ``.npz`` bytes.

Text mutations act on tokens (names, numbers, punctuation), lines or characters: truncation,
deleted / duplicated / swapped / replaced tokens, changed numbers (boundary and huge values),
element types, dimensions and layouts, flipped characters, non-ASCII characters, deep
bracket nesting, repeated lines, pieces spliced from another program, and (StableHLO) pretty
ops rewritten in the generic form. ``mutate_text`` applies one to three of them.

Byte mutations of ``.npz`` archives: flipped, deleted or inserted bytes, truncation, and
``.npy`` members rewritten with headers that claim other shapes, dtypes or pickled objects.
"""

from __future__ import annotations

import io
import random
import re
import zipfile
from collections.abc import Callable, Sequence

_TOKEN = re.compile(r"%?[A-Za-z_][\w.\-]*|-?\d+(?:\.\d+)?(?:e-?\d+)?|\S")
_NUMBER = re.compile(r"-?\d+")
_ETYPE = re.compile(r"(?:^|x)((?:f|s|u|i|ui|bf|c)\d+|pred)$")
_DIMS = re.compile(r"\d+x|\[\d+(?:,\d+)*\]")
_LAYOUT = re.compile(r"\{\d+(?:,\d+)*\}")
_PRETTY_BINARY = re.compile(
    r"(%[\w#]+) = stablehlo\.(add|subtract|multiply|divide|maximum|minimum|and|or|xor|"
    r"remainder|power|atan2) (%[\w#]+), (%[\w#]+) : (tensor<[^>]*>)"
)
_PRETTY_UNARY = re.compile(
    r"(%[\w#]+) = stablehlo\.(negate|abs|exponential|log|sqrt|tanh|not|sine|cosine|floor) "
    r"(%[\w#]+) : (tensor<[^>]*>)"
)

TYPES = ["f32", "s32", "pred", "f16", "u8", "s64", "bf16", "i32", "i1", "f64", "ui8", "c64",
         "s4", "u64", "f8e4m3fn", "token", "i0", "f0", "s128"]  # fmt: skip
NUMBERS = [0, 1, -1, 2, 3, 7, 100, 65536, 65537, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63,
           2**64, -(2**63), -(2**31), 10**30, -5]  # fmt: skip
ODD_TEXT = ["é", "٣", "²", "\u200b", "\ufeff", "😀", "\x00", "\t", "\r", "\\", '"', "'", "/*",
            "//", "loc(", "#", "!", "^", "@", "%", "<=", "->", "...", "1e400", "nan", "-inf",
            "0x", "999999999999999999999999999999"]  # fmt: skip
OPENERS = ["(", "[", "{", "tuple<", "tensor<"]
CLOSERS = {"(": ")", "[": "]", "{": "}", "tuple<": ">", "tensor<": ">"}

MAX_TEXT = 1 << 20
"""Mutated texts stay under a megabyte: parsing is linear, but a 10 MB text takes longer than
a case's time limit without anything being wrong."""

Mutation = Callable[[str, random.Random, Sequence[str]], str]


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(text)] or [(0, len(text))]


def truncate(text: str, rng: random.Random, others: Sequence[str]) -> str:
    return text[: rng.randrange(len(text) + 1)]


def delete_token(text: str, rng: random.Random, others: Sequence[str]) -> str:
    start, end = rng.choice(_tokens(text))
    return text[:start] + text[end:]


def duplicate_token(text: str, rng: random.Random, others: Sequence[str]) -> str:
    start, end = rng.choice(_tokens(text))
    return text[:end] + " " + text[start:end] + text[end:]


def swap_tokens(text: str, rng: random.Random, others: Sequence[str]) -> str:
    tokens = _tokens(text)
    if len(tokens) < 2:
        return text
    i = rng.randrange(len(tokens) - 1)
    (s1, e1), (s2, e2) = tokens[i], tokens[i + 1]
    return text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]


def replace_token(text: str, rng: random.Random, others: Sequence[str]) -> str:
    tokens = _tokens(text)
    start, end = rng.choice(tokens)
    s2, e2 = rng.choice(tokens)
    return text[:start] + text[s2:e2] + text[end:]


def change_number(text: str, rng: random.Random, others: Sequence[str]) -> str:
    numbers = [m.span() for m in _NUMBER.finditer(text)]
    if not numbers:
        return text
    start, end = rng.choice(numbers)
    return text[:start] + str(rng.choice(NUMBERS)) + text[end:]


def change_type(text: str, rng: random.Random, others: Sequence[str]) -> str:
    typed = [(t, m) for t in _tokens(text) if (m := _ETYPE.search(text[t[0] : t[1]]))]
    if not typed:
        return text
    (start, _), m = rng.choice(typed)
    return text[: start + m.start(1)] + rng.choice(TYPES) + text[start + m.end(1) :]


def change_dims(text: str, rng: random.Random, others: Sequence[str]) -> str:
    spans = [m.span() for m in _DIMS.finditer(text)]
    if not spans:
        return text
    start, end = rng.choice(spans)
    if text[start:end].endswith("x"):
        return text[:start] + f"{rng.choice([0, 1, 2, 3, 5, 2**31])}x" + text[end:]
    dims = ",".join(str(rng.choice([0, 1, 2, 3])) for _ in range(rng.randrange(5)))
    return text[:start] + f"[{dims}]" + text[end:]


def change_layout(text: str, rng: random.Random, others: Sequence[str]) -> str:
    spans = [m.span() for m in _LAYOUT.finditer(text)]
    if not spans:
        return text
    start, end = rng.choice(spans)
    dims = ",".join(str(rng.choice([0, 1, 2, 7, -1])) for _ in range(rng.randrange(4)))
    return text[:start] + "{" + dims + "}" + text[end:]


def flip_character(text: str, rng: random.Random, others: Sequence[str]) -> str:
    if not text:
        return text
    i = rng.randrange(len(text))
    return text[:i] + chr(rng.randrange(32, 127)) + text[i + 1 :]


def insert_odd_text(text: str, rng: random.Random, others: Sequence[str]) -> str:
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(ODD_TEXT) + text[i:]


def nest_deeply(text: str, rng: random.Random, others: Sequence[str]) -> str:
    start, end = rng.choice(_tokens(text))
    opener = rng.choice(OPENERS)
    depth = rng.choice([5, 50, 130, 1000, 20_000])
    return text[:start] + opener * depth + text[start:end] + CLOSERS[opener] * depth + text[end:]


def repeat_line(text: str, rng: random.Random, others: Sequence[str]) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = rng.randrange(len(lines))
    return "".join(lines[:i] + [lines[i]] * rng.choice([2, 3, 50]) + lines[i:])


def delete_line(text: str, rng: random.Random, others: Sequence[str]) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = rng.randrange(len(lines))
    return "".join(lines[:i] + lines[i + 1 :])


def splice(text: str, rng: random.Random, others: Sequence[str]) -> str:
    """A run of lines from another program put in place of a run of this one's."""
    if not others:
        return text
    lines = text.splitlines(keepends=True)
    donor = rng.choice(others).splitlines(keepends=True)
    if not lines or not donor:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(donor))
    return "".join(lines[:i] + donor[j : j + rng.randint(1, 4)] + lines[i + rng.randint(0, 2) :])


def to_generic(text: str, rng: random.Random, others: Sequence[str]) -> str:
    """StableHLO pretty elementwise ops rewritten in MLIR's generic form."""

    def binary(m: re.Match[str]) -> str:
        result, name, lhs, rhs, type_ = m.groups()
        return f'{result} = "stablehlo.{name}"({lhs}, {rhs}) : ({type_}, {type_}) -> {type_}'

    def unary(m: re.Match[str]) -> str:
        result, name, operand, type_ = m.groups()
        return f'{result} = "stablehlo.{name}"({operand}) : ({type_}) -> {type_}'

    return _PRETTY_UNARY.sub(unary, _PRETTY_BINARY.sub(binary, text))


TEXT_MUTATIONS: dict[str, Mutation] = {
    "truncate": truncate,
    "delete": delete_token,
    "duplicate": duplicate_token,
    "swap": swap_tokens,
    "replace": replace_token,
    "number": change_number,
    "type": change_type,
    "dims": change_dims,
    "layout": change_layout,
    "flip": flip_character,
    "odd-text": insert_odd_text,
    "nest": nest_deeply,
    "repeat-line": repeat_line,
    "delete-line": delete_line,
    "splice": splice,
    "generic": to_generic,
}
# Weights: the structure-preserving mutations reach deeper than those that break syntax.
_WEIGHTS = {"number": 4, "type": 3, "dims": 3, "replace": 2, "delete": 2, "swap": 2,
            "duplicate": 2, "layout": 1, "flip": 1, "odd-text": 1, "nest": 1, "truncate": 1,
            "repeat-line": 1, "delete-line": 1, "splice": 1, "generic": 1}  # fmt: skip


def mutate_text(text: str, rng: random.Random, others: Sequence[str] = ()) -> tuple[str, str]:
    """One to three random mutations of ``text``; returns the text and the mutations' names."""
    names = list(TEXT_MUTATIONS)
    weights = [_WEIGHTS[n] for n in names]
    applied = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        name = rng.choices(names, weights)[0]
        mutated = TEXT_MUTATIONS[name](text, rng, others)
        if len(mutated) <= MAX_TEXT:  # repeated lines can grow a text past any time limit
            text = mutated
            applied.append(name)
    return text, "+".join(applied) or "none"


# ---- .npz archives ---------------------------------------------------------------------------


def npy_member(header: dict[str, object], body: bytes) -> bytes:
    """A version 1.0 ``.npy`` member with ``header`` written as given (true or not)."""
    text = repr(header).encode()
    pad = 64 - (10 + len(text) + 1) % 64
    return (b"\x93NUMPY\x01\x00" + (len(text) + pad + 1).to_bytes(2, "little") + text
            + b" " * pad + b"\n" + body)  # fmt: skip


_DESCRS = ["<f4", "<f8", "<i4", "<i8", "|b1", "|u1", "|i1", ">f4", "<c8", "|V2", "|V0", "|O",
           "<U3", "|S2", "<m8", "<M8[s]", [("x", "<f4")], "<f2", "<f16"]  # fmt: skip
_SHAPES = [(), (0,), (2,), (2, 3), (10**20,), (100_000, 1_000_000), (-3,), (2**62, 4), (1,) * 40]


def rewrite_member(data: bytes, rng: random.Random) -> bytes:
    """The archive with one member replaced by a ``.npy`` whose header may lie."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = {i.filename: archive.read(i) for i in archive.infolist()}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        return data
    if not members:
        return data
    name = rng.choice(sorted(members))
    header = {"descr": rng.choice(_DESCRS), "fortran_order": rng.random() < 0.2,
              "shape": rng.choice(_SHAPES)}  # fmt: skip
    body = members[name][rng.randrange(len(members[name]) + 1) :]
    if rng.random() < 0.3:
        body = b"\x80\x04\x95" + body  # a pickle opcode
    members[name] = npy_member(header, body)
    if rng.random() < 0.2:
        members[name.removesuffix(".npy")] = members[name]  # the same entry twice
    out = io.BytesIO()
    compression = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
    with zipfile.ZipFile(out, "w", compression) as archive:
        for member, content in members.items():
            archive.writestr(member, content)
    return out.getvalue()


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One random mutation of an ``.npz`` archive's bytes; returns the bytes and its name."""
    kind = rng.choice(["flip", "flip", "truncate", "delete", "insert", "rewrite", "rewrite"])
    if kind == "rewrite":
        return rewrite_member(data, rng), kind
    if not data:
        return data, kind
    buffer = bytearray(data)
    i = rng.randrange(len(buffer))
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            buffer[rng.randrange(len(buffer))] = rng.randrange(256)
    elif kind == "truncate":
        del buffer[i:]
    elif kind == "delete":
        del buffer[i : i + rng.randint(1, 16)]
    else:
        buffer[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(buffer), kind
