"""Section labels at planning: a heading's label names a part of one document, not a thing.

A source's section "Specification" (or "Tools", "Caveats") becomes a page of its own when its
heading is all the document calls the section, though none of its sentences names the label
(`part_label`). A heading that asks about the thing ("What is a Lock File?", "Why Use Lock
Files?") is no label: the section says what the thing is or does, whether or not its sentences
repeat the name. Two documents with a section of the same label are about two different things:
resolved by name to one page, the label gathered every document's sentences about something
else, and its opening ("Specification is a section of …") said nothing of them. So a label's
topic never shares its page with another source (`drop_shared_labels`): not with another
source of the batch, labelled or named, nor with a page another source wrote before. Its
sentences stay on its source's page. A page the same source wrote before (a re-ingest) is its
own and stays.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from wikic.ingest.extract import Topic
from wikic.language.grounding import mentions
from wikic.language.headings import question_names
from wikic.vault.document import Document
from wikic.vault.links import normalize_target, parse_links
from wikic.vault.names import name_key
from wikic.vault.tree import Vault

if TYPE_CHECKING:  # plan runs `drop_shared_labels` before it joins shared concepts
    from wikic.ingest.plan import SourcePlan


def part_label(topic: Topic, texts: Sequence[str], asked: Collection[str] = ()) -> bool:
    """Whether `topic` is a section's label: a heading gave it, it is not what the title names,
    a code name, nor what a question heading asks about (`asked`: name keys), and none of its
    sentences (`texts`) names it."""
    if not topic.from_heading or topic.subject or topic.precise:
        return False
    if name_key(topic.name) in asked:
        return False
    return not any(mentions([topic.name, *topic.aliases], t) for t in texts)


def asked_about(doc: Document) -> set[str]:
    """The name keys of what the document's question headings ask about (`question_names`)."""
    return {name_key(n) for s in doc.sections for n in question_names(s.heading)}


def drop_shared_labels(plans: Sequence[SourcePlan], vault: Vault) -> None:
    """Take each label's topic (`part_label`) off its plan where its page is another source's
    too (see the module's docstring); noted in the plan's `dropped`."""
    users: dict[str, set[int]] = {}
    for n, plan in enumerate(plans):
        for _, target in plan.topics:
            users.setdefault(target.path, set()).add(n)
    for n, plan in enumerate(plans):
        sentences = plan.extraction.sentences
        asked = asked_about(plan.extraction.document)
        kept = []
        for topic, target in plan.topics:
            texts = [sentences[f].text for f in topic.facts if f in sentences]
            shared = users[target.path] - {n} or _others_wrote(vault, target.path, plan.source_page)
            if shared and part_label(topic, texts, asked):
                plan.dropped.append(
                    f"{topic.name} (a section's label, and {target.title} is another source's"
                    " page: its sentences stay on the source's page)"
                )
                continue
            kept.append((topic, target))
        plan.topics[:] = kept


def _others_wrote(vault: Vault, path: str, source_page: str) -> bool:
    """Whether the page at `path` existed before and cites a source other than `source_page`."""
    page = vault.pages.get(path)
    if page is None:
        return False
    own = normalize_target(source_page.removesuffix(".md"))
    cited = {
        normalize_target(lnk.target)
        for value in page.props.get("sources") or []
        for lnk in parse_links(str(value))
    }
    return bool(cited - {own})
