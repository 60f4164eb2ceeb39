"""The text of query's prompt: the answer task of each style, then the question.

`query.compose` fills them: `{where}` names where the numbered facts come from. The reply
schema's field names (`ids`, `answerable`) are part of the prompt the model reads: plain words.
"""

from __future__ import annotations

QUOTE_TASK = (
    "Find the answer to the question at the end in the numbered facts below, which come from "
    "{where}. Reply in JSON: in ids, the numbers of the one to three facts that answer the "
    "question, best first; then set answerable to true if those facts answer it, false if no "
    "fact does."
)
WRITE_TASK = (
    "Answer the question at the end using only the numbered facts below, which come from "
    "{where}. Reply in JSON: one or two short sentences that answer it; for each sentence, "
    "list in ids the numbers of the facts it uses, and keep to what those facts say, with their "
    "numbers, names and terms. Then set answerable to true if the facts you used answer the "
    "question, false if they do not."
)
TASKS: dict[str, str] = {"quote": QUOTE_TASK, "write": WRITE_TASK}  # by answer style
WHERE_WIKI = "the pages of a wiki"
QUESTION = "Question: {question}"
