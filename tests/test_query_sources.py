"""What `wikic query` knows of the sources behind a page: a note (blockquote) on a source page is
a paragraph a fact can cite, a fact copied from a paragraph with Markdown links is quoted as that
paragraph, a web address's words do not answer a question, and a fact names the document it
comes from when the question names documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.storetools import sample_wiki
from tests.helpers.wikitools import commit_pages
from wikic.query.evidence import Block, Fact, Shown, pack
from wikic.query.quote import in_context, select
from wikic.query.retrieve import retrieve
from wikic.store.db import open_store


@pytest.fixture
def wiki(tmp_path: Path):
    return sample_wiki(tmp_path / "w")


def words(text: str) -> int:
    return len(text.split())


NOTE = (
    "> **Note:**\n>\n> The Read Committed isolation level only takes effect in the pessimistic "
    "transaction mode. In the optimistic transaction mode, it does not take effect.\n\n^p2\n"
)


def test_a_note_on_a_source_page_is_a_paragraph_a_fact_cites(wiki) -> None:
    """A blockquote's `^pN` stands alone below it (as a table's does): the note is searched,
    and a fact copied from it is shown with it as its paragraph."""
    commit_pages(
        wiki,
        {
            "wiki/sources/tidb.md": "---\ntype: source\ntitle: TiDB Isolation\n---\n\n"
            "# TiDB Isolation\n\n## Text\n\nTiDB supports Read Committed. ^p1\n\n" + NOTE,
            "wiki/concepts/rc.md": "---\ntype: concept\ntitle: Read Committed\n---\n\n"
            "# Read Committed\n\n## Facts\n\n- In the optimistic transaction mode, it does not "
            "take effect. [[sources/tidb#^p2]] ^f-1a2b3c\n",
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, "In which transaction mode does Read Committed take effect?")
    by_link = {e.link: e for e in found.evidence}
    note = by_link["sources/tidb#^p2"]
    assert note.kind == "para"
    assert note.text.startswith("Note: The Read Committed isolation level only takes effect")
    fact = by_link["concepts/rc#^f-1a2b3c"]
    assert isinstance(fact, Fact) and fact.context == note.text


LEADER_PARA = (
    "Because LiteFS runs in ephemeral deployments such as [Fly.io](https://fly.io/) or "
    "[Kubernetes](https://kubernetes.io/), it cannot use Raft. Instead, it delegates leader "
    "election to Consul sessions."
)
LEADER_FACT = (
    "Because LiteFS runs in ephemeral deployments such as Fly.io or Kubernetes, it cannot use Raft."
)


def test_a_fact_copied_without_its_links_targets_is_quoted_as_its_paragraph() -> None:
    fact = Fact(
        page="concepts/leader.md", heading="Leader election (concept)", text=LEADER_FACT,
        link="concepts/leader#^f-1", score=1.0, holds="sources/litefs#^p17", context=LEADER_PARA,
    )  # fmt: skip
    shown = Shown(1, fact, LEADER_FACT, words(LEADER_FACT))
    [(quoted, stands_for)] = in_context([shown], words)
    assert quoted.text == LEADER_PARA and quoted.evidence.link == "sources/litefs#^p17"
    assert stands_for == shown


def _block(n: int, text: str, kind: str = "para", page: str = "sources/guide.md") -> Block:
    return Block(
        page=page, heading="Guide (source)", kind=kind, text=text,
        link=f"{page.removesuffix('.md')}#^p{n}", score=1.0 / n, ordinal=n,
    )  # fmt: skip


def test_a_web_address_in_prose_does_not_answer_but_one_in_code_does() -> None:
    question = "Why might pip download many versions of the same package?"
    note = _block(1, "Get pip and many a package version from https://www.python.org/downloads/.")
    answer = _block(2, "Backtracking can look like pip downloading many versions of a package.")
    packed = pack([note, answer], ["pip", "download", "versions"], 400, words)
    assert select(packed, question)[0].evidence.link == "sources/guide#^p2"
    # in a code block the address is the command's argument: its repository is named there
    code_q = "Which tools does the measureme repository install?"
    intro = _block(1, "We install the tools to analyze the data.")
    cmd = _block(2, "cargo install --git https://github.com/rust-lang/measureme crox", "code")
    packed = pack([intro, cmd], ["tools", "measureme"], 400, words)
    assert "sources/guide#^p2" in [u.evidence.link for u in select(packed, code_q)]


def _fact(n: int, page: str, text: str, origin: str) -> Fact:
    return Fact(
        page=f"concepts/{page}.md", heading=f"{page} (concept)", text=text,
        link=f"concepts/{page}#^f-{n}", score=1.0 / n, ordinal=n, origin=origin,
    )  # fmt: skip


def test_a_fact_answers_for_the_document_it_comes_from(wiki) -> None:
    """Asked what two tools each do, the second quote is the fact that says it for the other
    tool, though only the title of the source it cites names that tool (a page gathering
    several sources), not a passage that shares only the tool's name."""
    question = "What do Litestream and LiteFS each use their transaction IDs (TXIDs) for?"
    first = _fact(
        1, "txid", "Litestream applies each LTX file in TXID order to restore a transaction.",
        "How Litestream works",
    )  # fmt: skip
    other = _fact(
        2, "ltx", "Each LTX file has a TXID so replicas know their position.",
        "LiteFS Architecture",
    )  # fmt: skip
    named = _block(3, "LiteFS: leader election is done by Consul.", page="sources/litefs.md")
    packed = pack([first, named, other], ["transaction", "txids"], 400, words)
    assert [u.evidence.link for u in select(packed, question)] == [
        "concepts/txid#^f-1",
        "concepts/ltx#^f-2",
    ]
    # a fact's origin counts for the names a question asks about, not for its other words
    plain = [_fact(1, "a", "Triage meetings are full.", "Major change process"),
             _fact(2, "b", "A major change is one that would update the guide.", "Notes")]  # fmt: skip
    packed = pack(plain, ["major", "change", "defined"], 400, words)
    got = select(packed, "In the major change process, how is a major change defined?")
    assert [u.evidence.link for u in got] == ["concepts/b#^f-2"]
    # retrieval fills `origin` from the store: the title of the cited source page
    commit_pages(
        wiki,
        {
            "wiki/sources/litefs.md": "---\ntype: source\ntitle: LiteFS Architecture\n---\n\n"
            "# LiteFS Architecture\n\n## Text\n\nEach LTX file has a TXID so replicas know "
            "their position. ^p1\n",
            "wiki/concepts/ltx.md": "---\ntype: concept\ntitle: LTX file\n---\n\n# LTX file\n\n"
            "## Facts\n\n- Each LTX file has a TXID so replicas know their position. "
            "[[sources/litefs#^p1]] ^f-9a9a9a\n",
        },
    )
    with open_store(wiki) as store:
        found = retrieve(store, question)
    facts = [e for e in found.evidence if isinstance(e, Fact) and e.page == "concepts/ltx.md"]
    assert [f.origin for f in facts] == ["LiteFS Architecture"]


