"""`wikic query` core with FakeBackend: fact retrieval and packing, prompt order, citations
rendered from ids, inference marks, and declining."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers.query_fakes import UNANSWERABLE, answer, citing, id_of, quotes, shown_units
from tests.helpers.storetools import sample_wiki, write_page
from tests.helpers.wikitools import commit_pages
from wikic.errors import UsageError
from wikic.llm.fake import FakeBackend
from wikic.query.answer import DECLINED, NOTHING_FOUND, answer_question, check_citations
from wikic.query.compose import INFERENCE_MARK, TASKS, compose, schema_text
from wikic.query.evidence import Block, Evidence, Fact, Shown, pack
from wikic.query.quote import QUOTE_TOKENS, quote_text
from wikic.query.retrieve import HOP_BOOST, retrieve
from wikic.query.terms import key_terms, unsupported
from wikic.store.db import open_store

QUESTION = "Where are snapshots persisted?"


@pytest.fixture
def wiki(tmp_path: Path):
    return sample_wiki(tmp_path / "w")


def words(text: str) -> int:
    return len(text.split())


# -- retrieval and packing ---------------------------------------------------------------------


def test_facts_and_paragraphs_are_shown_grouped_by_page(wiki) -> None:
    backend = FakeBackend(citing("Snapshots are persisted on disk.", "persisted on disk."))
    result = answer_question(wiki, QUESTION, backend=backend)
    evidence = backend.history[0].segments[-2].text
    blocks = evidence.split("\n\n")
    assert blocks[0].startswith("## ")  # one heading per page, then its units
    assert "## Prefix cache (concept)" in evidence
    assert "## Prefix Caching Paper (source)" in evidence
    assert "Snapshots are persisted on disk with a checksum and a file lock." in evidence
    assert "entities/mlx.md" not in {p.path for p in result.pages}  # shares no word
    units = shown_units(backend.history[0])
    assert list(units) == list(range(1, len(units) + 1))  # numbered in the order shown


def test_facts_under_subheadings_are_retrieved_with_their_section(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/concepts/uv.md": "---\ntype: concept\ntitle: uv\n---\n\n# uv\n\n"
            "A Python package manager.\n\n## Facts\n\n### Installation\n\n"
            "- The installer script puts uv in ~/.local/bin. [[sources/paper#^p1]] ^f-111aaa\n\n"
            "### Lock files\n\n- uv writes uv.lock next to pyproject.toml. "
            "[[sources/paper#^p2]] ^f-222bbb\n"
        },
        "uv page",
    )
    backend = FakeBackend(citing("uv writes uv.lock.", "uv.lock"))
    result = answer_question(wiki, "Where does uv write its lock file?", backend=backend)
    evidence = backend.history[0].segments[-2].text
    assert "Lock files: uv writes uv.lock next to pyproject.toml." in evidence
    assert "Installation: The installer script" in evidence
    assert result.answer == "uv writes uv.lock next to pyproject.toml [[concepts/uv#^f-222bbb]]."
    # a name only the section label holds is still held: the model sees the label
    put = FakeBackend(citing("It puts uv in ~/.local/bin.", "installer"))
    question = "Which directory does the uv Installation script use?"
    labelled = answer_question(wiki, question, backend=put)
    assert not labelled.declined and "~/.local/bin" in labelled.answer


def test_a_fact_is_shown_with_the_release_its_paragraph_sits_under(wiki) -> None:
    source = (
        "---\ntype: source\ntitle: Changelog\n---\n\n# Changelog\n\n## Text\n\n"
        "### 0.4 (2023-06-17)\n\nThis release adds chats. ^p1\n\n"
        "#### Continue previous chat\n\nUse the new `-c/--continue` option to continue a chat. ^p2\n"
    )
    chat = (
        "---\ntype: concept\ntitle: Chat\n---\n\n# Chat\n\n## Facts\n\n"
        "### Continue previous chat\n\n- Use the new `-c/--continue` option to continue a "
        "chat. [[sources/changelog#^p2]] ^f-c00001\n"
    )
    commit_pages(wiki, {"wiki/sources/changelog.md": source, "wiki/concepts/chat.md": chat}, "c")
    backend = FakeBackend(citing("x", "option to continue"))
    result = answer_question(wiki, "Which option did 0.4 add to continue a chat?", backend=backend)
    evidence = backend.history[0].segments[-2].text
    assert "0.4 (2023-06-17): Continue previous chat: Use the new" in evidence
    assert not result.declined and "-c/--continue" in result.answer


def test_a_fact_of_a_page_without_sections_is_shown_with_its_release(wiki) -> None:
    """A page whose facts all come from one section files them under no subheading: the fact
    still takes its cited paragraph's release ("0.4 (2023-06-17): Continue previous chat")."""
    source = (
        "---\ntype: source\ntitle: Changelog\n---\n\n# Changelog\n\n## Text\n\n"
        "### 0.4 (2023-06-17)\n\n#### Continue previous chat\n\n"
        "Use the new `-c/--continue` option to continue a chat. ^p2\n\n"
        "### Usage\n\nRun `llm chat` to start a chat. ^p3\n"
    )
    chat = (
        "---\ntype: concept\ntitle: Chat\n---\n\n# Chat\n\n## Facts\n\n"
        "- Use the new `-c/--continue` option to continue a chat. [[sources/changelog#^p2]] "
        "^f-c00001\n- Run `llm chat` to start a chat. [[sources/changelog#^p3]] ^f-c00002\n"
    )
    commit_pages(wiki, {"wiki/sources/changelog.md": source, "wiki/concepts/chat.md": chat}, "c")
    with open_store(wiki) as store:
        found = retrieve(store, "Which option continues a chat, and how is a chat started?")
    facts = {e.text[:7]: e.section for e in found.evidence if e.kind == "fact"}
    assert facts == {"Use the": "0.4 (2023-06-17): Continue previous chat", "Run `ll": ""}


def concept(title: str, fact: str, block: str, related: str = "") -> str:
    body = f"---\ntype: concept\ntitle: {title}\n---\n\n# {title}\n\n## Facts\n\n"
    body += f"- {fact} [[sources/paper#^p1]] ^f-{block}\n"
    return body + (f"\n## Related\n\n- [[{related}]]\n" if related else "")


def test_one_hop_of_links_ranks_linked_pages_up(wiki) -> None:
    filler = "it runs under the hills and valleys of the dry country for many seasons"
    commit_pages(
        wiki,
        {
            "wiki/concepts/wombat.md": concept(
                "Wombat", "Wombats dig burrows.", "a00001", "concepts/tunnel"
            ),
            "wiki/concepts/b.md": concept("B", "Wombats sleep.", "b00001"),
            "wiki/concepts/c.md": concept("C", "Wombats eat grass.", "c00001"),
            "wiki/concepts/d.md": concept("D", "Wombats walk.", "d00001"),
            "wiki/concepts/tunnel.md": concept("Tunnel", f"A wombat tunnel: {filler}.", "e00001"),
        },
        "wombats",
    )
    with open_store(wiki) as store:
        raw = {h.path: h.score for h in store.passages("wombats", limit=20)}
        found = retrieve(store, "wombats")
    tunnel = next(e for e in found.evidence if e.page == "concepts/tunnel.md")
    assert tunnel.reason == "link"  # linked from the best page, not among the top three
    assert tunnel.score == pytest.approx(raw["concepts/tunnel.md"] * HOP_BOOST)
    assert all(e.reason == "search" for e in found.evidence if e.page != "concepts/tunnel.md")
    assert found.closest[0] == ("concepts/wombat.md", "Wombat")


def fact_pages(n: int) -> dict[str, str]:
    return {
        f"wiki/concepts/topic-{i}.md": (
            f"---\ntype: concept\ntitle: Topic {i}\n---\n\n# Topic {i}\n\n## Facts\n\n"
            + "".join(
                f"- Wombat burrow {i}-{j} is {10 + j} metres long and dug by night. "
                f"[[sources/paper#^p1]] ^f-{i:03d}{j:03d}\n"
                for j in range(8)
            )
        )
        for i in range(n)
    }


@pytest.mark.parametrize("budget", [60, 300, 1200])
def test_facts_are_packed_under_the_budget(wiki, budget: int) -> None:
    commit_pages(wiki, fact_pages(20), "many facts")
    backend = FakeBackend(lambda call: UNANSWERABLE)
    result = answer_question(
        wiki, "How long are wombat burrows?", backend=backend, context_tokens=budget
    )
    sent = backend.history[0].segments[-2].text
    assert words(sent) == result.context_tokens <= budget  # what is reported is what was sent
    assert result.pages and len(shown_units(backend.history[0])) >= budget // 40


