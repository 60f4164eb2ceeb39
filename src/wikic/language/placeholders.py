"""Made-up names: what a document invents to illustrate something (`package_coffee`,
`tea`, `my-app`) is no topic of the wiki, however often the example names it.

A document says so in two ways: it calls the names hypothetical ("This section uses
hypothetical packages (`package_coffee`, `package_tea`, and `package_water`) …", "… are
made-up names"), or it brings them in inside a box titled "Example" (MkDocs `!!! example`,
MyST ````{admonition} Example`) and writes them there more than anywhere else.
English cue words.
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
                for n in (_name(x) for x in block.code_spans if x in sentence.text):
                    found.setdefault(name_key(n), n)
        for n in (_name(x) for x in block.code_spans):
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


def without(names: Sequence[str], made_up: Sequence[str]) -> list[str]:
    """`names` less those one of `made_up` is or is a word of: the command line of an example
    (`pip install tea`) is the example's too."""
    keys = {name_key(n) for n in made_up}
    return [
        n for n in names if name_key(n) not in keys and not {name_key(w) for w in n.split()} & keys
    ]
