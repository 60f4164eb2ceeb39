"""What a heading names: a thing (a topic), a part of the document ("Installation",
"Syntax"), a question about a thing, or the rules for a thing. Also the subject a document's
title names.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from wikic.language.commands import command_names
from wikic.language.grounding import clean_name, split_abbreviation
from wikic.language.stemming import stem
from wikic.language.stopwords import TOPICLESS_WORDS
from wikic.language.vocabulary import COMMON_TERMS, FILLER
from wikic.vault.document import DATED_RE, VERSION_RE, Document
from wikic.vault.names import name_key

# headings that organise a document rather than name a subject
GENERIC_HEADINGS = {
    "about", "abstract", "acknowledgements", "acknowledgments", "appendix", "attendance",
    "attendees", "authors", "background", "basic usage", "build", "building", "caveats",
    "changelog", "changes", "citation", "community", "conclusion", "conclusions", "configuration",
    "contact", "contents", "context", "contributing", "credits", "demo", "description",
    "details", "discussion", "documentation", "download", "example", "examples", "faq",
    "features", "further reading", "getting started", "guide", "help", "highlights", "how",
    "how it works", "how to use", "install", "installation", "introduction", "issues", "license",
    "limitations", "links", "motivation", "next steps", "notes", "options", "other",
    "overview", "prerequisites", "problem", "quick start", "quickstart", "readme", "references",
    "related", "related work", "release notes", "requirements", "resources", "results", "run",
    "running", "see also", "setup", "summary", "support", "table of contents", "testing",
    "tips", "toc", "todo", "troubleshooting", "tutorial", "unresolved questions", "usage",
    "use", "what", "why", "agenda", "action items", "minutes", "participants", "questions",
    "announcements", "misc", "miscellaneous", "general", "update", "updates", "fixes",
    "bug fixes", "new features", "breaking changes", "deprecations", "thanks", "outline",
}  # fmt: skip
GENERIC_KEYS = {name_key(h) for h in GENERIC_HEADINGS}
# a heading made only of these labels a part of the document: "Syntax", "Core Implementation"
_PART_WORDS = {
    "syntax", "usage", "example", "examples", "implementation", "overview", "introduction",
    "background", "details", "detail", "notes", "note", "results", "result", "output",
    "installation", "improvements", "changes", "features", "options", "reference", "roadmap",
    "design", "internals", "architecture", "concepts", "basics", "walkthrough",
}  # fmt: skip
# a title ending in one of these names its subject before it: "Git LFS Specification"
_DOCUMENT_KINDS = {
    "specification", "spec", "troubleshooting", "tips", "guide", "tutorial", "overview",
    "introduction", "notes", "readme", "faq", "documentation", "docs", "reference", "primer",
    "cheatsheet", "walkthrough", "internals", "handbook", "manual", "architecture", "design",
    "concepts", "basics", "explained",
}  # fmt: skip
_PART_MODIFIERS = {
    "core", "basic", "advanced", "general", "additional", "further", "more", "other",
    "detailed", "technical", "simple", "quick", "common", "main", "key", "important", "minor",
    "major", "small", "smaller", "new", "final", "initial", "full", "complete", "sample",
    "known", "recent", "latest", "implementation", "usage", "example", "high-level", "low-level",
}  # fmt: skip
# a heading with one of these is a phrase ("Text generation with different models"), and
# names a thing only through a name in it ("Installing into arbitrary Python environments")
_PHRASE_WORDS = {
    "of", "with", "for", "to", "in", "on", "at", "by", "from", "into", "and", "or", "the",
    "a", "an", "is", "are", "do", "does", "can", "different", "between", "vs", "versus",
    "this", "that", "my", "your", "our", "its", "their", "without", "via", "when",
}  # fmt: skip
_QUESTION_WORDS = {"how", "what", "why", "when", "where", "which", "using", "use", "run", "build"}
_PART_OF_RE = re.compile(
    r"^(?:an? )?(?:overview|intro|introduction|summary|guide) (?:of|to) (?:the )?", re.I
)
# "Dealing with dependency conflicts", "Understanding the WAL", "Handling Hash Verification
# Failures": a section that says what it does with a thing names the thing ("Understanding
# your error message" is about the reader's case, not a thing: it stays a phrase)
_TREATING_RE = re.compile(
    r"^(?:understanding|dealing with|handling(?: of)?|working with|managing|introducing"
    r"|getting started with|(?:a )?(?:closer )?look at) (?:the |an? )?(?!your )(?=\S)",
    re.I,
)
# "Background: …", "Example: …": a label before the heading's own words
_LEAD_LABEL_RE = re.compile(r"^([A-Za-z][A-Za-z ]{0,24}):\s+(?=\S)")
# "rustc's self profiler": the thing is the profiler (the owner, `rustc`, is a page of its own)
_POSSESSIVE_RE = re.compile(r"^(?:\S+['’]s )+(?=\S)")
_NUMBERING_RE = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?|[IVX]+\.|[A-Z]\.)\s+")


MAX_HEADING_WORDS = 6


_QUALIFIER_RE = re.compile(r"\s*\((?=[^)]*\b[a-z])[^()\s]+(?:\s+[^()\s]+)+\)\s*$")


def heading_name(heading: str, terms: Sequence[str] = ()) -> str | None:
    """A heading as a topic name, or None when it organises rather than names. `terms`: the
    document's defined terms; a phrase that is one names it."""
    text = _NUMBERING_RE.sub("", " ".join(heading.split())).strip(" :.?!#`*_")
    lead = _LEAD_LABEL_RE.match(text)  # "Background: How rqlite uses SQLite": a question
    if lead and (_is_label(lead.group(1)) or name_key(lead.group(1)) in GENERIC_KEYS):
        text = text[lead.end() :]
    text = _PART_OF_RE.sub("", text)  # "Overview of the Cranelift backend": the backend
    text = _TREATING_RE.sub("", text)  # "Dealing with dependency conflicts": the conflicts
    # "CheckpointManager (the v10 motivation)": a parenthesis of several words, some lower
    # case, qualifies the name; one word ("(LTX)", "(v2)") may be another name or tell two
    # versions apart, and stays
    text = _QUALIFIER_RE.sub("", text).strip()
    text = clean_name(text.replace("`", "")) or ""
    if not text or VERSION_RE.match(text) or not any(c.isalpha() for c in text):
        return None
    words = text.split()
    if len(words) > MAX_HEADING_WORDS or text.endswith("?"):
        return None
    key = name_key(text)
    if not key or key in GENERIC_KEYS or _labels_only(text):
        return None
    text = _without_label(text)
    words = text.split()
    if words[0].casefold() in _QUESTION_WORDS:
        return None  # "How to fuse", "Using the API": instructions, not subjects
    if "`" not in heading and labels_a_part(text, terms):
        return None
    return text