def test_pack_takes_the_best_first_and_drops_repeats() -> None:
    def unit(page: str, text: str, score: float, kind: str = "fact") -> Evidence:
        link = f"{page}#^x{score}"
        if kind == "fact":
            return Fact(page=page, heading=page.upper(), text=text, link=link, score=score)
        return Block(page=page, heading=page.upper(), kind=kind, text=text, link=link, score=score)

    ranked = [
        unit("a", "Wombats dig burrows.", 9),
        unit("b", "Wombats dig burrows.", 8),  # the same fact on another page
        unit("s", "Wombats dig burrows. They sleep by day.", 7, "para"),
        unit("c", "Numbats eat termites all day long.", 1),
    ]
    packed = pack(ranked, ["wombat"], 30, words)
    assert [s.evidence.page for s in packed.shown] == ["a", "s"]
    assert packed.by_id(2) is not None and packed.by_id(2).text == "… They sleep by day."
    assert packed.tokens <= 30
    assert packed.text.startswith("## A\n[1] Wombats dig burrows.")
    # two shown sentences in a row leave one gap mark, not "… …"
    ranked[2] = unit("s", "Wombats dig burrows. Numbats eat termites all day long. They sleep.", 7)
    ranked[2] = unit("s", ranked[2].text, 7, "para")
    packed = pack([ranked[0], ranked[3], ranked[2]], ["wombat"], 60, words)
    assert [s.text for s in packed.shown if s.evidence.page == "s"] == ["… They sleep."]


# -- prompt ------------------------------------------------------------------------------------


def test_prompt_is_schema_task_evidence_question_and_reuses_the_prefix(wiki) -> None:
    backend = FakeBackend(lambda call: UNANSWERABLE)
    first = answer_question(wiki, QUESTION, backend=backend)
    other = answer_question(wiki, "Is trimming a sliding window safe?", backend=backend)
    one, two = backend.history
    assert one.segments[0].role == "system"
    assert one.segments[0].text == schema_text(wiki.agents_md.read_text())
    assert "**Query**" in one.segments[0].text and "## Style" in one.segments[0].text
    assert (
        one.segments[1].text
        == two.segments[1].text
        == TASKS["quote"].format(where="the pages of a wiki")
    )
    assert one.segments[-1].text == f"Question: {QUESTION}"
    stable = sum(words(s.text) for s in one.segments[:2])
    assert first.stats.cached_tokens == 0
    assert other.stats.cached_tokens >= stable > 0
    assert one.schema is not None and one.schema is not two.schema  # ids differ per question


def test_the_schema_allows_only_the_shown_ids(wiki) -> None:
    backend = FakeBackend(lambda call: answer(("Snapshots are on disk.", [99])))
    with pytest.raises(Exception, match="Answer"):
        answer_question(wiki, QUESTION, backend=backend)


# -- citations: written sentences (answer_style: write) -----------------------------------------


def test_citations_are_rendered_from_ids(wiki) -> None:
    backend = FakeBackend(
        citing("Snapshots are persisted on disk with a checksum.", "checksum", "persisted on disk.")
    )
    result = answer_question(wiki, QUESTION, backend=backend, style="write")
    assert result.answer == (
        "Snapshots are persisted on disk with a checksum "
        "[[sources/paper#^p3]] [[concepts/prefix-cache#^f-bbb222]]."
    )
    assert result.answered and not result.declined and result.removed == ()
    assert {(c.page, c.block) for c in result.citations} == {
        ("sources/paper.md", "p3"),
        ("concepts/prefix-cache.md", "f-bbb222"),
    }
    assert result.cited_sources == ["sources/paper"]
    data = result.to_dict()
    assert data["sentences"][0]["citations"] == [
        "[[sources/paper#^p3]]",
        "[[concepts/prefix-cache#^f-bbb222]]",
    ]


def test_links_and_numbers_the_model_writes_in_its_text_are_dropped(wiki) -> None:
    def respond(call):
        n = id_of(call, "checksum")
        return answer((f"Snapshots are persisted on disk [{n}] [[concepts/nope]].", [n]))

    result = answer_question(wiki, QUESTION, backend=FakeBackend(respond), style="write")
    assert result.answer == "Snapshots are persisted on disk [[sources/paper#^p3]]."


def test_a_sentence_without_ids_is_marked_as_inference(wiki) -> None:
    def respond(call):
        return answer(
            ("Snapshots are persisted on disk.", [id_of(call, "persisted on disk.")]),
            ("Floppy disks are slow.", []),
        )

    result = answer_question(wiki, QUESTION, backend=FakeBackend(respond), style="write")
    assert result.answer == (
        "Snapshots are persisted on disk [[concepts/prefix-cache#^f-bbb222]]. "
        f"Floppy disks are slow. {INFERENCE_MARK}"
    )
    assert result.answered and result.inferred == 1
    assert result.to_dict()["sentences"][1] == {
        "text": "Floppy disks are slow.",
        "citations": [],
        "inference": True,
        "reattributed": False,
        "why_uncited": "it names no fact",
    }


def test_a_number_the_cited_fact_lacks_makes_the_sentence_inference(wiki) -> None:
    def respond(call):
        n = id_of(call, "persisted on disk.")
        return answer(("Snapshots are persisted on disk 42 times.", [n]))

    result = answer_question(wiki, QUESTION, backend=FakeBackend(respond), style="write")
    assert result.declined and result.answer.startswith(DECLINED)
    assert result.sentences == ()  # a declined answer keeps no sentence


def test_a_sentence_citing_the_wrong_fact_is_credited_to_the_one_it_repeats(wiki) -> None:
    def respond(call):
        wrong = id_of(call, "never by trimming")
        return answer(("Snapshots are persisted on disk with a checksum and a file lock.", [wrong]))

    result = answer_question(wiki, QUESTION, backend=FakeBackend(respond), style="write")
    assert result.answer.endswith("file lock [[sources/paper#^p3]].")
    assert result.sentences[0].reattributed


# -- declining ---------------------------------------------------------------------------------


def test_the_model_saying_unanswerable_declines_with_the_closest_pages(wiki) -> None:
    backend = FakeBackend().enqueue(UNANSWERABLE)
    result = answer_question(wiki, "Who wrote the prefix cache paper?", backend=backend)
    assert result.found and result.declined and not result.answered
    assert result.answer.startswith(f"{DECLINED} Closest pages: [[")
    assert result.decline_reason == "the model found no answer in the facts"
    assert result.citations == ()  # pointers to pages are not support
    assert result.closest and result.to_dict()["closest_pages"][0]["path"] == result.closest[0][0]


def test_no_shown_fact_with_the_key_terms_declines_without_asking(wiki) -> None:
    backend = FakeBackend().enqueue(answer(("Snapshots are persisted on disk.", [1])))
    result = answer_question(wiki, "Where are snapshots persisted on Ubuntu?", backend=backend)
    assert result.declined and result.answer.startswith(DECLINED)
    assert result.decline_reason == "no fact shown holds 'Ubuntu'"
    assert backend.history == []  # the answerable reply was never asked for
    price = answer_question(wiki, "Do snapshots cost $100 in MLX?", backend=backend)
    assert price.decline_reason == "no fact shown holds '$100'"  # a number must be there


def test_cited_facts_that_miss_every_topic_word_decline(wiki) -> None:
    commit_pages(
        wiki, {"wiki/concepts/wombat.md": concept("Wombat", "Wombats dig burrows.", "a1")}, "w"
    )
    # answerable, says the model, and its sentence repeats the fact: but the question asks
    # about a licence, and the cited fact says nothing about one
    backend = FakeBackend(citing("Wombats dig burrows.", "dig burrows"))
    result = answer_question(wiki, "Which licence do Wombats need?", backend=backend)
    assert result.declined and result.answer.startswith(DECLINED)
    assert result.decline_reason == "the cited facts say nothing about licence, need"
    fine = answer_question(wiki, "What do Wombats dig?", backend=backend)
    assert not fine.declined and fine.answer == "Wombats dig burrows [[concepts/wombat#^f-a1]]."


def test_a_question_asking_for_an_amount_declines_when_no_cited_fact_states_a_number(wiki) -> None:
    from wikic.query.terms import asks_quantity, states_quantity

    commit_pages(
        wiki,
        {"wiki/concepts/wombat.md": concept("Wombat", "Wombats dig long burrows.", "a1")},
        "w",
    )
    backend = FakeBackend(citing("Wombats dig long burrows.", "long burrows"))
    result = answer_question(wiki, "How long are the burrows Wombats dig?", backend=backend)
    assert result.declined and result.answer.startswith(DECLINED)
    assert result.decline_reason == (
        "the question asks for an amount and no cited fact states a number"
    )
    assert not answer_question(wiki, "What do Wombats dig?", backend=backend).declined
    assert asks_quantity("How many times faster than pdm is uv?")
    assert asks_quantity("What is the maximum size of an object?")
    assert not asks_quantity("Which flag offloads layers to the GPU?")
    assert asks_quantity("What is the vocabulary size of Llama's BPE tokenizer?")
    assert asks_quantity("What vocabulary size does GPT-2 use?")
    assert not asks_quantity("What does the number after the q indicate?")
    assert states_quantity("It shrinks from 27mb to 11mb.") and states_quantity("two tables")
    assert not states_quantity("Only `sha256` is supported, as in q4_0.")


