"""Names that are no topic of the document, however often it writes them.

Made-up names, what a document invents to illustrate something (`package_coffee`, `tea`,
`my-app`): it calls them hypothetical ("This section uses hypothetical packages
(`package_coffee`, `package_tea`, and `package_water`) …", "… are made-up names"), or it brings
them in inside a box titled "Example" (MkDocs `!!! example`, MyST ````{admonition} Example`)
and writes them there more than anywhere else. English cue words.

Titles of other pages of its site, which it only links to ("see the [Configuration
Reference](/reference/config)").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from wikic.vault.document import Document
from wikic.vault.names import name_key

# a sentence that says the names it writes are invented
_MADE_UP_RE = re.compile(
    r"\b(?:hypothetical|fictional|fictitious|made[- ]up|imaginary|dummy|placeholders?|"
    r"not real)\b",
    re.IGNORECASE,
)


def made_up_names(doc: Document) -> tuple[str, ...]:
    """The names `doc` invents (see the module): in document order, one spelling per key. A
    name written as code is an example's when an example box brings it in (no block before
    the box wrote it) or writes it more often than the rest of the prose does (`spoon`, also
    listed once "e.g." before the box)."""
    found: dict[str, str] = {}
    inside: Counter[str] = Counter()  # code names written in example boxes, by key
    outside: Counter[str] = Counter()  # … and in the rest of the prose
    spelling: dict[str, str] = {}
    for block in doc.blocks:
        if block.kind == "code":
            continue  # a code block shows names; it says nothing of them
        for sentence in block.sentences:
            if _MADE_UP_RE.search(sentence.text):
                spans = [x for x in block.code_spans if x in sentence.text and len(x.split()) == 1]
                for n in map(_name, spans):  # not the `pip install` it runs them with
                    found.setdefault(name_key(n), n)
        # a name, not a line of output (`Downloading cup-{version}`) nor a command line
        for n in (x.strip() for x in block.code_spans if len(x.split()) == 1):
            key = name_key(n)
            spelling.setdefault(key, n)
            if block.example and not outside[key]:
                found.setdefault(key, n)  # brought in by the box
            (inside if block.example else outside)[key] += 1
    for key, times in inside.items():
        if times > outside[key]:
            found.setdefault(key, spelling[key])
    return tuple(n for k, n in found.items() if k)


def _name(code: str) -> str:
    """A code span as a name: `package_coffee==0.44.1` is `package_coffee`."""
    return re.split(r"[\s=<>!~\[;,]", code.strip(), maxsplit=1)[0]


def without(names: Sequence[str], excluded: Sequence[str]) -> list[str]:
    """`names` less those one of `excluded` is or is a word of: the command line of an example
    (`pip install tea`) is the example's too."""
    keys = {name_key(n) for n in excluded}
    return [
        n for n in names if name_key(n) not in keys and not {name_key(w) for w in n.split()} & keys
    ]


_TITLE_WORD_RE = re.compile(r"[A-Z0-9][\w'’.-]*|&|of|and|or|with|for|the|to|in|on|a|an")


def site_page_titles(doc: Document) -> tuple[str, ...]:
    """Titles of other pages of `doc`'s site: link texts of two words or more in title case
    ("Configuration Reference", "Read Replicas with VFS") that link to a path of the site
    (`/reference/config`, `./export.md`: `Block.site_links`) and that the prose writes nowhere
    but in such links. The text of a link to a web address (`[RFC 6838](https://…)`) or to an
    anchor of the document names a thing it may discuss."""
    linked: Counter[str] = Counter()
    for block in doc.blocks:
        for text in block.site_links:
            words = text.split()
            if len(words) >= 2 and all(_TITLE_WORD_RE.fullmatch(w) for w in words):
                linked[" ".join(words)] += 1
    if not linked:
        return ()
    prose = [b.text for b in doc.blocks if b.kind != "code"]
    return tuple(
        title
        for title, times in linked.items()
        if sum(len(re.findall(rf"(?<!\w){re.escape(title)}(?!\w)", t)) for t in prose) <= times
    )
