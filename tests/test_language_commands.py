"""Commands, flags and identifiers of a document (language/commands.py), on constructed ones."""

from __future__ import annotations

import pytest

from wikic.language.commands import (
    code_examples,
    code_terms,
    command_names,
    flag_aliases,
    is_code_like,
    is_precise,
    shorthand_commands,
)
from wikic.language.sentences import fact_sentences
from wikic.vault.document import Document, parse_document


def _doc(body: str) -> Document:
    return parse_document(f"# Widget\n\n{body}\n", filename="w.md")


def test_a_command_run_in_a_shell_block_is_named_as_far_as_the_prose_names_it() -> None:
    doc = _doc(
        "Use `widget run` to start it.\n\n```sh\n$ widget run --fast\n$ cd build\n```\n\n"
        "The `git lfs track` command tracks files."
    )
    assert command_names(doc) == ["widget run", "git lfs track"]  # `cd` is a shell tool


def test_a_flag_pairs_with_its_short_form_and_loses_its_argument() -> None:
    doc = _doc("Use `-t N` (or `--threads N`) for threads and `-b, --batch-size` for batches.")
    assert flag_aliases(doc) == {"--threads": ("-t",), "--batch-size": ("-b",)}
    terms = code_terms(doc)
    assert "--threads" in terms and not {"-t", "-t N"} & set(terms)  # `-t N` names `--threads`


def test_identifiers_in_plain_prose_are_code_terms_after_the_inline_code() -> None:
    doc = _doc("Set `OLLAMA_HOST` first. The eval_breaker flag and PyDictKeysObject matter.")
    assert code_terms(doc) == ["OLLAMA_HOST", "PyDictKeysObject", "eval_breaker"]


def test_a_command_written_without_its_program_is_its_alias() -> None:
    commands = ["uv pip install", "pip install", "uv"]
    assert shorthand_commands(commands) == {"uv pip install": ("pip install",)}


@pytest.mark.parametrize(
    ("name", "code_like", "precise"),
    [
        ("--threads", True, True),
        ("_Py_ID", True, True),
        ("aliases.json", True, True),
        ("camelCase", True, True),
        ("pre-release", True, False),  # a hyphenated word: verbatim, but not an identifier
        ("llama-bench", True, False),
        # a capitalised compound, as a heading writes it, is English: it had been listed as a
        # member (and an alias) of another page, as code is
        ("Trade-offs", False, False),
        ("Read-only", False, False),
        ("Trade-offs-Table", True, False),
        ("prefix cache", False, False),
    ],
)
def test_code_like_names_match_verbatim_and_identifiers_are_precise(
    name: str, code_like: bool, precise: bool
) -> None:
    assert is_code_like(name) is code_like
    assert is_precise(name) is precise


def test_a_command_page_shows_the_blocks_that_run_it_first() -> None:
    doc = _doc(
        "## Other\n\nSomething else is here today.\n\n```sh\n$ echo widget run\n```\n\n"
        "## Running\n\nThe widget run command starts the tool.\n\n```sh\n$ widget run\n```"
    )
    sentences = fact_sentences(doc)
    facts = [s.id for s in sentences if "starts" in s.text]
    blocks = [b.id for b in doc.blocks if b.kind == "code"]
    assert code_examples(doc, "widget run", facts, sentences) == (blocks[1], blocks[0])
