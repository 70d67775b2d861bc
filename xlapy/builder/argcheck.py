"""Argument checking of the builder's op functions, derived from their signatures.

``validated(fn)`` wraps an op function so that, before it runs, every argument is checked
against its annotation (``XlaOp``, ``int``, ``Sequence[int]``, ``PaddingConfig | ...``) and
every XlaOp among the arguments comes from one builder. A mistake raises ``InvalidArgument``
at the call site naming the function, the argument, what it must be and what it got::

    Pad: padding_config must be a PaddingConfig or a sequence of sequences of ints; got None

Annotations it does not know (``object``, ``Any``) accept anything; the op's own shape
inference then checks values (ranks, dimension ranges, element types).
"""

from __future__ import annotations

import builtins
import collections.abc
import functools
import inspect
import sys
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from xlapy.builder.xla_builder import CURRENT_OP, XlaBuilder, XlaOp
from xlapy.errors import InvalidArgument

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Check:
    """A predicate on one argument value and its description (``an int``)."""

    accepts: Callable[[object], bool]
    description: str


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _is_real(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _is_bool(value: object) -> bool:
    return isinstance(value, bool | np.bool_) or (_is_int(value) and value in (0, 1))


def _is_sequence(value: object) -> bool:
    if isinstance(value, np.ndarray):
        return value.ndim >= 1
    return isinstance(value, collections.abc.Sequence) and not isinstance(value, str | bytes)


def _is_operand(value: object) -> bool:
    """An XlaOp, or what ``as_op`` may turn into a constant (it checks the values)."""
    if isinstance(value, XlaOp | np.ndarray | np.generic):
        return True
    if isinstance(value, int | float | complex):
        return True
    return isinstance(value, list | tuple) and all(_is_operand(v) for v in value)


ATOMS: dict[str, Check | None] = {
    "Operand": Check(_is_operand, "an XlaOp or a number"),
    "int": Check(_is_int, "an int"),
    "float": Check(_is_real, "a number"),
    "bool": Check(_is_bool, "a bool"),
    "str": Check(lambda v: isinstance(v, str), "a str"),
    "None": Check(lambda v: v is None, "None"),
    "object": None,
    "Any": None,
}


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _either(checks: list[Check | None]) -> Check | None:
    if any(c is None for c in checks):
        return None
    known = [c for c in checks if c is not None]
    if len(known) == 1:
        return known[0]
    descriptions = [c.description for c in known if c.description != "None"]
    if any(c.description == "None" for c in known):
        descriptions.append("None")
    return Check(lambda v: any(c.accepts(v) for c in known), " or ".join(descriptions))


def _sequence_of(inner: Check | None) -> Check:
    if inner is None:
        return Check(_is_sequence, "a sequence")
    plural = inner.description
    for article in ("an ", "a "):
        if plural.startswith(article):
            head, _, rest = plural[len(article) :].partition(" ")
            plural = f"{head}s {rest}".strip()  # "a sequence of ints" -> "sequences of ints"
            break
    return Check(
        lambda v: _is_sequence(v) and all(inner.accepts(e) for e in v),  # type: ignore[attr-defined]
        f"a sequence of {plural}",
    )


def compile_annotation(text: str, namespace: Mapping[str, Any]) -> Check | None:
    """The check for annotation ``text`` (names resolved in ``namespace``); None accepts
    anything."""
    text = text.strip()
    if text.startswith("'") or text.startswith('"'):
        text = text[1:-1]
    alternatives = _split_top(text, "|")
    if len(alternatives) > 1:
        return _either([compile_annotation(a, namespace) for a in alternatives])
    if text in ATOMS:
        return ATOMS[text]
    if text.startswith("Sequence[") and text.endswith("]"):
        return _sequence_of(compile_annotation(text[len("Sequence[") : -1], namespace))
    if text.startswith("Callable["):
        return Check(callable, "a function")
    value = namespace.get(text, getattr(builtins, text, None))
    return _compile_object(value, namespace) if value is not None else None


def _compile_object(value: object, namespace: Mapping[str, Any]) -> Check | None:
    """The check for a runtime annotation object (class, union, alias string)."""
    if isinstance(value, str):
        return compile_annotation(value, namespace)
    if value is type(None):
        return ATOMS["None"]
    if isinstance(value, types.UnionType) or typing.get_origin(value) is typing.Union:
        return _either([_compile_object(a, namespace) for a in typing.get_args(value)])
    origin = typing.get_origin(value)
    if origin is collections.abc.Sequence:
        (arg,) = typing.get_args(value) or (Any,)
        return _sequence_of(_compile_object(arg, namespace))
    if origin is collections.abc.Callable:
        return Check(callable, "a function")
    if isinstance(value, type):
        cls: type = value
        if cls.__name__ in ATOMS:
            return ATOMS[cls.__name__]
        article = "an" if cls.__name__[0].lower() in "aeiou" else "a"
        return Check(lambda v: isinstance(v, cls), f"{article} {cls.__name__}")
    return None


def _ops_in(value: object, depth: int = 0) -> list[XlaOp]:
    if isinstance(value, XlaOp):
        return [value]
    if depth < 2 and isinstance(value, list | tuple):
        return [op for item in value for op in _ops_in(item, depth + 1)]
    return []


def _show(value: object) -> str:
    if isinstance(value, XlaOp):
        return repr(value)
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return text if value is None else f"{type(value).__name__} {text}"


def validated(fn: F) -> F:
    """``fn`` checking its arguments against its signature first (see the module doc)."""
    signature = inspect.signature(fn)
    namespace = {**vars(sys.modules[fn.__module__]), "ComputationLike": "object"}
    checks: dict[str, Check] = {}
    for name, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = param.annotation
        if annotation is inspect.Parameter.empty:
            continue
        check = (
            compile_annotation(annotation, namespace)
            if isinstance(annotation, str)
            else _compile_object(annotation, namespace)
        )
        if check is not None:
            checks[name] = check
    op = fn.__name__
    usage = f"{op}({', '.join(_param_text(p) for p in signature.parameters.values())})"

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise InvalidArgument(f"{op}: {err}; the signature is {usage}") from None
        arguments = bound.arguments
        for name, check in checks.items():
            if name in arguments and not check.accepts(arguments[name]):
                raise InvalidArgument(
                    f"{op}: {name} must be {check.description}; got {_show(arguments[name])}"
                )
        _same_builder(op, arguments)
        token = CURRENT_OP.set(op)
        try:
            return fn(*args, **kwargs)
        finally:
            CURRENT_OP.reset(token)

    return typing.cast(F, wrapper)


def _same_builder(op: str, arguments: Mapping[str, object]) -> None:
    """Every XlaOp among the arguments belongs to the explicit builder argument, or to the
    builder of the first XlaOp."""
    owner: XlaBuilder | None = None
    owner_what = ""
    for name, value in arguments.items():
        if isinstance(value, XlaBuilder) and owner is None:
            owner, owner_what = value, name
    for name, value in arguments.items():
        for item in _ops_in(value):
            if owner is None:
                owner, owner_what = item.builder, name
            elif item.builder is not owner:
                raise InvalidArgument(
                    f"{op}: {name} {item.name} belongs to builder {item.builder.name!r}, not "
                    f"to {owner.name!r} (the builder of {owner_what}); every operand of an op "
                    "must come from the same builder"
                )


def _param_text(param: inspect.Parameter) -> str:
    if param.kind is param.VAR_POSITIONAL:
        return f"*{param.name}"
    if param.kind is param.VAR_KEYWORD:
        return f"**{param.name}"
    return param.name if param.default is inspect.Parameter.empty else f"{param.name}=..."


def validate_module(namespace: dict[str, Any], names: list[str]) -> None:
    """Replaces each function ``names`` of ``namespace`` by its ``validated`` form."""
    for name in names:
        value = namespace.get(name)
        if inspect.isfunction(value) and not hasattr(value, "__wrapped__"):
            namespace[name] = validated(value)