_LABELS_RE = re.compile(r"\s*(?:&|,|\band\b|/)\s*", re.IGNORECASE)


def _is_label(word: str) -> bool:
    """A heading word that labels a part of a document ("Configuration", "Limitations",
    "Implementation"): one of `GENERIC_HEADINGS` or `_PART_WORDS`."""
    return name_key(word) in GENERIC_KEYS or word.casefold() in _PART_WORDS


def _labels_only(text: str) -> bool:
    """Whether a heading of several parts or words is labels alone ("Caveats & Limitations",
    "Configuration Reference")."""
    parts = [p for p in _LABELS_RE.split(text) if p.strip()]
    if len(parts) == 1:
        parts = text.split()
    return len(parts) > 1 and all(_is_label(p) for p in parts)


def _without_label(text: str) -> str:
    """A heading that ends with a label after a name names the thing before it: "WAL
    Configuration" names the WAL, "Rolling checksum implementation" the rolling checksum, so
    the section's facts go to that thing's page and not to a page of the label. Only where
    what is left names a thing by itself: a name (`WAL`, `LoRA`, `v2`) or a phrase of two or
    more words. One plain word may be an adjective of the label's noun ("Editable
    installation") or anything's ("Server configuration"): the heading stays."""
    words = text.split()
    if len(words) < 2 or not _is_label(words[-1]) or _LABELS_RE.search(text):
        return text
    rest = words[:-1]
    if any(w.casefold() in _PHRASE_WORDS for w in rest):
        return text  # "Guidelines for Artifact Usage": the label ends a phrase, not a name
    if any(_name_like(w, i, rest) for i, w in enumerate(rest)) and not all(
        w.casefold() in TOPICLESS_WORDS for w in rest
    ):
        return " ".join(rest)
    if len(rest) >= 2 and sum(w.casefold() not in TOPICLESS_WORDS for w in rest) >= 2:
        return " ".join(rest)
    return text