def test_an_amount_is_declined_unless_stated_for_whose_it_is(wiki) -> None:
    from wikic.query.terms import amount_owners

    commit_pages(
        wiki,
        {
            "wiki/concepts/bpe.md": concept(
                "BPE", "GPT-2 uses byte-level BPE with a vocabulary of 50,257 tokens.", "a1"
            ),
            "wiki/concepts/llama.md": concept("Llama", "Llama uses a BPE tokenizer.", "b1"),
        },
        "w",
    )
    backend = FakeBackend(citing("x", "50,257", "Llama uses"))
    result = answer_question(
        wiki, "What is the vocabulary size of Llama's BPE tokenizer?", backend=backend
    )
    assert result.declined and result.answer.startswith(DECLINED)
    assert result.decline_reason == "no cited fact states the amount for 'Llama'"
    own = answer_question(
        wiki, "What is the vocabulary size of GPT-2's BPE tokenizer?", backend=backend
    )
    assert not own.declined and "50,257" in own.answer
    assert [t.text for t in amount_owners("How many times faster than `pdm` is uv?")] == ["pdm"]
    assert amount_owners("How much did events shorter than 2 ms shrink the file?") == []
    assert amount_owners("How many developers should a target's team have?") == []
    assert amount_owners("How large is the 7B model according to llama-bench's tables?") == []


def test_a_closing_condition_must_be_stated_with_the_subject(wiki) -> None:
    from wikic.query.terms import qualifiers

    commit_pages(
        wiki,
        {
            "wiki/concepts/logs.md": concept(
                "Logs", "The logs.db database is stored in the user directory.", "c1"
            ),
            "wiki/concepts/docker.md": concept(
                "Docker", "Docker Desktop runs on macOS, Windows and Linux.", "d1"
            ),
        },
        "w",
    )
    backend = FakeBackend(citing("x", "logs.db database", "Docker Desktop"))
    question = "Where is the logs.db database stored on Windows?"
    result = answer_question(wiki, question, backend=backend)
    assert result.declined and result.decline_reason == "no cited fact says it for 'Windows'"
    commit_pages(
        wiki,
        {
            "wiki/concepts/logs.md": concept(
                "Logs", "On Windows the logs.db database is stored in AppData.", "c1"
            )
        },
        "w2",
    )
    backend = FakeBackend(citing("x", "logs.db database"))
    assert not answer_question(wiki, question, backend=backend).declined
    assert [t.text for t in qualifiers("How do I run it on an AMD ROCm backend?")] == [
        "AMD",
        "ROCm",
    ]
    assert qualifiers("Which flag offloads layers to the GPU with a small card?") == []


def test_nothing_relevant_does_not_load_the_model(wiki) -> None:
    def factory():
        raise AssertionError("the model was loaded")

    result = answer_question(wiki, "What is the capital of Zanzibar?", backend=factory)
    assert not result.found and result.declined and not result.answered
    assert result.answer == NOTHING_FOUND
    assert result.to_dict()["pages"] == []


def test_key_terms_are_numbers_names_and_code() -> None:
    terms = key_terms("How does `uv sync --frozen` treat Gemma 3's 8k window in mlx-lm on Ubuntu?")
    assert [(t.text, t.kind) for t in terms] == [
        ("uv sync --frozen", "code"),
        ("Gemma", "name"),
        ("3", "number"),
        ("8k", "number"),
        ("mlx-lm", "code"),
        ("Ubuntu", "name"),
    ]
    assert key_terms("What is a cache?") == []
    facts = ["Gemma 3 caches 8,192 tokens with MLX LM."]
    assert unsupported(key_terms("Does Gemma 3 cache 8k tokens in mlx-lm?"), facts) == []
    lacking = unsupported(key_terms("Does Gemma 4 run on Ubuntu?"), facts)
    assert [t.text for t in lacking] == ["4", "Ubuntu"]  # Gemma matched; a number, a name not
    pro = unsupported(key_terms("How much does Gemma Pro cost?"), facts)
    assert [t.text for t in pro] == ["Pro"]
    code = unsupported(key_terms("Does Gemma 3 run in llama.cpp?"), facts)
    assert code == []  # a code token alone may be written otherwise
    assert [t.text for t in unsupported(key_terms("Is Rust fast?"), facts)] == ["Rust"]


def test_empty_question_is_a_usage_error(wiki) -> None:
    with pytest.raises(UsageError):
        answer_question(wiki, "  \n ", backend=FakeBackend())


def test_broken_citations_are_removed_and_reported(wiki) -> None:
    text = (
        "Snapshots happen at boundaries [[sources/paper#^p1]] [[sources/paper#^p99]]. "
        "See [[concepts/nope]] and [[concepts/gone|the gone page]]."
    )
    with open_store(wiki) as store:
        checked, citations, removed = check_citations(text, store)
    assert [r.link for r in removed] == [
        "[[sources/paper#^p99]]",
        "[[concepts/nope]]",
        "[[concepts/gone|the gone page]]",
    ]
    assert "no block ^p99 in sources/paper.md" in removed[0].reason
    assert checked == "Snapshots happen at boundaries [[sources/paper#^p1]]. See and the gone page."
    assert [(c.page, c.block) for c in citations] == [("sources/paper.md", "p1")]


def test_a_page_that_does_not_parse_is_not_retrieved(wiki) -> None:
    write_page(wiki, "concepts/bad.md", "---\ntitle: [oops\n---\nSnapshots persisted.\n")
    backend = FakeBackend(citing("Snapshots are persisted on disk.", "persisted on disk."))
    result = answer_question(wiki, QUESTION, backend=backend)
    assert "concepts/bad.md" not in {p.path for p in result.pages}
    assert result.answered


def test_a_sentence_cut_by_the_length_cap_keeps_whole_words() -> None:
    from wikic.query.compose import SENTENCE_CHARS, clean_sentence

    cut = ("Ollama stores models in the home folder and keeps a cache of the layers it has " * 3)[
        : SENTENCE_CHARS - 5
    ] + "summar"
    out = clean_sentence(cut)
    assert not out.rstrip(".").endswith("summar") and out.endswith(".")
    whole = "Ollama listens on port 11434. It stores models in the home folder of the user who " * 3
    assert clean_sentence(whole[:SENTENCE_CHARS]).endswith("11434.")


# -- quoted answers (answer_style: quote, the default) -------------------------------------------


def test_a_quoted_answer_quotes_what_answers_each_part_with_its_link(wiki) -> None:
    def respond(call):
        assert quotes(call) and set(call.schema.model_fields) == {"ids", "answerable"}
        return {"ids": [id_of(call, "checksum")], "answerable": True}

    question = "Where are snapshots persisted with a checksum, and when are they taken?"
    result = answer_question(wiki, question, backend=FakeBackend(respond))
    assert result.answer == (
        "Snapshots are persisted on disk with a checksum and a file lock [[sources/paper#^p3]]. "
        "Snapshots of the KV state are taken at segment boundaries, never by trimming "
        "[[sources/paper#^p1]]."
    )
    assert [s.text for s in result.sentences] == [
        "Snapshots are persisted on disk with a checksum and a file lock.",
        "Snapshots of the KV state are taken at segment boundaries, never by trimming.",
    ]
    assert result.answered and result.inferred == 0
    assert result.to_dict()["sentences"][1]["citations"] == ["[[sources/paper#^p1]]"]


def test_the_quote_schema_takes_one_to_three_shown_ids(wiki) -> None:
    for ids in ([], [1, 2, 3, 4], [99]):
        backend = FakeBackend(lambda call, ids=ids: {"ids": ids, "answerable": True})
        with pytest.raises(Exception, match="Answer"):
            answer_question(wiki, QUESTION, backend=backend)


def test_a_quoted_answer_drops_the_models_picks_off_the_question_and_declines_if_none() -> None:
    def unit(n: int, text: str) -> Fact:
        return Fact(
            page=f"c{n}.md", heading=f"C{n} (concept)", text=text, link=f"c{n}#^f-{n}", score=1 / n
        )

    ranked = [unit(1, "Snapshots are persisted on disk."), unit(2, "Wombats dig burrows.")]
    packed = pack(ranked, words(QUESTION), 200, words)
    backend = FakeBackend(lambda call: {"ids": [2, 1], "answerable": True})
    kept = compose(backend, QUESTION, packed, schema="", decline_text=DECLINED, max_tokens=64)
    assert kept.answer == "Snapshots are persisted on disk [[c1#^f-1]]."
    other = "Where do koalas sleep?"
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    none = compose(backend, other, packed, schema="", decline_text=DECLINED, max_tokens=64)
    assert none.answer == DECLINED and none.declined == "no sentence of the answer cites a fact"


