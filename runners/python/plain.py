"""plain.py - plain data across the driver/candidate boundary, and nothing else.

Only these cross: None, bool, int, float, str, list, tuple, dict, set,
frozenset, bytes (and nestings). JSON carries them, with tags for what JSON
cannot say: {"$tuple": [...]}, {"$set": [...]}, {"$frozenset": [...]},
{"$bytes": "hex"}, {"$float": "nan"|"inf"|"-inf"}, {"$int": "digits"} (beyond
64 bits; "0x..." beyond 4300 digits), {"$dict": [[k, v], ...]}
(dicts whose keys are not all strings, or that use a "$" key). A value of any
other type becomes {"$opaque": "<type name>", "repr": "..."}: decoded, it is an
Opaque, which equals nothing. Decoding builds fresh objects of exact built-in
types, so no candidate-defined __eq__ can ever take part in a comparison.
"""
import json
import math

MAX_DEPTH = 200


class Opaque:
    """A value the candidate returned that is not plain data."""

    __slots__ = ("type_name", "text")

    def __init__(self, type_name, text):
        self.type_name = type_name
        self.text = text

    def __eq__(self, other):
        return False

    def __ne__(self, other):
        return True

    __hash__ = None

    def __repr__(self):
        return "<%s: %s>" % (self.type_name, self.text)


# Subclasses of the plain types (Counter, OrderedDict, defaultdict, an int
# subclass, ...) cross as their base type's contents, read through the base
# type's own methods: their overrides, __eq__ included, stay behind.
BASES = (bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1


def _int(value):
    """An int as JSON: a number within 64 bits (what sandeval's JSON reader
    holds), else {"$int": "digits"}, so that big answers reach an oracle's
    record exactly; in hexadecimal ("0x..." or "-0x...") beyond the 4300
    decimal digits Python converts (HumanEval+ 83 expects 10**999996 * 18)."""
    if INT_MIN <= value <= INT_MAX:
        return value
    try:
        return {"$int": str(value)}
    except ValueError:
        return {"$int": hex(value)}


def _read_int(text):
    if text.startswith(("0x", "-0x")):
        return int(text, 16)
    return int(text)


def encode(value, depth=0):
    if depth > MAX_DEPTH:
        raise ValueError("value nested too deeply")
    t = type(value)
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return _int(value)
    if t not in BASES:
        base = next((b for b in BASES if isinstance(value, b)), None)
        if base is not None:
            try:
                value = _as_base(value, base)
            except Exception:
                return {"$opaque": t.__name__, "repr": "?"}
            t = base
            if t is int:
                return _int(value)
            if t in (str, bool):
                return value
    if t is float:
        if math.isnan(value):
            return {"$float": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if t is list:
        return [encode(v, depth + 1) for v in value]
    if t is tuple:
        return {"$tuple": [encode(v, depth + 1) for v in value]}
    if t is set or t is frozenset:
        items = [encode(v, depth + 1) for v in value]
        return {"$set" if t is set else "$frozenset": items}
    if t is bytes:
        return {"$bytes": value.hex()}
    if t is complex:
        return {"$complex": [encode(value.real, depth + 1), encode(value.imag, depth + 1)]}
    if t is dict:
        if all(type(k) is str and not k.startswith("$") for k in value):
            return {k: encode(v, depth + 1) for k, v in value.items()}
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    return {"$opaque": t.__name__, "repr": _safe_repr(value)}


def _as_base(value, base):
    """VALUE's contents as an object of exactly BASE, without its own methods."""
    if base is bool:
        return bool(int.__index__(value))
    if base is int:
        return int.__index__(value)
    if base is float:
        return float.__float__(value)
    if base is complex:
        return complex(float.__float__(value.real), float.__float__(value.imag))
    if base is str:
        return str.__str__(value)
    if base is bytes:
        return bytes(memoryview(value))
    if base is dict:
        return dict(dict.items(value))
    return base(base.__iter__(value))


def _safe_repr(value):
    try:
        text = repr(value)
    except BaseException:  # a hostile __repr__
        text = "?"
    return text[:200] if type(text) is str else "?"


def decode(obj, depth=0):
    if depth > MAX_DEPTH:
        raise ValueError("value nested too deeply")
    t = type(obj)
    if obj is None or t in (bool, int, float, str):
        return obj
    if t is list:
        return [decode(v, depth + 1) for v in obj]
    if t is not dict:
        raise ValueError("not plain data: %s" % t.__name__)
    if len(obj) == 1 or (len(obj) == 2 and "$opaque" in obj):
        (key,) = [k for k in obj if k.startswith("$")][:1] or [None]
        if key == "$tuple":
            return tuple(decode(v, depth + 1) for v in obj[key])
        if key == "$set":
            return set(decode(v, depth + 1) for v in obj[key])
        if key == "$frozenset":
            return frozenset(decode(v, depth + 1) for v in obj[key])
        if key == "$bytes":
            return bytes.fromhex(obj[key])
        if key == "$float":
            return float(obj[key])
        if key == "$int":
            return _read_int(obj[key])
        if key == "$complex":
            re, im = obj[key]
            return complex(decode(re, depth + 1), decode(im, depth + 1))
        if key == "$dict":
            return {decode(k, depth + 1): decode(v, depth + 1) for k, v in obj[key]}
        if key == "$opaque":
            return Opaque(str(obj["$opaque"])[:100], str(obj.get("repr", ""))[:200])
    return {str(k): decode(v, depth + 1) for k, v in obj.items()}


def dumps(value):
    return json.dumps(encode(value), separators=(",", ":"), allow_nan=False)


def loads(text):
    return decode(json.loads(text))


def short(value, limit=200):
    text = _safe_repr(value) if not isinstance(value, Opaque) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