def labels_a_part(heading: str, terms: Sequence[str] = ()) -> bool:
    """Whether a heading labels a part of a document rather than naming a thing: it is made of
    label words ("Syntax", "Core Implementation"), or it is a phrase of common words with no
    name in it ("Text generation with different models", "Notes from the meeting")."""
    words = heading.split()
    folded = [w.casefold() for w in words]
    if all(w in _PART_WORDS or w in _PART_MODIFIERS for w in folded) and any(
        w in _PART_WORDS for w in folded
    ):
        return True
    if not any(w in _PHRASE_WORDS for w in folded):
        return False
    if name_key(heading) in {name_key(t) for t in terms}:
        return False  # a term the document defines ("**Cost of a token**")
    return not any(_name_like(w, i, words) for i, w in enumerate(words))


def _name_like(word: str, i: int, words: Sequence[str]) -> bool:
    """A name in a heading: `LoRA`, `QSBR`, `GPT-2`, `llama-bench`, `logs.db`, or a capital word
    after the first in a heading that does not capitalise all its words ("Python" in
    "Installing into arbitrary Python environments")."""
    core = word.strip("()[],:;'\"")
    if any(c.isdigit() for c in core) or re.search(r"\w[-_./]\w", core):
        return True
    if any(c.isupper() for c in core[1:]):
        return True  # LoRA, QSBR, CamelCase
    content = [w for w in words[1:] if w.casefold() not in _PHRASE_WORDS]
    title_case = len(content) > 1 and all(w[:1].isupper() for w in content)
    return i > 0 and core[:1].isupper() and not title_case


_ASKING = {"how", "what", "why", "when", "where", "which", "who", "does", "do", "is", "are", "can"}
# a question's name: `code`, a run of capitalised words, a word with a digit (WSL2)
_QUESTION_NAME_RE = re.compile(
    r"`([^`]+)`|\b([A-Z][\w.+-]*(?: [A-Z][\w.+-]*)*)|\b(\w*\d\w*[A-Za-z]\w*|[A-Za-z]+\d\w*)\b"
)
_PLATFORMS = {"mac", "macos", "windows", "linux", "ubuntu", "docker desktop"}
_USING = {"use", "using"}  # "Why Use Lock Files?" asks about lock files, not about a use


def question_names(heading: str) -> list[str]:
    """The names a question heading asks about, in order: "What is quantization?" asks about
    quantization; "Why is networking slow in WSL2 on Windows 10?" about WSL2 (a platform such
    as Windows or Linux, a term of every text, a number or a pronoun is not what it asks
    about), nor the verb of using it ("Why Use Lock Files?" asks about lock files). Empty for a
    heading that is not a question."""
    text = " ".join(heading.split()).strip("# ")
    words = text.split()
    if not words or not (text.endswith("?") or words[0].casefold() in _ASKING):
        return []
    found: list[str] = []
    for m in re.finditer(
        r"\bwhat (?:is|are) (?:an? |the )?([\w.+-]+(?: [\w.+-]+){0,3})\?", text, re.I
    ):
        found.append(m.group(1))
    for m in _QUESTION_NAME_RE.finditer(text):
        name = next(g for g in m.groups() if g)
        parts = name.split()
        if m.start() == 0 or parts[0].casefold() in _ASKING:
            parts = parts[1:]  # "How", "What": the question's own first word
        while parts and parts[0].casefold() in _USING:
            parts = parts[1:]
        name = " ".join(parts)
        key = name_key(name)
        if len(name) < 2 or not key or key in COMMON_TERMS or name.casefold() in _PLATFORMS:
            continue
        found.append(name)
    return list(dict.fromkeys(found))


