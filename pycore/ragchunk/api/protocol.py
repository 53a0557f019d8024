"""The worker protocol, defined once in ``protocol.json`` beside this module, and its checks.

The page's side reads the same file (build.py writes it into the site as ``core/protocol.js``;
``web/core/messages.js`` checks with it), so both ends agree on every message by
construction. :func:`request_errors` is what the workspace answers a bad request with;
:func:`message_problems` and :func:`reply_problems` hold a message or a reply to the
definition (the tests do, for every kind).

>>> KINDS[:3], PROTOCOL["version"]
(('spec', 'calculate', 'load'), 2)
>>> [e.to_json()["message"] for e in request_errors("chunks", {"doc": 1, "first": 0}, None)]
['doc of the chunks request must be a string, not a whole number']
>>> reply_problems("drop", {"ok": True, "result": {"documents": "1"}}, with_id=False)
['result.documents: must be a whole number, not a string']
"""

from __future__ import annotations

import json
import math
import re
from importlib import resources
from typing import Any

from ..errors import RagchunkError

PROTOCOL: dict[str, Any] = json.loads(resources.files(__package__).joinpath("protocol.json").read_text("utf-8"))
KINDS: tuple[str, ...] = tuple(PROTOCOL["kinds"])
# A placeholder of an error's sentence: "{field}".
PLACEHOLDER = re.compile(r"\{(\w+)\}")

# --- describing values and fields --------------------------------------------------------
#
# Each sentence is built the same way by web/core/messages.js: the page and the core say a
# bad request in the same words.

_ONE = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false",
        "null": "null", "array": "a list", "object": "an object", "bytes": "bytes"}
_MANY = {"string": "strings", "integer": "whole numbers", "number": "numbers", "boolean": "true or false values",
         "null": "nulls", "array": "lists", "object": "objects", "bytes": "bytes"}


