"""The real-document corpora under scripts/data/ keep their format: every listed file exists and
every document is listed, documents and words per theme stay in range, shared topics name at
least two documents, QA and paraphrase sets load with the bench scripts' own loaders."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "scripts" / "data"
BOOKKEEPING = frozenset({"SOURCES.md", "README.md"})  # attribution, not content
DOC_WORDS = (800, 3_000)
PARAPHRASE_KEY = "paraphrase_of"


def _load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bench_compile = _load_script("bench_compile")
bench_quality = _load_script("bench_quality")


@dataclass(frozen=True)
class Rules:
    """What a corpus promises (issue 31/32): its themes and the sizes of its sets."""

    themes: int
    docs_per_theme: int
    projects_per_theme: int
    total_words: tuple[int, int]
    shared_per_theme: int
    questions: int
    two_source: int
    unanswerable: tuple[int, int]


OVERLAP = Rules(2, 6, 4, (15_000, 22_000), 10, 24, 6, (2, 4))
HELDOUT = Rules(1, 5, 3, (6_000, 9_000), 6, 12, 3, (2, 4))
CORPORA = {"overlap": OVERLAP, "heldout": HELDOUT}
# paraphrase file → (its corpus folder, how many paraphrases it must hold at least)
PARAPHRASES = {"overlap": 25, "corpus": 10, "heldout": 10}


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def documents(corpus: Path) -> set[str]:
    return {p.name for p in corpus.glob("*.md") if p.name not in BOOKKEEPING}


def words(corpus: Path, name: str) -> int:
    return len((corpus / name).read_text(encoding="utf-8").split())


def starts_with_h1(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    if re.match(r"# \S", lines[0]):
        return True
    return len(lines) > 1 and re.fullmatch(r"=+", lines[1].strip()) is not None


# ── the checks: each returns the problems it finds, none for a corpus in order ────────────


def listing_problems(corpus: Path) -> list[str]:
    """Every file that expected.yaml, themes.yaml, shared.yaml or SOURCES.md names exists, and
    every document of the folder is named by all of them."""
    problems: list[str] = []
    present = documents(corpus)
    expected = set(bench_compile.load_expected(corpus / "expected.yaml"))
    themed = {d for t in _yaml(corpus / "themes.yaml") for d in t["documents"]}
    shared = {d for t in _yaml(corpus / "shared.yaml") for d in t["documents"]}
    sources = (corpus / "SOURCES.md").read_text(encoding="utf-8")
    for what, names in (("expected.yaml", expected), ("themes.yaml", themed)):
        problems += [f"{what} lists {n}, which does not exist" for n in sorted(names - present)]
        problems += [f"{n} is not listed in {what}" for n in sorted(present - names)]
    problems += [f"shared.yaml names {n}, which does not exist" for n in sorted(shared - present)]
    problems += [
        f"SOURCES.md does not name {n}" for n in sorted(present) if f"`{n}`" not in sources
    ]
    return problems


def document_problems(corpus: Path, rules: Rules) -> list[str]:
    """Each document opens with its title as an H1 and has 800-3,000 words; the corpus total
    and the documents and projects per theme are in range."""
    problems: list[str] = []
    for name in sorted(documents(corpus)):
        text = (corpus / name).read_text(encoding="utf-8")
        if not starts_with_h1(text):
            problems.append(f"{name} does not open with an H1 title")
        n = len(text.split())
        if not DOC_WORDS[0] <= n <= DOC_WORDS[1]:
            problems.append(f"{name} has {n} words, outside {DOC_WORDS}")
    total = sum(words(corpus, n) for n in documents(corpus))
    if not rules.total_words[0] <= total <= rules.total_words[1]:
        problems.append(f"the corpus has {total} words, outside {rules.total_words}")
    themes = _yaml(corpus / "themes.yaml")
    if len(themes) != rules.themes:
        problems.append(f"{len(themes)} themes, not {rules.themes}")
    seen = Counter(d for t in themes for d in t["documents"])
    problems += [f"{d} is in {c} themes" for d, c in sorted(seen.items()) if c > 1]
    for theme in themes:
        docs, projects = theme["documents"], set(theme["documents"].values())
        if len(docs) < rules.docs_per_theme:
            problems.append(f"theme {theme['theme']!r}: {len(docs)} documents")
        if len(projects) < rules.projects_per_theme:
            problems.append(f"theme {theme['theme']!r}: {len(projects)} projects")
    return problems


def shared_problems(corpus: Path, rules: Rules) -> list[str]:
    """Each shared topic has names and at least two distinct documents; each theme has enough
    topics whose documents all belong to it."""
    problems: list[str] = []
    topics = _yaml(corpus / "shared.yaml")
    theme_of = {d: t["theme"] for t in _yaml(corpus / "themes.yaml") for d in t["documents"]}
    per_theme: Counter[str] = Counter()
    for n, item in enumerate(topics, 1):
        names, docs = item.get("topic"), item.get("documents")
        if not names or not all(isinstance(a, str) and a.strip() for a in names):
            problems.append(f"shared.yaml item {n}: `topic` must be a list of names")
            continue
        if not isinstance(docs, list) or len(set(docs)) < 2 or len(set(docs)) != len(docs):
            problems.append(f"shared topic {names[0]!r}: needs >= 2 distinct documents")
            continue
        themes = {theme_of.get(d) for d in docs}
        if len(themes) == 1 and None not in themes:
            per_theme[str(themes.pop())] += 1
    for theme in sorted(set(theme_of.values())):
        if per_theme[theme] < rules.shared_per_theme:
            problems.append(f"theme {theme!r}: {per_theme[theme]} shared topics")
    return problems


def qa_problems(corpus: Path, rules: Rules) -> list[str]:
    """qa.yaml loads with bench_quality (unique ids, facts as regexes), names existing sources
    and holds enough two-source and unanswerable questions."""
    items = bench_quality.load_qa(corpus / "qa.yaml")
    present = {Path(n).stem for n in documents(corpus)}
    problems = [f"{i.id}: no document {s}" for i in items for s in i.sources if s not in present]
    problems += [
        f"{i.id}: answerable without sources" for i in items if i.answerable and not i.sources
    ]
    two = sum(1 for i in items if len(set(i.sources)) >= 2)
    unanswerable = sum(1 for i in items if not i.answerable)
    if len(items) < rules.questions:
        problems.append(f"{len(items)} questions, fewer than {rules.questions}")
    if two < rules.two_source:
        problems.append(f"{two} two-source questions, fewer than {rules.two_source}")
    if not rules.unanswerable[0] <= unanswerable <= rules.unanswerable[1]:
        problems.append(f"{unanswerable} unanswerable questions, outside {rules.unanswerable}")
    return problems


def paraphrase_problems(corpus: Path, least: int, tmp: Path) -> list[str]:
    """paraphrase.yaml holds id, `paraphrase_of` and question (bench_quality.load_paraphrases):
    each item points at a question of the corpus's qa.yaml, whose facts, sources and
    answerability it takes, asks differently and does not contain the answer's key terms (no
    fact matches the question)."""
    raw = _yaml(corpus / "paraphrase.yaml")
    originals = {i.id: i for i in bench_quality.load_qa(corpus / "qa.yaml")}
    problems: list[str] = []
    targets = [item.get(PARAPHRASE_KEY) for item in raw]
    problems += [f"{t!r} is paraphrased twice" for t, c in Counter(targets).items() if c > 1]
    known = [item for item in raw if str(item.get(PARAPHRASE_KEY)) in originals]
    for item in raw:
        if item not in known:
            problems.append(
                f"{item['id']}: paraphrase_of {item.get(PARAPHRASE_KEY)!r} is no question of qa.yaml"
            )
    (tmp / "known.yaml").write_text(yaml.safe_dump(known), encoding="utf-8")
    items = (
        bench_quality.load_paraphrases(tmp / "known.yaml", list(originals.values()))
        if known
        else []
    )
    for item, target in zip(items, (i[PARAPHRASE_KEY] for i in known), strict=True):
        original = originals[target]
        if item.id in originals:
            problems.append(f"{item.id}: the id of a qa.yaml question")
        if item.question.casefold() == original.question.casefold():
            problems.append(f"{item.id}: asks exactly what {target} asks")
        leaked = [f for f in item.facts if re.search(f, item.question, re.IGNORECASE)]
        if leaked:
            problems.append(f"{item.id}: the question holds the answer's terms {leaked}")
    if len(raw) < least:
        problems.append(f"{len(raw)} paraphrases, fewer than {least}")
    return problems


# ── the real corpora ──────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_every_listed_file_exists_and_every_document_is_listed(name: str) -> None:
    assert listing_problems(DATA / name) == []


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_documents_have_titles_and_sizes_in_range(name: str) -> None:
    assert document_problems(DATA / name, CORPORA[name]) == []


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_shared_topics_name_existing_documents(name: str) -> None:
    assert shared_problems(DATA / name, CORPORA[name]) == []


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_qa_set_loads_and_has_the_promised_mix(name: str) -> None:
    assert qa_problems(DATA / name, CORPORA[name]) == []


@pytest.mark.parametrize("name", sorted(PARAPHRASES))
def test_paraphrases_point_at_existing_questions(name: str, tmp_path: Path) -> None:
    assert paraphrase_problems(DATA / name, PARAPHRASES[name], tmp_path) == []


# ── the checks catch what they are for, on broken copies ─────────────────────────────────


@pytest.fixture
def overlap_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "overlap"
    shutil.copytree(DATA / "overlap", copy, ignore=shutil.ignore_patterns(".complete"))
    return copy


def test_a_missing_document_is_reported(overlap_copy: Path) -> None:
    (overlap_copy / "litefs-architecture.md").unlink()
    problems = listing_problems(overlap_copy)
    assert "expected.yaml lists litefs-architecture.md, which does not exist" in problems
    assert "shared.yaml names litefs-architecture.md, which does not exist" in problems


def test_an_unlisted_document_is_reported(overlap_copy: Path) -> None:
    (overlap_copy / "notes.md").write_text("# Notes\n\nNothing.\n", encoding="utf-8")
    assert "notes.md is not listed in expected.yaml" in listing_problems(overlap_copy)
    assert "SOURCES.md does not name notes.md" in listing_problems(overlap_copy)


def test_a_document_out_of_range_is_reported(overlap_copy: Path) -> None:
    (overlap_copy / "litefs-architecture.md").write_text("# LiteFS\n\nToo short.\n", "utf-8")
    problems = document_problems(overlap_copy, OVERLAP)
    assert "litefs-architecture.md has 4 words, outside (800, 3000)" in problems


def test_a_document_without_a_title_is_reported(overlap_copy: Path) -> None:
    doc = overlap_copy / "litefs-architecture.md"
    doc.write_text("No title here.\n\n" + doc.read_text(encoding="utf-8"), encoding="utf-8")
    assert "litefs-architecture.md does not open with an H1 title" in document_problems(
        overlap_copy, OVERLAP
    )


def test_a_shared_topic_with_one_document_is_reported(overlap_copy: Path) -> None:
    path = overlap_copy / "shared.yaml"
    topics = _yaml(path)
    topics[0]["documents"] = topics[0]["documents"][:1]
    path.write_text(yaml.safe_dump(topics), encoding="utf-8")
    name = topics[0]["topic"][0]
    assert f"shared topic {name!r}: needs >= 2 distinct documents" in shared_problems(
        overlap_copy, OVERLAP
    )


def test_a_question_citing_a_missing_document_is_reported(overlap_copy: Path) -> None:
    path = overlap_copy / "qa.yaml"
    items = _yaml(path)
    first = next(i for i in items if i.get("sources"))
    first["sources"] = ["no-such-document"]
    path.write_text(yaml.safe_dump(items), encoding="utf-8")
    assert f"{first['id']}: no document no-such-document" in qa_problems(overlap_copy, OVERLAP)


def test_a_paraphrase_of_an_unknown_question_is_reported(
    overlap_copy: Path, tmp_path: Path
) -> None:
    path = overlap_copy / "paraphrase.yaml"
    items = _yaml(path)
    items[0][PARAPHRASE_KEY] = "no-such-question"
    path.write_text(yaml.safe_dump(items), encoding="utf-8")
    problems = paraphrase_problems(overlap_copy, 1, tmp_path)
    assert f"{items[0]['id']}: paraphrase_of 'no-such-question' is no question of qa.yaml" in (
        problems
    )


def test_a_paraphrase_that_holds_the_answer_is_reported(overlap_copy: Path, tmp_path: Path) -> None:
    path = overlap_copy / "paraphrase.yaml"
    items = _yaml(path)
    facts = {q["id"]: q.get("facts", []) for q in _yaml(overlap_copy / "qa.yaml")}
    literal = re.compile(r"[\w .-]+")  # a fact that matches its own text
    answerable = next(
        i for i in items if any(literal.fullmatch(f) for f in facts[i[PARAPHRASE_KEY]])
    )
    fact = next(f for f in facts[answerable[PARAPHRASE_KEY]] if literal.fullmatch(f))
    answerable["question"] = f"{answerable['question']} ({fact})"
    path.write_text(yaml.safe_dump(items), encoding="utf-8")
    problems = paraphrase_problems(overlap_copy, 1, tmp_path)
    assert any(p.startswith(f"{answerable['id']}: the question holds") for p in problems)