def test_a_long_paragraph_is_quoted_by_its_sentences_about_the_question() -> None:
    filler = " ".join(f"Sentence {n} talks about weather and rain." for n in range(12))
    text = f"{filler} Snapshots are persisted on disk with a checksum. {filler}"
    para = Block(
        page="sources/p.md", heading="P (source)", kind="para", text=text, link="sources/p#^p1",
        score=1.0,
    )  # fmt: skip
    unit = Shown(1, para, text, 0)
    quoted = quote_text(unit, QUESTION, words)
    assert "Snapshots are persisted on disk with a checksum." in quoted
    assert quoted == "… Snapshots are persisted on disk with a checksum."
    assert words(quoted) <= QUOTE_TOKENS
    fact = Shown(2, Fact(page="c.md", heading="C", text=text, link="c#^f-1", score=1.0), text, 0)
    assert quote_text(fact, QUESTION, words) == text  # a fact is quoted whole


def test_a_which_question_about_many_things_quotes_the_list_that_names_them() -> None:
    """ "Which keys must a pointer contain?" asks for keys: the lead-in that ends naming them
    ("The required keys are:") and its items answer, before a sentence sharing more words;
    "In which file …" asks for one thing, and no lead-in is preferred for it."""
    from wikic.query.quote import select
    from wikic.query.terms import asked_for

    def unit(n: int, text: str, kind: str = "item") -> Block:
        return Block(page="sources/spec.md", heading="Git LFS Spec (source)", kind=kind, text=text,
                     link=f"sources/spec#^p{n}", score=1.0 / n, ordinal=n,
                     section="The Pointer")  # fmt: skip

    ranked = [
        unit(1, "Pointer files MUST contain only UTF-8 characters."),
        unit(2, "Tools must keep keys they do not know in pointer files."),
        unit(3, "The required keys are:", "para"),
        unit(4, "`version` is a URL."),
        unit(5, "`oid` is the object id."),
    ]
    question = "Which keys must a Git LFS pointer file contain?"
    assert asked_for(question) == "keys"
    assert asked_for("Which three tools from the repository does it use?") == "tools"
    assert asked_for("Which llama.cpp flag offloads layers?") == "flag"
    assert asked_for("What does the 4 mean?") is None
    packed = pack(ranked, words(question), 400, words)
    assert [u.evidence.ordinal for u in select(packed, question)][:3] == [3, 4, 5]
    singular = "Which key file must a Git LFS pointer contain?"  # one thing: no list wanted
    assert select(packed, singular)[0].evidence.ordinal == 1


def test_select_quotes_what_answers_each_part_of_the_question() -> None:
    from wikic.query.quote import select

    def unit(n: int, text: str) -> Fact:
        return Fact(
            page=f"c{n}.md", heading=f"C{n} (concept)", text=text, link=f"c{n}#^f-{n}", score=1 / n
        )

    question = "On which port does Ollama listen, and which variable changes the bind address?"
    ranked = [
        unit(1, "Ollama runs models locally."),
        unit(2, "Ollama listens on port 11434 by default."),
        unit(3, "Set the OLLAMA_HOST variable to change the bind address."),
        unit(4, "Wombats dig burrows."),
    ]
    packed = pack(ranked, words(question), 400, words)
    assert [u.id for u in select(packed, question)] == [3, 2]  # both parts, best first
    one = "Which variable changes the bind address?"
    assert [u.id for u in select(packed, one)] == [3]  # one part: one quote
    tie = pack([unit(1, "Port 80 is used."), unit(2, "Port 81 is used.")], ["port"], 400, words)
    assert [u.id for u in select(tie, "Which port is used?", ids=[2])][:1] == [2]
    assert [u.id for u in select(tie, "Which port is used?")][:1] == [1]  # search's best
    # the model's choice breaks ties only: the default model names the first ids shown
    assert [u.id for u in select(packed, question, ids=[1])] == [3, 2]
    assert select(tie, "Where do wombats live?") == []  # nothing about the question


def test_of_quotes_that_add_as_much_the_one_about_more_of_the_question_wins() -> None:
    """ "What does Rust guarantee for a tier 2 target, compared with tier 1?": after the quote
    on tier 2, every unit naming tier 1 adds the same (the number 1); the one that also speaks
    of the guarantee is the answer, not a fact that merely names tier 1, though a fact wins a
    tie with a paragraph and search ranked that fact higher (tiers-guarantee, corpus QA set)."""
    from wikic.query.quote import select

    question = "What does the Rust project guarantee for a tier 2 target, compared with tier 1?"

    def fact(n: int, page: str, text: str, score: float, section: str) -> Fact:
        return Fact(page=f"concepts/{page}.md", heading=f"{page} (concept)", text=text,
                    link=f"concepts/{page}#^f-{n}", score=score, section=section)  # fmt: skip

    def para(page: str, text: str, score: float) -> Block:
        return Block(page=f"sources/{page}.md", heading=f"{page} (source)", kind="para",
                     text=text, link=f"sources/{page}#^p1", score=score,
                     section="Tier 1 target policy")  # fmt: skip

    tier2 = fact(1, "tier-2", "At this tier, the Rust project guarantees that a target builds.",
                 1.0, "Tier 2 target policy")  # fmt: skip
    plan = fact(2, "tier-1", "We want a policy for raising targets to tier 2 or even tier 1.",
                0.9, "Summary")  # fmt: skip
    tier1 = para("policy", "At this tier, the Rust project guarantees that a target builds and "
                 "passes all tests. We hold tier 1 targets to our highest standard.", 0.5)  # fmt: skip
    packed = pack([tier2, plan, tier1], words(question), 400, words)
    assert [u.evidence.link for u in select(packed, question)] == [
        "concepts/tier-2#^f-1",
        "sources/policy#^p1",
    ]
    # a fact and a paragraph that say the same: the fact, fewer words, wins
    copied = fact(3, "tier-1", "Tier 1 targets meet our highest standard.", 0.4,
                  "Tier 1 target policy")  # fmt: skip
    same = para("p", "We hold tier 1 targets to our highest standard.", 0.6)
    packed = pack([tier2, same, copied], words(question), 400, words)
    assert [u.evidence.link for u in select(packed, question)][1:] == ["concepts/tier-1#^f-3"]


def test_a_word_only_a_facts_section_holds_weighs_half() -> None:
    """A fact is one self-contained sentence: a question's word that only the section it was
    copied from holds ("Setting a Python version" for "sets up") counts `LABEL_WEIGHT` of its
    weight, and the fact that says the question's words itself wins; a list item's or
    paragraph's section says what it is about, and counts whole."""
    from wikic.query.quote import select

    question = "Which flag sets up only the dependencies?"

    def unit(kind: str, n: int, section: str, text: str, score: float) -> Evidence:
        page, link = f"concepts/c{n}.md", f"concepts/c{n}#^f-{n}"
        if kind == "fact":
            return Fact(page=page, heading=f"C{n} (concept)", text=text, link=link,
                        score=score, section=section)  # fmt: skip
        return Block(page=page, heading=f"C{n} (source)", kind=kind, text=text, link=link,
                     score=score, section=section)  # fmt: skip

    def first(kind: str) -> str:
        ranked = [
            unit(kind, 1, "Usage — Setting a Python version",
                 "Poetry resolves the dependencies for every Python version.", 0.9),
            unit(kind, 2, "Usage — Installing",
                 "The --no-root flag installs the dependencies only.", 0.5),
        ]  # fmt: skip
        packed = pack(ranked, words(question), 400, words)
        return select(packed, question)[0].text

    assert first("fact").startswith("The --no-root flag")
    assert first("item").startswith("Poetry resolves")  # "sets" and "dependencies", as much


def test_select_takes_a_verb_of_the_same_action() -> None:
    """ "deletes" in the question, "remove" in the answer: one action."""
    from wikic.query.quote import select

    question = "Which command deletes a model alias?"
    ranked = [
        Fact(
            page=f"concepts/{name}.md",
            heading=f"llm aliases {name} (concept)",
            text=text,
            link=f"concepts/{name}#^f-{n}",
            score=1.0,
        )
        for n, (name, text) in enumerate(
            [
                ("set", "The `llm aliases set` command adds a new alias."),
                ("remove", "The `llm aliases remove` command will remove an alias."),
            ]
        )
    ]
    packed = pack(ranked, words(question), 400, words)
    assert select(packed, question)[0].text.startswith("The `llm aliases remove`")


def test_select_prefers_the_rest_of_the_passage_it_quoted() -> None:
    """A further quote from the page or source paragraph already quoted needs one new word
    and outweighs an equal one from elsewhere: the answer reads from one place."""
    from wikic.query.quote import select

    question = "Which origins does Ollama accept by default, and how can more be added?"
    ranked = [
        Fact(
            page="concepts/origins.md",
            heading="Origins (concept)",
            text="Ollama accepts origins 127.0.0.1 and 0.0.0.0 by default.",
            link="concepts/origins#^f-1",
            score=1.0,
            holds="sources/faq#^p15",
        ),
        Block(
            page="sources/faq.md",
            heading="FAQ (source)",
            kind="para",
            text="Add more with the OLLAMA_ORIGINS environment variable.",
            link="sources/faq#^p15",
            score=0.5,
            ordinal=15,
        ),
        Fact(
            page="concepts/plugins.md",
            heading="Plugins (concept)",
            text="Plugins are added with a command.",
            link="concepts/plugins#^f-2",
            score=0.4,
        ),
    ]
    packed = pack(ranked, words(question), 400, words)
    texts = [u.text for u in select(packed, question)]
    assert texts[0].startswith("Ollama accepts origins")
    assert texts[1] == "Add more with the OLLAMA_ORIGINS environment variable."  # its paragraph
    assert len(texts) == 2


