"""A FakeBackend responder that plays the model's part in ingest from a script.

The script names topics and the sentences (by a distinctive substring) that state facts about
them; the responder finds those sentences' ids in the prompt, as a model would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wikic.llm.fake import FakeBackend, FakeCall
from wikic.vault.names import name_key

_SENTENCE_RE = re.compile(r"\[(s\d+)\] (.*?)(?= \[s\d+\] |\n|$)")
_FACT_LINE_RE = re.compile(r"^- ([no]\d+): (.*)$", re.MULTILINE)


def _line(pattern: str, prompt: str) -> str:
    """The first group of the line of `prompt` that `pattern` matches (the prompt must have it)."""
    found = re.search(pattern, prompt, re.MULTILINE)
    assert found is not None, f"no line like {pattern!r} in the prompt"
    return found.group(1)


@dataclass
class ScriptedTopic:
    name: str
    type: str = "concept"
    facts: tuple[str, ...] = ()  # substrings of the sentences to cite
    aliases: tuple[str, ...] = ()


@dataclass
class IngestScript:
    topics: dict[str, list[ScriptedTopic]] = field(default_factory=dict)  # by source title
    summaries: dict[str, str] = field(default_factory=dict)  # by source title
    # (substring of the new fact, substring of the old fact, reason)
    contradictions: list[tuple[str, str, str]] = field(default_factory=list)
    page_summaries: dict[str, str] = field(default_factory=dict)  # by page title

    def backend(self) -> FakeBackend:
        return FakeBackend(self.respond)

    def respond(self, call: FakeCall) -> dict:
        name = call.schema.__name__ if call.schema else ""
        prompt = call.prompt
        if name == "Extraction":
            title = _line(r"^SOURCE: (.*)$", prompt)
            sentences = dict(_SENTENCE_RE.findall(prompt))
            allowed = call.schema.model_json_schema()["$defs"]["Topic"]["properties"]["name"].get(
                "enum"
            )
            topics = []
            for t in self.topics.get(title, []):
                if allowed is not None:  # a constrained model can only pick an offered name
                    name = next((n for n in allowed if name_key(n) == name_key(t.name)), None)
                    if name is None:
                        continue
                    t = ScriptedTopic(name, t.type, t.facts, t.aliases)
                ids = [sid for sub in t.facts for sid, text in sentences.items() if sub in text]
                if not ids:
                    continue  # the grammar requires at least one fact per topic
                topics.append(
                    {"name": t.name, "type": t.type, "aliases": list(t.aliases), "facts": ids[:4]}
                )
            return {"topics": topics}
        if name == "SummaryOnly":
            subject = _line(r"^PAGE: (.*) \((?:entity|concept)\)$", prompt)
            return {
                "summary": self.page_summaries.get(
                    subject, f"{subject} as described by the sources."
                )
            }
        if name == "PageUpdate":
            task = prompt[prompt.rfind("PAGE: ") :]
            facts = dict((fid, text) for fid, text in _FACT_LINE_RE.findall(task))
            pairs = []
            for new_sub, old_sub, why in self.contradictions:
                new_id = next(
                    (k for k, v in facts.items() if k.startswith("n") and new_sub in v), None
                )
                old_id = next(
                    (k for k, v in facts.items() if k.startswith("o") and old_sub in v), None
                )
                if new_id and old_id:
                    pairs.append({"new": new_id, "old": old_id, "why": why})
            fields = call.schema.model_json_schema()["properties"]
            return (
                {"summary": "", "contradictions": pairs}
                if "summary" in fields
                else {"contradictions": pairs}
            )
        if name == "SourceSummary":
            title = _line(r"^SOURCE: (.*)$", prompt)
            return {"summary": self.summaries.get(title, f"A source about {title}.")}
        raise AssertionError(f"unexpected call with schema {name!r}")


def two_source_script() -> IngestScript:
    return IngestScript(
        topics={
            "The KV cache": [
                ScriptedTopic(
                    "KV cache", "concept", ("stores the keys and values", "grows linearly")
                ),
                ScriptedTopic(
                    "Prefix caching", "concept", ("reuses the KV cache", "only the new suffix")
                ),
                ScriptedTopic("Gemma 3", "entity", ("interleaves 5 local",)),
            ],
            "Sliding-window attention": [
                ScriptedTopic("Sliding-window attention", "concept", ("limits each token",)),
                ScriptedTopic(
                    "Gemma 3", "entity", ("interleaves 3 local",), aliases=("Gemma three",)
                ),
                ScriptedTopic(
                    "KV caches", "concept", ("keeps only the last window", "Trimming a rotating")
                ),
            ],
        },
        summaries={
            "The KV cache": "How decoders keep past keys and values, and how prefix caching reuses them.",
            "Sliding-window attention": "Sliding-window attention and why rotating caches need snapshots.",
        },
        contradictions=[
            ("interleaves 3 local", "interleaves 5 local", "3 vs 5 local layers per global layer")
        ],
        # grounded in the page's facts, so it is kept; the other pages get an ungrounded one,
        # which ingest replaces with their first fact
        page_summaries={
            "KV cache": "The KV cache stores the keys and values of past tokens and grows "
            "with the context length."
        },
    )
