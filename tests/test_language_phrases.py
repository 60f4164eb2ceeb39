from __future__ import annotations

from wikic.language.phrases import reads_as_clause, topic_candidates
from wikic.language.sentences import fact_sentences
from wikic.vault.document import parse_document


def candidates(text: str, title: str = "") -> list[str]:
    return topic_candidates(fact_sentences(parse_document(text, filename="x.md")), title=title)


def test_names_acronyms_and_repeated_phrases() -> None:
    text = (
        "Prefix caching stores the state of a prompt prefix. We tried it with Gemma 3 and "
        "Andrej Karpathy's notes. The KV cache grows with context, and a KV cache can be "
        "trimmed. In April 2026 the rotating cache wrapped at 512 tokens.\n"
    )
    found = candidates(text, "Prefix caching notes")
    for name in ("Gemma 3", "Andrej Karpathy's", "KV cache", "Prefix caching"):
        assert name in found, (name, found)
    for junk in ("April 2026", "April", "512", "The", "We", "In"):
        assert junk not in found, (junk, found)


def test_subject_phrases_and_one_spelling_per_topic() -> None:
    text = (
        "Episodic memory is indexed by time. Semantic memory is indexed by concept.\n\n"
        "Agents rarely move episodic memories into semantic memory.\n"
    )
    found = candidates(text)
    assert "Episodic memory" in found and "Semantic memory" in found
    assert len([f for f in found if f.casefold().startswith("semantic memor")]) == 1


def test_limit_and_empty_input() -> None:
    assert candidates("Nothing here is named at all, just words in a row.\n") == []
    many = " ".join(f"Name{i} met Other{i} today." for i in range(40))
    assert len(candidates(many + "\n")) <= 24


def test_recurring_phrases_of_common_words_are_not_candidates() -> None:
    # llama-bench.md: "multiple times" and "specified multiple" recur, neither is a subject
    text = (
        "With the exception of -r, all options can be specified multiple times to run "
        "multiple tests. The option can be specified multiple times. Prompt caching stores "
        "the prompt. Prompt caching significantly improves latency, and prompt caching "
        "significantly improves throughput.\n"
    )
    found = candidates(text)
    assert "Prompt caching" in found
    for junk in ("multiple times", "specified multiple", "significantly improves"):
        assert junk not in found, (junk, found)


def test_commands_the_document_runs_are_named_by_their_program_and_subcommands() -> None:
    from wikic.language.commands import command_names

    doc = parse_document(
        "# llama.cpp/examples/llama-bench\n\nllama-bench can perform three types of tests:\n\n"
        "```sh\n$ ./llama-bench -m models/7B/ggml-model-q4_0.gguf -p 0\n```\n\n"
        "```sh\n$ ./llama-bench -o csv\n$ cd build\n```\n\n"
        "The `llm aliases set <alias> <model-id>` command adds an alias, and "
        "`vEthernel (WSL)` is an adapter.\n\n```bash\nllm aliases list\n```\n",
        filename="x.md",
    )
    # a block line names the longest part of its command the prose names: "llm aliases"
    assert command_names(doc) == ["llama-bench", "llm aliases", "llm aliases set"]


def test_a_command_is_named_by_the_subcommand_the_prose_writes_as_code() -> None:
    from wikic.language.commands import command_names

    doc = parse_document(
        "# Git LFS\n\nRun the `pointer` command to make a pointer file for a Git LFS file.\n\n"
        "```\n$ git lfs pointer --file=path/to/file\n```\n\n"
        "The git lfs tool stores files elsewhere.\n\n```\n$ git lfs ls-files\n```\n",
        filename="lfs.md",
    )
    # `pointer` is written as code; `ls-files` is not: that line names only what the prose says
    assert command_names(doc) == ["git lfs pointer", "git lfs"]


