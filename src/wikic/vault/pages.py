"""Pages: YAML properties + markdown body, read with python-frontmatter, written deterministically.

Properties follow Obsidian's rules: flat (no nested values), links inside properties are quoted
strings, tags are `letters/digits/_/-//` with at least one non-digit. The same page always
serialises to the same bytes, so git diffs show only real changes.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import frontmatter
import yaml

from wikic.errors import PageError

PAGE_TYPES = ("concept", "entity", "analysis", "source", "digest")
TYPE_FOLDERS = {
    "concept": "concepts",
    "entity": "entities",
    "analysis": "analyses",
    "source": "sources",
    "digest": "digests",
}
# Properties in the order wikic writes them; others follow in their own order.
PROPERTY_ORDER = (
    "type",
    "title",
    "aliases",
    "tags",
    "summary",
    "sources",
    "kind",
    "raw",
    "sha256",
    "question",
    "consulted",
    "contradictions",
    "created",
    "updated",
    "ingested",
    "period",
    "consolidated",
    "gist",
)
# The value type of each property wikic writes; one type per name across the vault.
PROPERTY_TYPES: dict[str, str] = {
    "type": "text", "title": "text", "aliases": "list", "tags": "list", "summary": "text",
    "sources": "list", "kind": "text", "raw": "text", "sha256": "text", "question": "text",
    "consulted": "list", "contradictions": "number", "created": "date", "updated": "date",
    "ingested": "date", "consolidated": "date", "gist": "text", "period": "text",
}  # fmt: skip
DEPRECATED_PROPERTIES = {"tag": "tags", "alias": "aliases", "cssclass": "cssclasses"}
_TAG_RE = re.compile(r"^[\w/-]+$")


@dataclass(frozen=True)
class Page:
    """A page as stored: `path` is relative to the wiki directory, posix, ending in `.md`."""

    path: str
    props: Mapping[str, Any] = field(default_factory=dict)
    body: str = ""

    @property
    def name(self) -> str:
        """The link target of this page: its path without `.md`."""
        return self.path[:-3] if self.path.endswith(".md") else self.path

    @property
    def stem(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def title(self) -> str:
        title = self.props.get("title")
        return str(title) if title else self.stem

    @property
    def type(self) -> str:
        return str(self.props.get("type") or "")

    @property
    def aliases(self) -> list[str]:
        return [str(a) for a in _as_list(self.props.get("aliases"))]

    @property
    def summary(self) -> str:
        return str(self.props.get("summary") or "")

    @property
    def sources(self) -> list[str]:
        return [str(s) for s in _as_list(self.props.get("sources"))]

    def with_props(self, **updates: Any) -> Page:
        return replace(self, props={**self.props, **updates})


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def parse_page(path: str, text: str) -> Page:
    """Parse page text; a malformed property block is a PageError naming the file."""
    try:
        metadata, body = frontmatter.parse(text)
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        raise PageError(f"{path}: invalid YAML properties: {exc}") from None
    if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
        raise PageError(f"{path}: properties must be a mapping with text keys")
    return Page(path, dict(metadata), body + "\n" if body and not body.endswith("\n") else body)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # never `&id001` anchors: Obsidian shows them as text


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # block style would make multi-line summaries hard to read in Obsidian's property panel
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str_representer)


def ordered_props(props: Mapping[str, Any]) -> dict[str, Any]:
    known = [k for k in PROPERTY_ORDER if k in props]
    rest = [k for k in props if k not in PROPERTY_ORDER]
    return {k: props[k] for k in [*known, *rest]}


def render_page(page: Page) -> str:
    """The exact text of a page file."""
    props = ordered_props(page.props)
    body = page.body.strip("\n")
    if not props:
        return body + "\n"
    head = yaml.dump(
        props,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=10_000,
    )
    return f"---\n{head}---\n\n{body}\n"


def today() -> dt.date:
    return dt.date.today()


def to_tag(text: str) -> str:
    """A valid Obsidian tag from free text (`Machine Learning` → `machine-learning`)."""
    text = unicodedata.normalize("NFKC", text).strip().lstrip("#").casefold()
    text = re.sub(r"\s+", "-", text)
    text = "".join(c for c in text if c.isalnum() or c in "_-/")
    text = re.sub(r"-{2,}", "-", text).strip("-/")
    if text and text.replace("/", "").isdigit():
        text = f"n{text}"
    return text


def is_valid_tag(tag: Any) -> bool:
    return (
        isinstance(tag, str)
        and bool(_TAG_RE.match(tag))
        and not tag.replace("/", "").isdigit()
        and not tag.startswith("/")
    )


def property_kind(value: Any) -> str:
    """Obsidian's property type of a YAML value (`nested` for what Obsidian cannot show)."""
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dt.datetime):
        return "datetime"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, list):
        return "nested" if any(isinstance(v, list | dict) for v in value) else "list"
    if isinstance(value, dict):
        return "nested"
    if value is None:
        return "empty"
    return "text"


def _looks_like_link(value: Any) -> bool:
    # `sources: [[a]]` parses as [["a"]]: a list holding a one-element list
    return isinstance(value, list) and any(isinstance(v, list) and len(v) == 1 for v in value)