def asked_often(headings: Sequence[str]) -> set[str]:
    """Name keys that more than a third of the question headings ask about (at least three):
    the document's subject ("How can I expose Ollama …", "How do I use Ollama …"), no page
    of any one question."""
    counts: dict[str, int] = {}
    questions = [question_names(h) for h in headings]
    for names in questions:
        for key in {name_key(n) for n in names}:
            counts[key] = counts.get(key, 0) + 1
    asked = sum(bool(q) for q in questions)
    return {k for k, c in counts.items() if c >= 3 and 3 * c > asked}


def specific_name(word: str, texts: Sequence[str], title: str) -> str | None:
    """The name the section's prose gives the thing a one-word heading names, qualified by the
    document's subject: under "String interning", "State" is the "intern state"; under "Git
    LFS Specification", "Server" is the "Git LFS server" (a capitalised run or one plain word
    before it that shares a stem with the `title`, the most frequent, then the first). None
    when the prose never qualifies it so ("a remote server" is one server, not the page), or
    the heading is an acronym or code."""
    if " " in word or not word.isalpha() or any(c.isupper() for c in word[1:]):
        return None
    pattern = re.compile(
        rf"\b((?:[A-Z][\w-]*\s+){{1,3}}|[a-z][a-z-]{{2,}}\s+)((?i:{re.escape(word)}))\b"
    )
    skip = TOPICLESS_WORDS | _PHRASE_WORDS | FILLER | {word.casefold()}
    subject = {stem(w) for w in re.findall(r"[A-Za-z]+", title) if w.casefold() not in skip}
    found: dict[str, tuple[int, str]] = {}  # key: (count, spelling)
    for text in texts:
        for m in pattern.finditer(text):
            before = m.group(1).split()
            while before and before[0].casefold() in skip:
                before = before[1:]  # "The Git LFS server": the article is no part of it
            if not before or not any(stem(w) in subject for w in before):
                continue
            phrase = " ".join(
                (*before, m.group(2).casefold() if before[-1].islower() else m.group(2))
            )
            key = phrase.casefold()
            count, spelling = found.get(key, (0, phrase))
            found[key] = (count + 1, spelling)
    if not found:
        return None
    best = max(found.values(), key=lambda f: f[0])  # max keeps the first of equals
    return best[1]


# a heading naming the rules for a thing: "Tier 2 target policy", "Plugin requirements"
_GOVERNS_RE = re.compile(
    r"^(.+?)\s+(?:policy|policies|requirements|rules|guidelines|criteria)$", re.IGNORECASE
)


def governed_name(heading: str, texts: Sequence[str]) -> str | None:
    """The thing a heading of rules governs, when the section's prose names it at least twice
    (plural or not): "Tier 2 target policy" is what a tier 2 target must do, and a reader looks
    up "tier 2 target" (the heading stays an alias). None for a heading that is not so made
    ("Retention policy" over prose that never says "retention" twice on its own)."""
    m = _GOVERNS_RE.match(heading)
    if m is None:
        return None
    thing = m.group(1).strip()
    pattern = re.compile(rf"\b{re.escape(thing)}(?:s|es)?\b", re.IGNORECASE)
    if sum(len(pattern.findall(t)) for t in texts) < 2:
        return None
    return thing


