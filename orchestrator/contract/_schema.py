"""Every schema problem of a task.toml at once, each with the allowed values.

msgspec stops at the first error. Here each top-level field, and each element of a list
field, is converted on its own; inside one, an offending optional key is dropped and the
conversion retried, so independent problems are all reported. An error on a choice
(enum, tag, unknown key) lists what is allowed, read from the type itself.
"""

from __future__ import annotations

import copy
import re
import typing
from typing import Any

import msgspec
from msgspec import inspect as mi

_PATH = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]")
_UNKNOWN = re.compile(r"unknown field `([^`]+)`")
_MISSING = re.compile(r"missing required field `([^`]+)`")
_MAX_TRIES = 50


def _strip(t: mi.Type) -> mi.Type:
    """The one non-None member of an optional type."""
    if isinstance(t, mi.UnionType):
        members = [m for m in t.types if not isinstance(m, mi.NoneType)]
        if len(members) == 1:
            return members[0]
    return t


def _step(t: mi.Type, key: str | int, data: Any) -> mi.Type | None:
    t = _strip(t)
    if isinstance(key, int):
        if isinstance(t, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
            return t.item_type
        return None
    if isinstance(t, mi.UnionType):  # tagged union: pick by the tag in the data
        for m in t.types:
            if isinstance(m, mi.StructType) and isinstance(data, dict):
                if m.tag_field and data.get(m.tag_field) == m.tag:
                    return _step(m, key, data)
        if key in {m.tag_field for m in t.types if isinstance(m, mi.StructType)}:
            return t
        return None
    if isinstance(t, mi.StructType):
        for f in t.fields:
            if f.encode_name == key:
                return f.type
        if key == t.tag_field:
            return t
    return None


def _allowed(t: mi.Type | None, message: str) -> str:
    t = None if t is None else _strip(t)
    if isinstance(t, mi.LiteralType):
        return ", ".join(repr(v) for v in t.values)
    if isinstance(t, mi.UnionType):
        tags = [m.tag for m in t.types if isinstance(m, mi.StructType) and m.tag is not None]
        if tags and ("Invalid value" in message or "missing required field" in message):
            return ", ".join(repr(x) for x in tags)
    if isinstance(t, mi.StructType) and "unknown field" in message:
        return ", ".join(repr(f.encode_name) for f in t.fields)
    return ""


def _walk(root: mi.Type, data: Any, path: list[str | int]) -> tuple[mi.Type | None, Any]:
    t: mi.Type | None = root
    node = data
    for key in path:
        if t is None:
            return None, None
        t = _step(t, key, node)
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            node = None
    return t, node


def _parse(path: str) -> list[str | int]:
    return [m[1] if m[1] else int(m[2]) for m in _PATH.finditer(path)]


def _problems_of(value: Any, typ: Any, where: str, prefix: list[str | int]) -> list[str]:
    """Every problem of `value` as `typ`, dropping an offending key and retrying."""
    info = mi.type_info(typ)
    out: list[str] = []
    value = copy.deepcopy(value)
    dropped: list[str | int] | None = None
    for _ in range(_MAX_TRIES):
        try:
            msgspec.convert(value, typ)
            return out
        except msgspec.ValidationError as exc:
            msg, _, at = str(exc).partition(" - at `$")
            path = _parse(at.rstrip("`"))
            missing = _MISSING.search(msg)
            if dropped is not None and missing and dropped == [*path, missing[1]]:
                return out  # the key dropped for the last problem was required: said once
            unknown = _UNKNOWN.search(msg)
            allowed = _allowed(_walk(info, value, path)[0], msg)
            full = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in prefix + path)
            line = f"{where}:{full.lstrip('.') or '(top level)'}: {msg[0].lower() + msg[1:]}"
            out.append(line + (f" (allowed: {allowed})" if allowed else ""))
            dropped = [*path, unknown[1]] if unknown else path
            if not _drop(value, dropped):
                return out
    return out


def _drop(data: Any, path: list[str | int]) -> bool:
    """Remove the value at `path` (a key of a table); False when it cannot be dropped."""
    if not path or not isinstance(path[-1], str):
        return False
    node = data
    for key in path[:-1]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return False
    if not isinstance(node, dict) or path[-1] not in node:
        return False
    del node[path[-1]]
    return True


def schema_problems(data: dict[str, Any], contract_type: Any, where: str) -> list[str]:
    """One line per problem: each field, and each element of a list field, on its own."""
    info = mi.type_info(contract_type)
    assert isinstance(info, mi.StructType)
    fields = {f.encode_name: f for f in info.fields}
    out: list[str] = []
    for key in data:
        if key not in fields:
            names = ", ".join(repr(n) for n in fields)
            out.append(f"{where}:{key}: object contains unknown field `{key}` (allowed: {names})")
    for name, f in fields.items():
        if name not in data:
            if f.required:
                out.append(f"{where}:{name}: missing required field")
            continue
        value = data[name]
        item = _strip(f.type)
        if isinstance(item, (mi.ListType, mi.VarTupleType)) and isinstance(value, list):
            sub = _python_type(contract_type, name, item=True)
            for i, elem in enumerate(value):
                out += _problems_of(elem, sub, where, [name, i])
        else:
            out += _problems_of(value, _python_type(contract_type, name), where, [name])
    return out


def _python_type(struct: Any, name: str, item: bool = False) -> Any:
    hints = typing.get_type_hints(struct)
    for f in msgspec.structs.fields(struct):
        if f.encode_name == name:
            t = hints[f.name]
            if item:
                args = [a for a in typing.get_args(t) if a is not Ellipsis]
                return args[0]
            return t
    raise KeyError(name)
