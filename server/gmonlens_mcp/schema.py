"""The tools' argument schemas (JSON Schema, the subset they use) and their validation.

`check(schema, arguments)` returns the arguments with defaults filled in, or raises
`RpcError(INVALID_PARAMS)` naming the first argument that does not fit: unknown names
(`additionalProperties: false`), missing required ones, wrong types (JSON's: a boolean is not an
integer, 1.0 is an integer), strings empty or too long, numbers out of range, values outside an
`enum`, arrays too long or of the wrong items. The subset: object, string, integer, number,
boolean, array of strings; `default`, `enum`, `minimum`, `maximum`, `minLength`, `maxLength`,
`maxItems`, `required`.
"""

from __future__ import annotations

from typing import Any

from .rpc import INVALID_PARAMS, RpcError

_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v == v,
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _bad(name: str, why: str) -> RpcError:
    return RpcError(INVALID_PARAMS, f"argument `{name}` {why}", {"argument": name})


def _value(name: str, spec: dict[str, Any], value: Any) -> Any:
    kind = spec["type"]
    if not _TYPES[kind](value):
        raise _bad(name, f"must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not {json_type(value)}")
    if "enum" in spec and value not in spec["enum"]:
        raise _bad(name, "must be one of " + ", ".join(repr(e) for e in spec["enum"]))
    if kind == "integer":
        value = int(value)
    if kind in ("integer", "number"):
        if "minimum" in spec and value < spec["minimum"]:
            raise _bad(name, f"must be at least {spec['minimum']}")
        if "maximum" in spec and value > spec["maximum"]:
            raise _bad(name, f"must be at most {spec['maximum']}")
    if kind == "string":
        if len(value) < spec.get("minLength", 0):
            raise _bad(name, "must not be empty")
        if len(value) > spec.get("maxLength", 1 << 30):
            raise _bad(name, f"must be at most {spec['maxLength']} characters")
        if "\0" in value:
            raise _bad(name, "must not contain a NUL character")
    if kind == "array":
        if len(value) > spec.get("maxItems", 1 << 30):
            raise _bad(name, f"must have at most {spec['maxItems']} items")
        if len(value) < spec.get("minItems", 0):
            raise _bad(name, f"must have at least {spec['minItems']} item(s)")
        value = [_value(f"{name}[{i}]", spec["items"], v) for i, v in enumerate(value)]
    return value


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    for name in ("boolean", "integer", "number", "string", "array", "object"):
        if _TYPES[name](value):
            return name
    return type(value).__name__


def check(schema: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """The arguments, checked against `schema` and completed with its defaults (module contract)."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise RpcError(INVALID_PARAMS, f"arguments must be an object, not {json_type(arguments)}")
    props: dict[str, Any] = schema.get("properties", {})
    unknown = [k for k in arguments if k not in props]
    if unknown:
        known = ", ".join(props) or "none"
        raise RpcError(
            INVALID_PARAMS, f"unknown argument `{unknown[0]}` (arguments: {known})", {"argument": unknown[0]}
        )
    for name in schema.get("required", ()):
        if name not in arguments:
            raise _bad(name, "is required")
    out: dict[str, Any] = {}
    for name, spec in props.items():
        if name in arguments:
            out[name] = _value(name, spec, arguments[name])
        elif "default" in spec:
            out[name] = spec["default"]
    return out
