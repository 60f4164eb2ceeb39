"""Words of technical English that name no subject of their own: units, turns of speech, and
terms every technical text uses. Topic finders skip or down-weight names made of them.
"""

from __future__ import annotations

from wikic.vault.names import name_key

# words that make a recurring phrase a turn of speech rather than a subject
FILLER = {
    "above", "adds", "below", "case", "cases", "following", "like", "new", "number", "per",
    "runs", "safe", "second", "seconds", "section", "support", "supports", "time", "times",
    "use", "used", "uses", "using", "way", "ways", "higher", "lower", "more", "less", "better",
    "note", "see", "also", "instead", "first", "last", "next", "other", "same", "example",
}  # fmt: skip
UNITS = {"b", "kb", "kib", "mb", "mib", "gb", "gib", "tb", "ms", "s", "n", "x", "tok"}


# terms of every technical text: a page about one says nothing the reader looks up here
COMMON_TERMS = frozenset({
    "stdin", "stdout", "stderr", "url", "urls", "uri", "http", "https", "api", "cpu", "cpus",
    "gpu", "gpus", "ram", "vram", "os", "id", "ids", "utf8", "ascii", "json", "yaml", "csv",
    "html", "sql", "linux", "macos", "windows",
})  # fmt: skip


def is_common_term(name: str) -> bool:
    """`STDIN`, `URL`, `GPU`, `Linux`: a name every technical text uses."""
    return name_key(name) in COMMON_TERMS