def test_a_lead_in_brings_its_code_block_into_the_evidence_and_the_quote() -> None:
    from wikic.query.quote import select

    def para(n: int, text: str, kind: str = "para", score: float = 1.0) -> Block:
        return Block(page="sources/llm.md", heading="LLM (source)", kind=kind, text=text,
                     link=f"sources/llm#^p{n}", score=score, ordinal=n)  # fmt: skip

    question = "How do you find the path of the aliases file?"
    ranked = [
        para(18, "To see the path to the aliases file, run this:"),
        para(5, "Aliases are listed with a command.", score=0.9),
        para(30, "llm aliases list", "code", 0.2),
        para(19, "llm aliases path", "code", 0.1),  # ranked last: brought by its lead-in
    ]
    packed = pack(ranked, words(question), 30, words)
    shown = [s.text for s in packed.shown]
    assert shown.index("llm aliases path") == shown.index(ranked[0].text) + 1
    assert "[2] `llm aliases path`" in packed.text  # shown as code
    quoted = [u.evidence.link for u in select(packed, question)]
    assert quoted[:2] == ["sources/llm#^p18", "sources/llm#^p19"]
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    composed = compose(backend, question, packed, schema="", decline_text=DECLINED, max_tokens=9)
    assert composed.answer.startswith(
        "To see the path to the aliases file, run this: [[sources/llm#^p18]] "
        "`llm aliases path` [[sources/llm#^p19]]"
    )


def test_a_code_block_is_quoted_as_inline_code_cut_to_its_first_words() -> None:
    from wikic.query.evidence import code_span

    code = "cat `x` " + " ".join(f"arg{n}" for n in range(200))
    block = Block(page="sources/s.md", heading="S", kind="code", text=code, link="sources/s#^p2",
                  score=1.0)  # fmt: skip
    unit = Shown(1, block, code, 0)
    quoted = quote_text(unit, "What does cat do?", words)
    assert quoted.startswith("``cat `x` arg0") and quoted.endswith(" …``")
    assert words(quoted) <= QUOTE_TOKENS
    assert code_span("`a`") == "`` `a` ``"


USAGE = "usage: ./bench [options]\n\noptions:\n" + "\n".join(
    f"  -{c}, --{name} <n>   (default: {n})"
    for n, (c, name) in enumerate(
        [(chr(97 + k), f"option-{k}") for k in range(24)] + [("r", "repetitions")]
    )
)


def test_a_long_option_listing_shows_and_quotes_the_lines_a_question_is_about() -> None:
    """A 27-line listing's first words end long before `-r, --repetitions`: the block is shown
    and quoted by its first line and the lines holding the question's rarer words ("default"
    is on every line and counts for nothing), with `…` for what is left out."""
    from wikic.query.evidence import words as plain_words

    question = "How many times does bench repeat each test by default?"
    code = Block(page="sources/b.md", heading="B (source)", kind="code", text=USAGE,
                 link="sources/b#^p3", score=1.0, ordinal=3)  # fmt: skip
    packed = pack([code], plain_words(question), 300, words)
    assert packed.shown[0].text == (
        "usage: ./bench [options] … -r, --repetitions <n> (default: 24)"
    )
    quoted = quote_text(packed.shown[0], question, words)
    assert quoted == "`usage: ./bench [options] … -r, --repetitions <n> (default: 24)`"
    # a long table: its header and the rows about the question
    rows = "; ".join(["model | ngl | t/s"] + [f"llama 7B | {n} | {100 + n}.5" for n in range(40)])
    table = Block(page="sources/b.md", heading="B (source)", kind="table", text=rows,
                  link="sources/b#^p4", score=1.0, ordinal=4)  # fmt: skip
    shown = pack([table], plain_words("What did 35 layers give?"), 300, words).shown[0]
    assert shown.text == "model | ngl | t/s; …; llama 7B | 35 | 135.5; …"
    assert quote_text(shown, "What did 35 layers give?", words) == shown.text
    # a question no line is about: the block's first words
    other = pack([code], plain_words("What is a wombat?"), 300, words).shown[0].text
    assert other.startswith("usage: ./bench [options] options: -a, --option-0")
    # a short block is quoted whole: its output lines hold no word of the question
    run = "$ cargo rustc -- -Zself-profile\n$ ls\nCargo.toml regex-17088.events"
    block = Block(page="sources/p.md", heading="P", kind="code", text=run, link="sources/p#^p5",
                  score=1.0)  # fmt: skip
    short = Shown(1, block, run, 0)
    assert quote_text(short, "Which files does cargo rustc create?", words) == (
        "`$ cargo rustc -- -Zself-profile $ ls Cargo.toml regex-17088.events`"
    )