def test_a_what_kinds_question_quotes_the_list_its_verb_introduces() -> None:
    """ "What kinds of information does a Pipfile.lock contain?" is answered by the list that
    "The `Pipfile.lock` is a JSON file that contains:" introduces, not by a fact of the
    Pipfile.lock page that shares the page's name and "container"."""
    question = "What kinds of information does a Pipfile.lock contain?"
    page = "sources/pipenv.md"
    lead = Block(page=page, heading="Locking (source)", kind="para", section="What is a Lock File?",
                 text="The `Pipfile.lock` is a JSON file that contains:", link="sources/pipenv#^p4",
                 score=0.5, ordinal=4)  # fmt: skip
    items = [
        Block(
            page=page,
            heading="Locking (source)",
            kind="item",
            section="What is a Lock File?",
            text=text,
            link=f"sources/pipenv#^p{n}",
            score=0.4,
            ordinal=n,
        )
        for n, text in ((5, "Exact versions of all dependencies"), (6, "Hashes for each package"))
    ]
    fact = Fact(page="entities/pipfile-lock.md", heading="Pipfile.lock (entity)",
                text="Lock the `Pipfile.lock` in a Docker container.",
                link="entities/pipfile-lock#^f-1", score=1.0)  # fmt: skip
    packed = pack([fact, lead, *items], ["information", "pipfile", "lock"], 400, words)
    assert [u.evidence.link for u in select(packed, question)][:3] == [
        "sources/pipenv#^p4",
        "sources/pipenv#^p5",
        "sources/pipenv#^p6",
    ]


def test_a_quote_brings_the_next_paragraph_that_says_what_happens_instead() -> None:
    """ "… it could corrupt its database state." — "Instead, LiteFS compares checksums …": the
    paragraph after a quote that opens with "Instead" goes on about it."""
    question = "How does a former LiteFS primary find out its database diverged?"
    problem = _block(24, "A former LiteFS primary's database could have diverged from the new one.")
    answer = _block(25, "Instead, it compares checksums and then downloads a snapshot.")
    packed = pack([problem, answer], ["litefs", "primary", "diverged"], 400, words)
    assert [u.evidence.link for u in select(packed, question)] == [
        "sources/guide#^p24",
        "sources/guide#^p25",
    ]