def subject_name(doc: Document) -> tuple[str, tuple[str, ...]] | None:
    """(name, aliases) of the subject the title names: "Quiescent-State Based Reclamation"
    (alias QSBR) of "… (QSBR)", "llama-bench" (alias the path) of "llama.cpp/examples/llama-bench";
    None for a title that is not a name or is the file's name."""
    heading = heading_name(doc.title)
    if heading is None or doc.title_from == "filename" or DATED_RE.match(heading):
        return None  # a dated note is about an event, not a subject
    name, aliases = split_abbreviation(heading)
    name = _POSSESSIVE_RE.sub("", name)
    tail = name.rstrip("/").rsplit("/", 1)[-1]
    if " " not in name and tail != name and any(c.isalpha() for c in tail):
        name, aliases = tail, (name, *aliases)  # a path names the thing at its end
    words = name.split()
    while len(words) > 1 and words[-1].casefold() in _DOCUMENT_KINDS:
        words = words[:-1]  # "Git LFS Specification", "Token generation … troubleshooting"
    name = " ".join(words)
    return (name, aliases) if len(words) <= 4 else None


def _title_word_name(word: str, code: str, programs: Collection[str] = ()) -> bool:
    """Whether a word of a title is a name: `LoRA`, `QLoRA` (a capital inside), `GPT-2`,
    `WSL2` (a digit), `KV`, `HTTP` (an acronym), `llama.cpp`, `mlx_lm`, or `mlx-lm` when the
    document's code spells it so (`code`: its code blocks and spans), or a program the
    document runs ("pip" of "… using pip and venv", `programs`); "Fine-Tuning" is not."""
    core = word.strip("()[],:;'\"?!")
    if core in programs:
        return True
    if len(core) < 2 or not any(c.isalpha() for c in core):
        return False
    if any(c.isdigit() for c in core) or re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", core):
        return True
    if re.fullmatch(r"[A-Z]{2,}s?", core):
        return True
    if re.search(r"\w[._]\w", core):
        return True
    return "-" in core and core.islower() and core in code


def title_subjects(doc: Document) -> list[tuple[str, tuple[str, ...]]]:
    """The subjects the document's title and first H1 name, each (name, aliases): the title
    itself when it is a name (`subject_name`: "uv", "HTTP Model Server"), else the names in
    it ("Fine-Tuning with LoRA or QLoRA" names LoRA and QLoRA: `_title_word_name`; adjacent
    name words are one name). A title that is a name and opens with another, the system it
    is of ("TiDB Transaction Isolation Levels"), names that one too ("TiDB"), but not a term
    of every technical text ("HTTP Model Server"). Empty for a dated note or a title taken
    from the file name."""
    if doc.title_from == "filename" or DATED_RE.match(doc.title):
        return []
    whole = subject_name(doc)
    if whole is not None:
        words = whole[0].split()
        lead = words[0].strip("()[],:;'\"?!")
        if (
            len(words) > 2
            and _title_word_name(lead, "")
            and name_key(lead) not in COMMON_TERMS
            and name_key(lead) not in GENERIC_KEYS
        ):
            return [whole, (lead, ())]
        return [whole]
    titles = [doc.title]
    h1 = next((s.heading for s in doc.sections if s.level == 1 and s.heading), None)
    if h1 and name_key(h1) != name_key(doc.title):
        titles.append(h1)
    code = " ".join(
        " ".join((b.text if b.kind == "code" else "", *b.code_spans)) for b in doc.blocks
    )
    programs = {c.split()[0] for c in command_names(doc)}
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for title in titles:
        runs: list[list[str]] = [[]]
        for word in title.replace("`", " ").split():
            if _title_word_name(word, code, programs):
                runs[-1].append(word.strip("()[],:;'\"?!"))
            elif runs[-1]:
                runs.append([])
        for run in runs:
            name = " ".join(run)
            key = name_key(name)
            if not key or key in COMMON_TERMS or key in GENERIC_KEYS or VERSION_RE.match(name):
                continue
            found.setdefault(key, (name, ()))
    return list(found.values())
