"""A fast reader for the flat YAML that page properties use: exactly PyYAML's result, or None.

Lint reads every page of the wiki on every run, and PyYAML's constructor costs ~80 µs per page.
`fast_props` handles the subset wikic writes (`key: scalar`, `key:` + `- item` lines, `[]`, `{}`,
plain and simply quoted scalars) with PyYAML's own resolver and constructors for typed scalars; it
returns None for anything else, and the caller falls back to `yaml.load`. A property test checks
that whatever it returns equals `yaml.load(..., CSafeLoader)`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_PLAIN_BAD_START = frozenset("-?:,[]{}#&*!|>'\"%@` ")
_STR_TAG = Resolver.DEFAULT_SCALAR_TAG
_CONSTRUCTOR = SafeConstructor()
_TYPED_TAGS = (
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
)
_BUILDERS: dict[str, Callable[[Any, ScalarNode], Any]] = {
    tag: SafeConstructor.yaml_constructors[tag] for tag in _TYPED_TAGS
}


class _Unsupported(Exception):
    """The text uses YAML beyond the fast subset: let PyYAML read it."""


_TABLE = Resolver.yaml_implicit_resolvers
_WILDCARD = _TABLE.get(None, [])
_resolved: dict[str, str] = {}  # plain scalars repeat a lot across pages (types, tags, dates)


def _resolve(value: str) -> str:
    """The implicit tag PyYAML gives a plain scalar (mirrors `Resolver.resolve`)."""
    if not _WILDCARD and value[0] not in _TABLE:
        return _STR_TAG
    tag = _resolved.get(value)
    if tag is None:
        tag = _STR_TAG
        for candidate, regexp in [*_TABLE.get(value[0], []), *_WILDCARD]:
            if regexp.match(value):
                tag = str(candidate)
                break
        if len(_resolved) < 100_000:
            _resolved[value] = tag
    return tag


_plain_keys: dict[str, bool] = {}


def _plain_key(key: str) -> bool:
    """Whether `key` is a simple name that PyYAML reads as that very string (not `on`, `null`)."""
    ok = _plain_keys.get(key)
    if ok is None:
        ok = bool(_KEY_RE.fullmatch(key)) and _resolve(key) == _STR_TAG
        if len(_plain_keys) < 10_000:
            _plain_keys[key] = ok
    return ok


def _scalar(text: str) -> Any:
    if not text or not text.isprintable():
        raise _Unsupported
    if text == "[]":
        return []
    if text == "{}":
        return {}
    first = text[0]
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise _Unsupported
        return inner.replace("''", "'")
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Unsupported
        return inner
    if first in _PLAIN_BAD_START or text[-1] == " " or ": " in text or text[-1] == ":":
        raise _Unsupported
    if " #" in text:
        raise _Unsupported
    tag = _resolve(text)
    if tag == _STR_TAG:
        return text
    build = _BUILDERS.get(tag)
    if build is None:
        raise _Unsupported
    return build(_CONSTRUCTOR, ScalarNode(tag, text))


def _parse(text: str) -> dict[str, Any]:
    if not text.replace("\n", "").isprintable():  # tabs, CR, control and odd space characters
        raise _Unsupported
    result: dict[str, Any] = {}
    items: list[Any] | None = None  # the list that `- item` lines below a bare `key:` fill
    key = ""
    item_indent = -1
    for line in text.split("\n"):
        if not line.strip():
            continue
        if line[0] in " -":
            stripped = line.lstrip(" ")
            indent = len(line) - len(stripped)
            if items is None or not stripped.startswith("- "):
                raise _Unsupported
            if item_indent < 0:
                item_indent = indent
            elif indent != item_indent:
                raise _Unsupported
            items.append(_scalar(stripped[2:]))
            result[key] = items
            continue
        key, colon, rest = line.partition(":")
        if not colon or not _plain_key(key) or (rest and rest[0] != " "):
            raise _Unsupported
        rest = rest[1:]
        item_indent = -1
        if rest:
            items = None
            result[key] = _scalar(rest)
        else:
            items = []
            result[key] = None  # a bare `key:` is null unless `- item` lines follow
    if not result:
        raise _Unsupported  # an empty document is null in YAML, not a mapping
    return result


def fast_props(text: str) -> dict[str, Any] | None:
    """The properties in `text` (YAML between the `---` lines), or None if outside the subset."""
    try:
        return _parse(text)
    except (_Unsupported, ValueError, yaml.YAMLError):
        return None


def load_props(text: str) -> Any:
    """What python-frontmatter's YAML handler would load (PyYAML's C loader when present)."""
    fast = fast_props(text)
    if fast is not None:
        return fast
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)