def test_a_name_or_phrase_never_spans_a_clause_break() -> None:
    text = (
        "Today there is no process beyond opening a PR. Of course some changes get a lot of "
        "discussion. In contrast, today a change needs a PR. Reviewers will have a better idea "
        "of its goals. We have a better idea of what is being done.\n"
    )
    found = candidates(text)
    assert "PR" in found
    assert not {"PR Of", "contrast today", "better idea"} & set(found)


def test_a_name_made_an_adjective_is_not_a_candidate() -> None:
    text = (
        "The infra team approves the CI-related requirements. CI-related work needs CI. "
        "Parts are LLVM-like. LLVM-like code stays. LLVM runs the CI.\n"
    )
    found = candidates(text)
    assert {"CI", "LLVM"} <= set(found)
    assert not {"CI-related", "LLVM-like"} & set(found)


def test_a_dash_between_spaces_parts_two_names() -> None:
    found = candidates("We discussed Implement RFC 2532 – Associated Type Defaults at length.\n")
    assert "Implement RFC 2532 Associated" not in found, found
    assert "Associated Type Defaults" in found, found


def test_names_given_as_examples_or_listed_need_a_second_mention() -> None:
    text = (
        "BPE is used by models like Llama, Gemma, Qwen2, and more. Unigram is used by "
        "the T5 family, BigBird, Pegasus, and more. WordPiece serves models like DistilBERT "
        "and Electra. DistilBERT is a small model. Unlike BPE, Unigram removes tokens. "
        "During inference, Unigram picks the best split.\n"
    )
    found = candidates(text)
    assert {"BPE", "Unigram", "WordPiece", "DistilBERT"} <= set(found), found
    # a comma parts names; a name listed or given as an example once is no candidate
    assert not {"Llama Gemma Qwen2", "Gemma", "Qwen2", "BigBird", "Pegasus", "Electra"} & set(
        found
    ), found
    assert not {"Unlike BPE", "During inference"} & set(found), found


def test_a_verb_after_its_subject_starts_no_phrase() -> None:
    text = (
        "SentencePiece is a library that applies BPE to raw text. The trainer applies BPE "
        "again. BPE merges pairs of symbols. Later BPE merges pairs once more.\n"
    )
    found = candidates(text)
    assert "SentencePiece" in found and "BPE" in found
    assert not {"applies BPE", "merges pairs"} & set(found), found


def test_an_owner_parentheses_identifiers_and_cut_names_make_no_candidates() -> None:
    text = (
        "The design is based on FreeBSD's Global Unbounded Sequences. Quiescent-State Based "
        "Reclamation (QSBR) frees memory late. The global wr_seq grows. The global wr_seq is "
        "odd. Each Per-Thread Read Sequence is local. Every Per-Thread Read Sequence is read. "
        "We use Python's QSBR here.\n"
    )
    found = candidates(text)
    assert {"Global Unbounded Sequences", "QSBR", "Per-Thread Read Sequence"} <= set(found), found
    assert "Quiescent-State Based Reclamation" in found, found
    for junk in (
        "FreeBSD's Global Unbounded Sequences",
        "FreeBSD's",
        "Python's QSBR",
        "Quiescent-State Based Reclamation QSBR",
        "global wr",
        "Per-Thread Read",
    ):
        assert junk not in found, (junk, found)


def test_the_end_of_a_capitalised_name_is_no_name_of_its_own() -> None:
    text = (
        "In Read Committed mode, each row is locked. This only holds in Read Committed mode. "
        "Complex queries misbehave in Read Committed mode. The Serializable mode differs. "
        "Serializable mode is slower.\n"
    )
    found = candidates(text)
    # "Committed mode" always follows "Read": the end of the name the capitals hold
    assert "Read Committed mode" in found and "Committed mode" not in found, found
    # after "The", or opening a sentence, a capital starts the name
    assert "Serializable mode" in found, found