def _types(field: dict[str, Any]) -> list[str]:
    kind = field.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _type_of(value: object) -> str:
    """The protocol's type of a decoded JSON value (an integral float is a whole number, as in JavaScript)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if math.isfinite(value) and value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is(kind: str, value: object) -> bool:
    found = _type_of(value)
    if kind == "number":
        return found == "integer" or (found == "number" and math.isfinite(value))
    return found == kind


def expected(field: dict[str, Any]) -> str:
    """What ``field`` takes, in words: "a string or a number", "a list of strings"."""
    words = []
    for kind in _types(field):
        items = field.get("items")
        if kind == "array" and items:
            words.append("a list of " + " or ".join(_MANY[k] for k in _types(items)))
        else:
            words.append(_ONE[kind])
    return " or ".join(words)


def given(field: dict[str, Any], value: object) -> str:
    """What ``value`` is, in words, where ``field`` refuses it ("a list holding a number")."""
    if isinstance(value, float) and not math.isfinite(value):
        return "a number JSON cannot hold"
    found = _type_of(value)
    if found == "number":
        return "a fractional number"
    items = field.get("items")
    if found == "array" and items and "array" in _types(field):
        for item in value:
            if _value_problems(items, item, ""):
                return "a list holding " + given(items, item)
    return _ONE.get(found, found)


# --- checking any value against a field ---------------------------------------------------

def _value_problems(field: dict[str, Any], value: object, path: str) -> list[str]:
    """What is wrong with ``value`` as ``field``, each as "path: sentence"; [] when nothing is."""
    where = f"{path}: " if path else ""
    kinds = _types(field)
    if not any(_is(kind, value) for kind in kinds):
        return [f"{where}must be {expected(field)}, not {given(field, value)}"]
    if "values" in field and value is not None and value not in field["values"]:
        return [f"{where}{_shown(value)} is not one of {_choices(field['values'])}"]
    if isinstance(value, list) and field.get("items"):
        return [problem for i, item in enumerate(value) for problem in _value_problems(field["items"], item, f"{path}[{i}]")]
    if isinstance(value, dict) and field.get("shape"):
        return fields_problems(PROTOCOL["shapes"][field["shape"]], value, path)
    return []


def fields_problems(fields: dict[str, dict[str, Any]], value: dict[str, Any], path: str = "") -> list[str]:
    """What is wrong with the object ``value`` that may hold ``fields`` and only those."""
    prefix = f"{path}." if path else ""
    problems = []
    for name, field in fields.items():
        if name not in value:
            if field.get("required"):
                problems.append(f"{prefix}{name}: is missing")
            continue
        problems += _value_problems(field, value[name], prefix + name)
    problems += [f"{prefix}{name}: is not a field of the protocol" for name in value if name not in fields]
    return problems


def _shown(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _choices(names: Any) -> str:
    return ", ".join(_shown(name) for name in names) or "(none)"


# --- requests -----------------------------------------------------------------------------

def protocol_error(code: str, params: dict[str, Any], field: str = "request") -> RagchunkError:
    """The error ``code`` of the protocol's ``errors``, its sentence filled from ``params``;
    its field is the one the definition names, else ``field``."""
    template = PROTOCOL["errors"][code]
    message = PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), template["message"])
    return RagchunkError(template.get("field", field), message, code, params)


def unknown_request(kind: object) -> RagchunkError:
    """The error for a request kind the protocol does not have."""
    return protocol_error("unknown_request", {"kind": str(kind), "choices": ", ".join(KINDS)})


def request_errors(kind: str, payload: object, document: object) -> list[RagchunkError]:
    """Every way request ``kind`` breaks the protocol, one error per field: its document
    (``None``: none was sent), then its payload's fields in the order of the definition,
    then the fields the kind does not have.

    >>> [e.field for e in request_errors("analyze", {"chunksize": 8}, "text")]
    ['document', 'doc', 'chunksize']
    >>> request_errors("nope", {}, None)[0].code
    'unknown_request'
    """
    if not isinstance(kind, str) or kind not in PROTOCOL["kinds"]:
        return [unknown_request(kind)]
    spec = PROTOCOL["kinds"][kind]
    errors = []
    if spec["document"] == "none" and document is not None:
        errors.append(protocol_error("request_no_document", {"kind": kind}))
    elif spec["document"] == "required":
        errors += _field_errors(kind, "document", {"type": ["string", "bytes"], "required": True},
                                document is not None, document)
    if not isinstance(payload, dict):
        return errors + _field_errors(kind, "payload", {"type": "object"}, True, payload)
    fields = spec["payload"]
    for name, field in fields.items():
        errors += _field_errors(kind, name, field, name in payload, payload.get(name))
    errors += [protocol_error("request_field_unknown", {"kind": kind, "field": name, "choices": _choices(fields)}, name)
               for name in payload if name not in fields]
    return errors


def _field_errors(kind: str, name: str, field: dict[str, Any], present: bool, value: object) -> list[RagchunkError]:
    """The error of field ``name`` of request ``kind``: missing, of a wrong type, or a value out of its set."""
    params = {"kind": kind, "field": name}
    if not present:
        if not field.get("required"):
            return []
        return [protocol_error("request_field_missing", {**params, "expected": expected(field)}, name)]
    if _value_problems({key: v for key, v in field.items() if key != "values"}, value, ""):
        return [protocol_error("request_field_type", {**params, "expected": expected(field),
                                                      "given": given(field, value)}, name)]
    if "values" in field and value is not None and value not in field["values"]:
        return [protocol_error("request_field_value", {**params, "value": _shown(value),
                                                       "choices": _choices(field["values"])}, name)]
    return []


# --- messages and replies -------------------------------------------------------------------

def message_name(direction: str, message: dict[str, Any]) -> str | None:
    """Which message of ``direction`` ("to_worker", "from_worker") ``message`` is, by its
    ``type``: a kind is a request, no type a reply; None when no message has that type."""
    tag = message.get("type")
    if direction == "to_worker" and isinstance(tag, str) and tag in PROTOCOL["kinds"]:
        return "request"
    for name, spec in PROTOCOL[direction].items():
        typed = spec["fields"].get("type")
        if typed is None and tag is None or typed is not None and tag in typed.get("values", ()):
            return name
    return None


def message_problems(direction: str, message: object, kind: str | None = None) -> list[str]:
    """What is wrong with ``message`` sent ``direction``; a reply's result is held to the
    result of ``kind`` (its request's) when that is given.

    >>> message_problems("to_worker", {"type": "cancel"})
    ['id: is missing']
    """
    if not isinstance(message, dict):
        return [f"a message must be an object, not {given({}, message)}"]
    name = message_name(direction, message)
    if name is None:
        return [f"type: no message {direction.replace('_', ' ')} has the type {_shown(message.get('type'))}"]
    if name == "reply":
        return reply_problems(kind, message)
    problems = fields_problems(PROTOCOL[direction][name]["fields"], message)
    if name == "request" and not problems:
        problems = [error.message for error in request_errors(message["type"], message.get("payload", {}),
                                                              message.get("document"))]
    return problems


def reply_problems(kind: str | None, reply: dict[str, Any], *, with_id: bool = True) -> list[str]:
    """What is wrong with ``reply`` to a request of ``kind``: the worker's (``with_id``), or
    the workspace's JSON, which has no id; a result is held to the kind's result."""
    spec = PROTOCOL["from_worker"]["reply"]
    # The variant a reply is, is named by its second field: result, errors, internal, cancelled.
    variant = next((name for name in spec["one_of"] if name in reply), "result")
    problems = fields_problems({**(spec["fields"] if with_id else {}), **spec["one_of"][variant]}, reply)
    if variant == "result" and isinstance(reply.get("result"), dict) and kind in PROTOCOL["kinds"]:
        problems += fields_problems(result_fields(kind), reply["result"], "result")
    return problems


def result_fields(kind: str) -> dict[str, dict[str, Any]]:
    """The fields of the result of ``kind`` (its own, or a shape's)."""
    spec = PROTOCOL["kinds"][kind]
    return PROTOCOL["shapes"][spec["result_shape"]] if "result_shape" in spec else spec["result"]