def test_a_condition_item_brings_what_then_happens_and_a_list_ends_with_its_section(
    wiki,
) -> None:
    commit_pages(
        wiki,
        {
            "wiki/sources/mcp.md": "---\ntype: source\ntitle: MCP\n---\n\n# MCP\n\n## Text\n\n"
            '### Final\n\n* If a "major change" PR is opened without the process ^p1\n'
            "    * We post a standard comment ^p2\n"
            "    * And the PR is marked as waiting on author ^p3\n\n"
            "### Examples\n\n* Allocate HIR on an arena ^p4\n"
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, "What happens to a major change PR opened without the process?")
    mcp = sorted(e.ordinal for e in found.evidence if e.page == "sources/mcp.md")
    assert mcp == [1, 2, 3]  # not ^p4: another section's list


def test_a_list_item_that_asks_a_question_brings_the_items_that_answer_it(wiki) -> None:
    """Meeting notes ask and answer in nested items: 'What is a "major change"?' introduces the
    items after it as a lead-in ending with ':' does."""
    commit_pages(
        wiki,
        {
            "wiki/sources/mcp.md": "---\ntype: source\ntitle: MCP\n---\n\n# MCP\n\n## Final\n\n"
            '* What is a "major change"? ^p1\n'
            "    * something where it would make sense to update rustc-guide ^p2\n"
            "    * docs may be imagined ^p3\n"
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, 'How is a "major change" defined?')
    mcp = sorted((e.ordinal, e.text) for e in found.evidence if e.page == "sources/mcp.md")
    assert [o for o, _ in mcp] == [1, 2, 3]
    assert mcp[1][1] == "something where it would make sense to update rustc-guide"


def test_code_blocks_of_source_pages_are_retrieved_with_their_block_ids(wiki) -> None:
    """A code block (`^pN` alone below its fence, in a list item too) is a `code` unit: the
    command a question asks for is often only in its example."""
    commit_pages(
        wiki,
        {
            "wiki/sources/aliases.md": "---\ntype: source\ntitle: Aliases\n---\n\n# Aliases\n\n"
            "## Text\n\nTo see the path to the aliases file, run this: ^p1\n\n"
            "```bash\nllm aliases path\n```\n\n^p2\n\n"
            "1. Remove an alias: ^p3\n\n   ```bash\n   llm aliases remove turbo\n\n"
            "   llm aliases\n   ```\n\n   ^p4\n"
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, "Which command removes an alias, and which prints its path?")
    code = {e.link: e.text for e in found.evidence if e.kind == "code"}
    assert code == {  # its lines, blank ones left out
        "sources/aliases#^p2": "llm aliases path",
        "sources/aliases#^p4": "   llm aliases remove turbo\n   llm aliases",
    }


def test_a_source_paragraph_opening_with_inline_code_keeps_it(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/sources/cl.md": "---\ntype: source\ntitle: Cranelift\n---\n\n# Cranelift\n\n"
            "## Text\n\n`rustc` has pluggable backends via the `-Zcodegen-backend` flag. ^p1\n"
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, "Which flag plugs a codegen backend into rustc?")
    texts = {e.link: e.text for e in found.evidence}
    assert texts["sources/cl#^p1"].startswith("`rustc` has pluggable backends")


def test_a_quoted_fact_brings_the_next_one_that_goes_on_about_it(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/concepts/interning.md": "---\ntype: concept\ntitle: Interning\n---\n\n"
            "# Interning\n\n## Facts\n\n"
            "- Every immortal string is interned. [[sources/paper#^p1]] ^f-aa0001\n"
            "- The converse is not true: interned strings can be mortal. "
            "[[sources/paper#^p1]] ^f-aa0002\n"
            "- Interned strings are compared with pointer equality. [[sources/paper#^p1]] ^f-aa0003\n"
        },
        "interning",
    )
    backend = FakeBackend(citing("Every immortal string is interned.", "Every immortal"))
    result = answer_question(wiki, "Is every interned string immortal?", backend=backend)
    assert result.answer == (
        "Every immortal string is interned [[concepts/interning#^f-aa0001]]. The converse is "
        "not true: interned strings can be mortal [[concepts/interning#^f-aa0002]]."
    )


def test_a_quoted_fact_about_something_else_brings_the_next_one_about_the_asked_name(
    wiki,
) -> None:
    """The fact that shares most words with the question states the problem; the one after it,
    whose subject the question asks about, is the answer, and is quoted after it."""
    commit_pages(
        wiki,
        {
            "wiki/entities/sentencepiece.md": "---\ntype: entity\ntitle: SentencePiece\n---\n\n"
            "# SentencePiece\n\n## Facts\n\n"
            "- Standard BPE assumes whitespace separates words, which fails for languages that "
            "do not use spaces. [[sources/tok#^p1]] ^f-bb0001\n"
            "- SentencePiece treats the input as a raw character stream with the space in its "
            "vocabulary. [[sources/tok#^p1]] ^f-bb0002\n"
            "- BPE merges the most frequent pair first. [[sources/tok#^p2]] ^f-bb0003\n"
        },
        "sentencepiece",
    )
    backend = FakeBackend(citing("Standard BPE assumes whitespace", "Standard BPE"))
    question = "How does SentencePiece handle languages that do not separate words with spaces?"
    result = answer_question(wiki, question, backend=backend)
    assert "raw character stream" in result.answer
    assert "most frequent pair" not in result.answer


def test_a_lead_in_brings_its_list_items_though_search_missed_them(wiki) -> None:
    """Source-page list items and tables are blocks of their own (one id each); a lead-in
    ("The required keys are:") found by search brings the items after it, which are quoted
    whole after it, though an item shares no word with the question."""
    commit_pages(
        wiki,
        {
            "wiki/sources/spec.md": "---\ntype: source\ntitle: Spec\n---\n\n# Spec\n\n## Text\n\n"
            "The required pointer keys are: ^p1\n\n"
            "* `version` is a URL naming the spec. ^p2\n* `oid` is the object id. ^p3\n"
            "* `size` is in bytes. ^p4\n\nUnrelated wombats dig burrows. ^p5\n\n"
            "| key | type |\n| --- | --- |\n| size | int |\n\n^p6\n"
        },
    )
    question = "Which keys must a pointer contain?"
    with open_store(wiki) as store:
        found = retrieve(store, question)
    spec = sorted(
        (e.ordinal, e.kind, e.text) for e in found.evidence if e.page == "sources/spec.md"
    )
    assert spec[:4] == [
        (1, "para", "The required pointer keys are:"),
        (2, "item", "`version` is a URL naming the spec."),
        (3, "item", "`oid` is the object id."),
        (4, "item", "`size` is in bytes."),  # no word of the question: brought by the lead-in
    ]
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    result = answer_question(wiki, question, backend=backend)
    assert (
        "The required pointer keys are: [[sources/spec#^p1]]\n- `version` is a URL naming the "
        "spec [[sources/spec#^p2]].\n- `oid` is the object id [[sources/spec#^p3]].\n- `size` "
        "is in bytes [[sources/spec#^p4]]." in result.answer
    )
    with open_store(wiki) as store:
        table = [
            e for e in retrieve(store, "What type is the size key?").evidence if e.kind == "table"
        ]
    assert [(e.link, e.text) for e in table] == [("sources/spec#^p6", "key | type; size | int")]


def test_a_list_found_by_one_item_ranks_with_its_lead_in_in_order(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/sources/qsbr.md": "---\ntype: source\ntitle: QSBR\n---\n\n# QSBR\n\n## Text\n\n"
            "Specific memory use cases include: ^p1\n\n* Dictionary keys are freed later. ^p2\n"
            "* Mimalloc pages reclaim memory for reuse, memory safely. ^p3\n\n"
            "Other memory text about reclaim here. ^p4\n"
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, "Which memory does it reclaim?")
    order = [e.ordinal for e in found.evidence if e.page == "sources/qsbr.md"]
    assert order[:3] == [1, 2, 3]  # the best item lifts its lead-in and siblings, in order
    scores = {e.ordinal: e.score for e in found.evidence if e.page == "sources/qsbr.md"}
    assert scores[1] >= scores[3] * 0.999


def test_a_list_item_shown_as_a_fact_stays_in_its_list_and_nothing_is_shown_twice() -> None:
    def src(n: int, text: str, kind: str, score: float) -> Block:
        return Block(page="sources/s.md", heading="S (source)", kind=kind, text=text,
                     link=f"sources/s#^p{n}", score=score, ordinal=n)  # fmt: skip

    fact = Fact(page="c.md", heading="C (concept)", text="The lfs.url string.", link="c#^f-1",
                score=9.0)  # fmt: skip
    long_code = " ".join(f"line{n}" for n in range(300))
    ranked = [
        fact,
        src(1, "Run this:", "para", 8.0),
        src(2, long_code, "code", 8.0),  # shown cut to its first words
        src(3, "The rules are:", "para", 7.0),
        src(4, "The lfs.url string.", "item", 7.0),  # the fact's words: shown in the list too
        src(5, "The remote url string.", "item", 7.0),
    ]
    packed = pack(ranked, ["rules"], 2000, words)
    shown = [(s.evidence.page, s.evidence.ordinal) for s in packed.shown]
    assert len(shown) == len(set(shown)) == 6
    assert [s.evidence.ordinal for s in packed.shown if s.evidence.page == "sources/s.md"] == [
        1,
        2,
        3,
        4,
        5,
    ]


def test_the_items_a_quoted_lead_in_introduces_are_rendered_as_a_list() -> None:
    from wikic.query.compose import joined

    def src(n: int, text: str, kind: str) -> Evidence:
        return Block(page="sources/s.md", heading="S (source)", kind=kind, text=text,
                     link=f"sources/s#^p{n}", score=1.0, ordinal=n)  # fmt: skip

    question = "Which keys must a pointer contain, and are they sorted alphabetically?"
    ranked = [
        src(1, "The keys a pointer must contain are:", "para"),
        src(2, "The version key names the spec.", "item"),
        src(3, "The oid key names the object.", "item"),
        Fact(
            page="c.md",
            heading="C (concept)",
            text="Pointer keys are sorted alphabetically.",
            link="c#^f-1",
            score=0.5,
        ),
    ]
    packed = pack(ranked, words(question), 400, words)
    backend = FakeBackend(lambda call: {"ids": [1, 4], "answerable": True})
    composed = compose(backend, question, packed, schema="", decline_text=DECLINED, max_tokens=9)
    listed = (
        "The keys a pointer must contain are: [[sources/s#^p1]]\n"
        "- The version key names the spec [[sources/s#^p2]].\n"
        "- The oid key names the object [[sources/s#^p3]]."
    )
    fact = "Pointer keys are sorted alphabetically [[c#^f-1]]."
    assert composed.answer == f"{fact} {listed}"
    first, *rest = composed.sentences
    assert joined([*rest, first]) == f"{listed}\n\n{fact}"  # prose after a list: a paragraph


def test_a_flag_in_a_question_is_searched_for_not_excluded(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/sources/uv.md": "---\ntype: source\ntitle: uv\n---\n\n# uv\n\n## Text\n\n"
            "With `--resolution=lowest`, uv installs the lowest versions. ^p1\n\n"
            "Wombats dig burrows. ^p2\n"
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, "What does --resolution=lowest do?")
    assert [e.link for e in found.evidence][:1] == ["sources/uv#^p1"]


def test_an_excerpt_brings_the_sentence_a_kept_one_refers_back_to() -> None:
    from wikic.query.evidence import excerpt, words

    text = (
        "`rustc` has support for pluggable backends via the unstable `-Zcodegen-backend` flag. "
        "`cg_cranelift` is developed in a separate repository, so it uses this flag to plug "
        "into `rustc`. `cg_cranelift` also takes advantage of an internal `rustc` library "
        "called `rustc_codegen_ssa` which tries to be a backend-agnostic support library."
    )
    question = words("Which rustc flag lets cg_cranelift plug into the compiler?")
    # room for two sentences: the best one, and the one whose flag it means ("this flag")
    quote = excerpt(text, question, 60, lambda s: len(s.split()) + 5, relevant_only=True)
    assert quote.startswith("`rustc` has support") and "so it uses this flag" in quote
    assert "rustc_codegen_ssa" not in quote


def test_an_excerpt_keeps_the_sentence_of_the_question_s_rare_word_with_what_it_refers_to() -> None:
    """Every sentence of PostgreSQL's WAL configuration paragraph says "checkpoint"; the one
    with the answer to "By default, how often …?" is the only one saying "default", and it
    gives its values "respectively" to the settings the sentence before it names. A word of
    the question counts once per sentence, the rarer among the text's sentences the more."""
    from wikic.query.evidence import excerpt, words

    text = (
        "The server's checkpointer process automatically performs a checkpoint every so often. "
        "A checkpoint is begun every `checkpoint_timeout` seconds, or if `max_wal_size` is about "
        "to be exceeded, whichever comes first. The default settings are 5 minutes and 1 GB, "
        "respectively. If no WAL has been written since the previous checkpoint, new checkpoints "
        "will be skipped even if `checkpoint_timeout` has passed. It is also possible to force "
        "a checkpoint by using the SQL command `CHECKPOINT` in a checkpoint-heavy workload."
    )
    question = words("By default, how often does PostgreSQL begin a checkpoint?")
    count = lambda s: len(s.split())  # noqa: E731
    quote = excerpt(text, question, 45, count, relevant_only=True)
    assert "5 minutes and 1 GB, respectively" in quote
    assert "A checkpoint is begun every `checkpoint_timeout` seconds" in quote  # what it pairs


def test_an_excerpt_keeps_a_sentence_with_its_whole_chain_of_antecedents() -> None:
    """ "If this significantly improves …" refers back to "If … try setting this number to 1.",
    which refers back to "It's … this parameter …", which means "llama accepts a `-t N`
    parameter.": the best sentence is quoted with all three, past the quote's budget, or the
    answer names no flag (tips-oversaturated, corpus QA set); and a sentence that refers back
    is never kept without its antecedent."""
    from wikic.query.evidence import excerpt, words

    text = (
        "llama accepts a `-t N` parameter. It's important that this parameter is not too large. "
        "If generation is slow, try setting this number to 1. If this improves generation "
        "speed, the CPU is oversaturated: set the parameter to the physical cores. Wombats "
        "dig burrows."
    )
    question = words("What should you do if generation is slow because the CPU is oversaturated?")
    count = lambda s: len(s.split())  # noqa: E731
    quote = excerpt(text, question, 20, count, relevant_only=True, keep_best=True)
    assert quote.startswith("llama accepts a `-t N` parameter.") and "physical cores." in quote
    assert "Wombats" not in quote
    # without keep_best the budget holds: no chain fits whole, so no refer-back alone either
    tight = excerpt(text, question, 20, count, relevant_only=True)
    assert "this number" not in tight and "this parameter" not in tight


# -- a quoted fact in its paragraph ---------------------------------------------------------------

LIMIT_PARA = (
    "To reduce memory contention, the advance of `wr_seq` is sometimes deferred. Once the "
    "deferral count reaches QSBR_DEFERRED_LIMIT, currently 10, the thread advances `wr_seq`."
)
LIMIT_FACT = (
    "Once the deferral count reaches QSBR_DEFERRED_LIMIT, currently 10, the thread advances "
    "`wr_seq`."
)


def _fact(n: int, text: str, para: str, block: str = "p20") -> Fact:
    return Fact(
        page="entities/limit.md",
        heading="QSBR_DEFERRED_LIMIT (entity)",
        text=text,
        link=f"entities/limit#^f-{n}",
        score=1.0 / n,
        ordinal=n,
        holds=f"sources/qsbr#^{block}",
        context=para,
    )


def test_a_quoted_fact_is_quoted_as_its_source_paragraph_cited_to_both() -> None:
    question = "What is QSBR_DEFERRED_LIMIT set to, and why is the advance deferred?"
    packed = pack([_fact(1, LIMIT_FACT, LIMIT_PARA)], words(question), 400, words)
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    got = compose(backend, question, packed, schema="", decline_text=DECLINED, max_tokens=64)
    assert got.answer == (
        LIMIT_PARA.removesuffix(".") + " [[entities/limit#^f-1]] [[sources/qsbr#^p20]]."
    )
    assert [s.evidence.link for s in got.sentences[0].cited] == [
        "entities/limit#^f-1",
        "sources/qsbr#^p20",
    ]


def test_a_fact_stays_itself_when_its_paragraph_adds_nothing_or_is_quoted_already() -> None:
    from wikic.query.quote import in_context

    alone = _fact(1, LIMIT_FACT, LIMIT_FACT)  # the paragraph is the fact
    elsewhere = _fact(2, LIMIT_FACT, "A paragraph about something else entirely, at length.")
    for unit in (alone, elsewhere):
        shown = Shown(1, unit, unit.text, words(unit.text))
        assert in_context([shown], words) == [(shown, None)]
    para = Block(page="sources/qsbr.md", heading="QSBR (source)", kind="para", text=LIMIT_PARA,
                 link="sources/qsbr#^p20", score=0.5)  # fmt: skip
    fact = Shown(1, _fact(1, LIMIT_FACT, LIMIT_PARA), LIMIT_FACT, words(LIMIT_FACT))
    quoted = Shown(2, para, LIMIT_PARA, words(LIMIT_PARA))
    assert in_context([fact, quoted], words) == [(fact, None), (quoted, None)]  # cited already
    other = "To reduce memory contention, the advance of `wr_seq` is sometimes deferred."
    second = Shown(3, _fact(3, other, LIMIT_PARA), other, words(other))
    assert [u.evidence.link for u, _ in in_context([fact, second], words)] == [
        "sources/qsbr#^p20"
    ]  # two facts of one paragraph: it is quoted once


def test_an_answer_is_checked_on_its_facts_not_on_their_paragraphs() -> None:
    """A number only the paragraph's other sentence states does not answer an amount question:
    the checks read what the selection quoted before it is shown in its paragraph."""
    para = "The cache was rebuilt in 2019. Snapshots are persisted on disk."
    fact = "Snapshots are persisted on disk."
    question = "How many snapshots are persisted on disk?"
    packed = pack([_fact(1, fact, para)], words(question), 400, words)
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    got = compose(backend, question, packed, schema="", decline_text=DECLINED, max_tokens=64)
    assert got.answer == DECLINED


def test_a_fact_is_retrieved_with_the_text_of_the_paragraph_it_cites(wiki) -> None:
    with open_store(wiki) as store:
        found = retrieve(store, QUESTION).evidence
    fact = next(e for e in found if e.link == "concepts/prefix-cache#^f-bbb222")
    assert fact.holds == "sources/paper#^p3"
    assert fact.context == "Snapshots are persisted on disk with a checksum and a file lock."
    assert all(isinstance(e, Fact) == (e.kind == "fact") for e in found)  # the rest: blocks


INTERN_SOURCE = (
    "---\ntype: source\ntitle: Interning\n---\n\n# Interning\n\n## Text\n\n### Static strings\n\n"
    "Singletons live in static arrays. ^p1\n\n### Dynamic strings\n\n"
    "When interned, dynamic strings are added to an interpreter-wide dict. ^p2\n\n"
    "The key and value of each entry in this dict reference the same object. ^p3\n"
)
INTERN_PAGE = (
    "---\ntype: concept\ntitle: Interned strings\nsummary: x\n---\n\n# Interned strings\n\n"
    "## Facts\n\n"
    "- The key and value of each entry in this dict reference the same object. "
    "[[sources/intern#^p3]] ^f-ddd444\n"
    "- When interned, dynamic strings are added to an interpreter-wide dict. "
    "[[sources/intern#^p2]] ^f-eee555\n"
)


def test_a_fact_that_refers_back_brings_the_block_before_it_in_its_section(wiki) -> None:
    """ "… in this dict …" opens its paragraph: the dict is named in the one before, which is
    quoted first with its own link; a fact whose paragraph opens its section brings nothing."""
    from wikic.query.quote import in_context

    commit_pages(
        wiki,
        {"wiki/sources/intern.md": INTERN_SOURCE, "wiki/concepts/interned.md": INTERN_PAGE},
    )
    with open_store(wiki) as store:
        found = retrieve(store, "What do the key and value of an interned dict entry reference?")
    by_link = {e.link: e for e in found.evidence}
    refers = by_link["concepts/interned#^f-ddd444"]
    assert refers.before == (
        "sources/intern#^p2",
        "When interned, dynamic strings are added to an interpreter-wide dict.",
    )
    assert by_link["concepts/interned#^f-eee555"].before is None  # p1 is another section's
    shown = Shown(1, refers, refers.text, words(refers.text))
    (before, none), (fact, none_too) = in_context([shown], words)
    assert (before.evidence.link, none, fact, none_too) == ("sources/intern#^p2", None, shown, None)
    assert before.text.startswith("When interned")
    # the antecedent already quoted, or a fact that refers back only later on: nothing added
    p2 = Block(page="sources/intern.md", heading=refers.heading, kind="para", text=refers.text,
               link="sources/intern#^p2", score=refers.score)  # fmt: skip
    quoted_p2 = Shown(2, p2, "x", 1)
    assert [u for u, _ in in_context([quoted_p2, shown], words)] == [quoted_p2, shown]
    later = replace(refers, text="Entries map keys. Values in this dict are the keys.")
    plain = Shown(1, later, later.text, words(later.text))
    assert in_context([plain], words) == [(plain, None)]


PROFILE_SOURCE = (
    "---\ntype: source\ntitle: Profiling\n---\n\n# Profiling\n\n## Text\n\n### Setup\n\n"
    "First, we'll install the tools we're going to use from the `measureme` repository. ^p1\n\n"
    "```sh\n$ cargo install --git https://github.com/rust-lang/measureme crox summarize\n```\n\n"
    "^p2\n\nThe tools read trace files. They print a table. ^p3\n\n"
    "```sh\n$ summarize trace\n```\n\n^p4\n"
)
PROFILE_PAGE = (
    "---\ntype: concept\ntitle: measureme\nsummary: x\n---\n\n# measureme\n\n## Facts\n\n"
    "- First, we'll install the tools we're going to use from the `measureme` repository. "
    "[[sources/profiling#^p1]] ^f-aaa111\n"
    "- The tools read trace files. [[sources/profiling#^p3]] ^f-bbb222\n"
)


def test_a_fact_that_ends_its_paragraph_brings_the_code_block_after_it(wiki) -> None:
    """The sentence before a code block introduces it, with a stop as often as a colon: a
    quoted fact that ends its paragraph brings the block, with its own link; a fact that does
    not end its paragraph, or whose block is quoted already, brings nothing."""
    from wikic.query.quote import in_context

    commit_pages(
        wiki,
        {"wiki/sources/profiling.md": PROFILE_SOURCE, "wiki/concepts/measureme.md": PROFILE_PAGE},
    )
    question = "Which tools from the measureme repository read trace files?"
    with open_store(wiki) as store:
        found = retrieve(store, question)
    by_link = {e.link: e for e in found.evidence}
    install = by_link["concepts/measureme#^f-aaa111"]
    assert install.after == (
        "sources/profiling#^p2",
        "$ cargo install --git https://github.com/rust-lang/measureme crox summarize",
    )
    shown = Shown(1, install, install.text, words(install.text))
    (fact, none), (code, none_too) = in_context([shown], words)
    assert (fact, none, none_too) == (shown, None, None)
    assert (code.evidence.kind, code.evidence.link) == ("code", "sources/profiling#^p2")
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    packed = pack([install], words(question), 400, words)
    got = compose(backend, question, packed, schema="", decline_text=DECLINED, max_tokens=64)
    assert got.answer.endswith(
        "`$ cargo install --git https://github.com/rust-lang/measureme crox summarize` "
        "[[sources/profiling#^p2]]"
    )
    # "The tools read trace files." opens p3, which goes on: the block after p3 is not its
    reads = by_link["concepts/measureme#^f-bbb222"]
    assert reads.after == ("sources/profiling#^p4", "$ summarize trace")
    alone = Shown(1, reads, reads.text, words(reads.text))
    assert [u.evidence.link for u, _ in in_context([alone], words)] == ["sources/profiling#^p3"]
    p2 = Block(page="sources/profiling.md", heading=install.heading, kind="code",
               text=install.text, link="sources/profiling#^p2", score=install.score)  # fmt: skip
    taken = Shown(2, p2, "x", 1)
    assert [u for u, _ in in_context([taken, shown], words)] == [taken, shown]


def test_a_lead_in_is_selected_for_what_its_list_says() -> None:
    """ "In what order does Git LFS look for the server URL?": the lead-in's items name the
    URL settings, so the lead-in and its list are quoted (they are quoted together) before a
    config example sharing more words with the question than the lead-in alone."""
    from wikic.query.quote import select

    def unit(n: int, text: str, kind: str = "item", score: float = 1.0) -> Block:
        return Block(page="sources/spec.md", heading="Git LFS Spec (source)", kind=kind, text=text,
                     link=f"sources/spec#^p{n}", score=score, ordinal=n,
                     section="The Server")  # fmt: skip

    ranked = [
        unit(1, "Here are the rules Git LFS uses to determine a repository's server:", "para"),
        unit(2, "The `lfs.url` string."),
        unit(3, "The `remote.{name}.lfsurl` string."),
        unit(9, "[lfs] url = https://example.com/repo/info/lfs lfsurl = https://x", "code", 2.0),
    ]
    question = "In what order does Git LFS look for the server URL of a repository?"
    packed = pack(ranked, words(question), 400, words)
    assert [u.evidence.ordinal for u in select(packed, question)][:3] == [1, 2, 3]


def test_a_number_no_packed_unit_holds_is_found_further_down() -> None:
    """Search ranks a long table low for one rare number: the best unit holding a number or
    name of the question that the packed units lack is packed after the best few, so the
    answer is not declined for it; a question whose number nothing holds packs as before."""
    from wikic.query.evidence import relevant_lines
    from wikic.query.evidence import words as plain_words

    def fact(n: int, text: str) -> Fact:
        return Fact(page=f"c{n}.md", heading=f"C{n} (concept)", text=text, link=f"c{n}#^f-{n}",
                    score=20.0 - n)  # fmt: skip

    rows = "; ".join(["model | ngl | test | t/s"] + [
        f"llama 7B | {n} | {test} | {100 + n}.5" for n in range(10, 40) for test in ("pp", "tg")
    ])  # fmt: skip
    table = Block(page="sources/b.md", heading="B (source)", kind="table", text=rows,
                  link="sources/b#^p4", score=0.1, ordinal=4)  # fmt: skip
    ranked = [fact(n, f"Offloading {n} layers gave {n}0 tokens per second.") for n in range(1, 15)]
    question = "How many tokens per second did tg give with 35 layers offloaded?"
    plain = pack([*ranked, table], plain_words(question), 200, words)
    assert all(s.evidence is not table for s in plain.shown)  # no room left for the table
    packed = pack([*ranked, table], plain_words(question), 200, words, key_terms(question))
    shown = [s.evidence for s in packed.shown]
    assert table in shown
    assert "llama 7B | 35 | tg | 135.5" in next(s.text for s in packed.shown if s.evidence is table)
    # with room for one row of two with 35, the one with more of the question's words
    assert relevant_lines(rows, plain_words(question), 20, words, sep="; ") == (
        "model | ngl | test | t/s; …; llama 7B | 35 | tg | 135.5; …"
    )
    unknown = "How many tokens per second did tg give with 77 layers offloaded?"
    assert pack([*ranked, table], plain_words(unknown), 200, words, key_terms(unknown)) == pack(
        [*ranked, table], plain_words(unknown), 200, words
    )


def test_a_quote_opens_with_the_release_its_section_sits_under() -> None:
    """ "Which release added plugins?" is answered by the changelog heading above the quote: a
    quote under a release or a day opens with it, once while the next quotes share it."""
    from wikic.query.evidence import release_of

    def item(n: int, text: str, section: str) -> Block:
        return Block(page="sources/changes.md", heading="Changes (source)", kind="item", text=text,
                     link=f"sources/changes#^p{n}", score=1.0 / n, ordinal=n,
                     section=section)  # fmt: skip

    ranked = [
        item(1, "Plugins are available for 19 models.", "0.5 (2023-07-12): New features"),
        item(2, "Plugins can add models.", "0.5 (2023-07-12)"),
        item(7, "Plugins were first sketched.", "Design notes"),
    ]
    assert [release_of(e) for e in ranked] == ["0.5 (2023-07-12)", "0.5 (2023-07-12)", ""]
    assert release_of(replace(ranked[2], section="2024-03-05: Standup")) == "2024-03-05"
    question = "Which release made plugins available for 19 models, and what can plugins add?"
    packed = pack(ranked, words(question), 400, words)
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    got = compose(backend, question, packed, schema="", decline_text=DECLINED, max_tokens=64)
    assert got.answer == (
        "0.5 (2023-07-12): Plugins are available for 19 models [[sources/changes#^p1]]. "
        "Plugins can add models [[sources/changes#^p2]]."
    )
    assert got.prose.startswith("0.5 (2023-07-12): Plugins are available")
    assert [s.label for s in got.sentences] == ["0.5 (2023-07-12)", "0.5 (2023-07-12)"]


def test_an_answer_from_a_changelog_gives_the_release_in_text_and_json(wiki) -> None:
    commit_pages(
        wiki,
        {
            "wiki/sources/changes.md": "---\ntype: source\ntitle: Changes\n---\n\n# Changes\n\n"
            "## Text\n\n### 0.6 (2023-07-18)\n\nHomebrew installs it now. ^p1\n\n"
            "### 0.5 (2023-07-12)\n\n#### New features\n\n"
            "Plugins are available for 19 models. ^p2\n"
        },
    )
    backend = FakeBackend(lambda call: {"ids": [1], "answerable": True})
    result = answer_question(wiki, "Which release made plugins available?", backend=backend)
    assert result.answer == (
        "0.5 (2023-07-12): Plugins are available for 19 models [[sources/changes#^p2]]."
    )
    assert result.to_dict()["sentences"][0]["release"] == "0.5 (2023-07-12)"