def test_a_subject_and_its_verb_is_no_candidate() -> None:
    """pip's resolution guide (scripts/data/overlap): "Pip starts by picking …" and "pip
    starts backtracking" made a page "Pip starts". A plural noun a verb follows stays, though
    "by" and a gerund follow it too ("WAL buffers by holding …", "WAL buffers might …")."""
    text = (
        "Pip starts by picking the most recent version. When pip starts backtracking, it "
        "slows. If pip starts over, it repeats the work.\n\n"
        "WAL buffers by holding records save writes. WAL buffers might fill up. The WAL "
        "buffers are flushed at commit.\n"
    )
    found = candidates(text)
    assert "WAL buffers" in found, found
    assert not any(c.casefold() == "pip starts" for c in found), found
    assert reads_as_clause("Litestream works", ["Litestream works by effectively streaming."])
    assert not reads_as_clause("Litestream", ["Litestream works by streaming."])  # one word


def test_a_common_word_said_once_with_a_capital_is_no_name() -> None:
    """Litestream's "See also" list (scripts/data/overlap): "Troubleshooting - Common issues
    and solutions." offered the model "Common", and it made a page of it. A common word said
    twice with its capital ("We run Black in CI and Black in a hook.") may be a name, and a rarer
    one said once ("Consul") is."""
    found = candidates(
        "The guide has more.\n\n- Troubleshooting - Common issues and solutions.\n"
        "- Leases - Kept by Consul, a service.\n\nWe run Black in CI and Black in a hook.\n"
    )
    assert "Common" not in found and "Consul" in found and "Black" in found, found


def test_a_compound_word_said_in_three_sentences_is_a_candidate() -> None:
    text = (
        "A major change modifies the rustc-guide. The rustc-guide is always a draft. "
        "Changes come with a rustc-guide write-up. The free-threaded build is new. "
        "A free-threaded build needs locks. Every free-threaded build is slower. "
        "Each deferred-free list is long. A deferred-free list grows. Keep a deferred-free "
        "list short. The pre-release is out.\n"
    )
    found = candidates(text)
    assert "rustc-guide" in found and "deferred-free list" in found, found
    # an adjective, a part of a longer candidate said as often, a word said once
    assert not {"free-threaded", "deferred-free", "write-up", "pre-release"} & set(found), found


def test_a_compound_joined_by_a_preposition_or_a_version_is_no_candidate() -> None:
    # uv's "up-to-date" and Litestream's "v0.3.x" made pages of the overlapping corpus
    text = (
        "Check that the lockfile is up-to-date. An up-to-date lockfile is fast. "
        "Keep the lockfile up-to-date. Earlier v0.3.x releases used generations. "
        "Upgrade from v0.3.x first. The v0.3.x format is gone. Point-in-time recovery "
        "restores a backup. Use point-in-time recovery often. Point-in-time recovery is slow.\n"
    )
    found = candidates(text)
    assert not {"up-to-date", "v0.3.x"} & set(found), found
    assert "Point-in-time recovery" in found or "point-in-time recovery" in found, found


def test_a_plural_noun_before_a_noun_is_not_a_verb() -> None:
    """An -s word after a determiner is a plural noun qualifying the next ("the weights file",
    "each models directory"); after its subject it is a verb with its object ("BPE merges
    pairs", "that applies BPE")."""
    from wikic.language.evidence import is_subject
    from wikic.language.phrases import reads_as_verb
    from wikic.language.sentences import Sentence

    assert not reads_as_verb("weights", "the")
    assert not reads_as_verb("models", "each")
    assert reads_as_verb("merges", "BPE")
    assert reads_as_verb("applies", "that")
    assert not reads_as_verb("class", "the")  # no verb in -s: "-ss"
    texts = [
        "The loader reads the weights file from disk.",
        "Copy the weights file into the models directory.",
        "Each models directory holds one weights file.",
        "The tokenizer splits text into tokens.",
    ]
    sentences = [Sentence(f"s{i}", f"p{i}", t) for i, t in enumerate(texts)]
    found = topic_candidates(sentences)
    assert "weights file" in found and "models directory" in found
    assert is_subject("weights file", texts) and is_subject("models directory", texts)
    assert not is_subject("splits text", texts)  # "The tokenizer splits text": a verb
    assert not is_subject("weights file")  # with no text to read, an -s word opens a verb
