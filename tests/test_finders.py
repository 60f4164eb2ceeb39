"""The topic finders' catalogue: every finder is named, documented and registered once; each one,
switched off, takes away what its docstring says it finds (on a small constructed document); an
unknown name is an error naming the finders; with every finder on, extraction finds what it found
before they were a catalogue (the golden file was captured from the code before the change)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.finder_snapshot import GOLDEN, REPO, documents, snapshot, snapshot_text
from tests.helpers.wikitools import make_wiki
from wikic.config import IngestConfig
from wikic.errors import ConfigError
from wikic.ingest.pipeline import IngestRequest, ingest
from wikic.language.finders import FINDER_NAMES, FINDERS, enabled_finders
from wikic.llm.fake import FakeBackend
from wikic.paths import open_paths

_GOLDEN = json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_file_covers_every_committed_document() -> None:
    assert sorted(_GOLDEN) == [p.relative_to(REPO).as_posix() for p in documents()]


@pytest.mark.parametrize("rel", sorted(_GOLDEN))
def test_every_finder_on_finds_what_extraction_found_before(rel: str) -> None:
    assert snapshot(REPO / rel) == _GOLDEN[rel]


def test_every_finder_is_named_documented_and_registered_once() -> None:
    assert len(set(FINDER_NAMES)) == len(FINDERS) == len({id(f.find) for f in FINDERS})
    for finder in FINDERS:
        assert re.fullmatch(r"[a-z]+(?:-[a-z]+)*", finder.name), finder.name
        assert finder.find.__name__ == finder.name.replace("-", "_")
        # what it finds and why: at least two clauses of prose, not a label
        assert len(finder.summary.split()) >= 15 and ":" in finder.summary, finder.name


def _topics(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in result["topics"]}


def _has(name: str, **props: Any) -> Callable[[dict[str, Any]], bool]:
    def check(result: dict[str, Any]) -> bool:
        topic = _topics(result).get(name)
        return topic is not None and all(topic[k] == v for k, v in props.items())

    return check


def _aliased(name: str, alias: str) -> Callable[[dict[str, Any]], bool]:
    return lambda result: alias in _topics(result).get(name, {}).get("aliases", [])


def _offered(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda result: name in result["names"]


# finder → (a document, what the finder finds in it): true with every finder on, false with
# that one off; the document gives no other finder the same
EFFECTS: dict[str, tuple[str, Callable[[dict[str, Any]], bool]]] = {
    "title-subject": (
        "# Cranelift\n\nCranelift compiles Rust code quickly. It is fast.\n",
        lambda r: any(t["subject"] for t in r["topics"]),
    ),
    "section-headings": (
        "# Inference notes\n\nThese notes cover how models run.\n\n## Speculative decoding\n\n"
        "A small model drafts the tokens first. The large model checks them in one pass.\n",
        _has("Speculative decoding", from_heading=True),
    ),
    "commands": (
        "Run llama-bench to measure the speed of a model.\n\n```sh\n$ ./llama-bench -o csv\n```\n",
        _has("llama-bench", precise=True),
    ),
    "defined-abbreviations": (
        "Safe memory reclamation (SMR) frees memory later. The SMR scheme waits for readers.\n",
        _aliased("Safe memory reclamation", "SMR"),
    ),
    "flag-aliases": (
        "Offload layers with `-ngl N` (or `--n-gpu-layers N`). Set `-ngl 99` to offload all.\n",
        _aliased("--n-gpu-layers", "-ngl"),
    ),
    "shorthand-commands": (
        "Use `uv pip install` to install packages into the environment.\n\n"
        "```sh\n$ uv pip install ruff\n```\n\n"
        "When running the `pip install` command, uv reads the lock file.\n",
        _aliased("uv pip install", "pip install"),
    ),
    "short-names": (
        "The backend is `rustc_codegen_cranelift`, or `cg_cranelift` for short. Build "
        "`cg_cranelift` with the script.\n",
        _aliased("rustc_codegen_cranelift", "cg_cranelift"),
    ),
    "linked-names": (
        "The project is linted with [Ruff](https://github.com/astral-sh/ruff) on every commit.\n",
        _has("Ruff", precise=True),
    ),
    "code-names": (
        "The interpreter checks `eval_breaker` between bytecodes.\n",
        _has("eval_breaker"),
    ),
    "defined-terms": (
        "The **cost of a token** decides the price of a request.\n",
        _offered("cost of a token"),
    ),
    "recurring-names": (
        "Prefix caching stores the state of a prompt for later calls.\n\n"
        "Prefix caching saves the work of the next call.\n\n"
        "Prefix caching needs memory for every stored prompt.\n",
        _has("Prefix caching"),
    ),
    "made-up-names": (
        "This section uses hypothetical packages (`package_coffee` and `package_tea`) to show "
        "a conflict.\n\n`package_coffee` depends on an old `package_water`. Pin "
        "`package_coffee` to resolve it.\n",
        lambda r: (
            "package_coffee" not in r["names"] and "package_coffee" not in _topics(r)
        ),  # off: offered, and a page
    ),
    "coined-names": (
        "# Storage notes\n\nThe cluster stores its data on disk.\n\nEvery write goes through "
        "rqlite first. The leader in rqlite replicates each write. Reads in rqlite are served "
        "locally. A node of rqlite can join at any time.\n",
        _has("rqlite"),  # off: a lower-case word, neither a name run nor code
    ),
    "table-instances": (
        "# Isolation\n\nEach level allows different anomalies.\n\n"
        "| Isolation Level | Dirty Read |\n| --- | --- |\n| Read Uncommitted | Allowed |\n"
        "| Read Committed | Not possible |\n\nSome engines treat Read Uncommitted as Read "
        "Committed.\n",
        _has("Read Uncommitted"),  # off: named by a row and one sentence only
    ),
    "site-page-titles": (
        "Compaction runs every hour. See the [Configuration Reference](/reference/config) "
        "for the intervals.\n\nThe [Configuration Reference](/reference/config) lists "
        "every option.\n\nThe [Configuration Reference](/reference/config) has examples.\n",
        lambda r: "Configuration Reference" not in r["names"],  # off: a recurring name
    ),
}


# finders whose effect shows only across the sources of a batch: each has its own on/off test
BATCH_EFFECTS = {
    "shared-concepts": "tests/test_shared_concepts.py::test_switching_shared_concepts_off",
    "shared-sections": "tests/test_shared_sections.py::test_switching_shared_sections_off",
    "field-terms": "tests/test_shared_concepts.py::test_switching_field_terms_off",
}


def test_every_finder_has_a_stated_effect() -> None:
    assert sorted([*EFFECTS, *BATCH_EFFECTS]) == sorted(FINDER_NAMES)


@pytest.mark.parametrize("name", list(EFFECTS))
def test_switching_a_finder_off_takes_away_what_it_finds(name: str) -> None:
    text, finds = EFFECTS[name]
    on = snapshot_text(text, "x.md")
    off = snapshot_text(text, "x.md", IngestConfig(disable_finders=[name]))
    assert finds(on), on
    assert not finds(off), off


def test_finders_stay_on_in_catalogue_order_and_an_unknown_name_is_an_error() -> None:
    on = enabled_finders(["commands", "linked-names"])
    assert [f.name for f in on] == [
        n for n in FINDER_NAMES if n not in {"commands", "linked-names"}
    ]
    with pytest.raises(ConfigError) as err:
        enabled_finders(["commands", "headings", "titles"])
    assert err.value.message == (
        "wikic.yaml ingest.disable_finders: unknown topic finders headings, titles"
    )
    assert err.value.hint == "Known finders: " + ", ".join(FINDER_NAMES)


def test_an_unknown_finder_in_wikic_yaml_stops_ingest_before_any_work(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    config = paths.root / "wikic.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("disable_finders: []", "disable_finders: [headings]"), "utf-8")
    (paths.raw / "a.md").write_text("Cranelift is a code generation backend.\n", "utf-8")
    backend = FakeBackend()
    with pytest.raises(ConfigError, match="unknown topic finder headings"):
        ingest(
            open_paths(paths.root),
            IngestRequest(all_new=True),
            extract_backend=lambda: backend,
            write_backend=lambda: backend,
        )
    assert backend.history == [] and not list(paths.wiki.rglob("sources/*.md"))


def test_the_design_notes_describe_every_finder() -> None:
    notes = (REPO / "docs/topic-finders.md").read_text(encoding="utf-8")
    assert [n for n in FINDER_NAMES if f"- **{n}**: " not in notes] == []
