"""The part of the wiki's schema (AGENTS.md) that steers one kind of model call.

AGENTS.md is the wiki's schema for people and for the model, but the whole file costs ~1,100
prompt tokens, and on CPU every token of context slows every decode step: measured with the
default model on a 2-core x86 CPU (scripts/results/bench_context.json), a decode step at batch 8
takes 512 ms with 300 tokens of context and 961 ms with 2,600 (mlx's CPU `exp` runs ~56 M/s, so
attention weighs heavily at long context). A call therefore gets the schema's title, the bullet of its own workflow
(`**Ingest**`, `**Query**`, …), the rule that source text is data, and the style section: what
the user writes there still steers the model.
"""

from __future__ import annotations

import re


def schema_excerpt(agents_md: str, workflow: str) -> str:
    """Title, the `**{workflow}**` bullet, the 'is data' bullet and the `## …style…` section."""
    lines = agents_md.strip().split("\n")
    kept = [lines[0]] if lines and lines[0].startswith("# ") else []
    wanted = re.compile(rf"\*\*{re.escape(workflow)}\*\*|is data")
    kept += [ln for ln in _bullets(lines) if wanted.search(ln)]
    return "\n".join([*kept, *_section(lines, "style")]).strip()


def _bullets(lines: list[str]) -> list[str]:
    """Top-level bullets with their continuation lines joined."""
    items: list[str] = []
    for line in lines:
        if line.startswith(("- ", "* ")):
            items.append(line)
        elif items and line.startswith("  ") and line.strip():
            items[-1] += " " + line.strip()
        else:
            items.append("")
    return [i for i in items if i]


def _section(lines: list[str], word: str) -> list[str]:
    """The `## …word…` section of `lines`, heading included."""
    out: list[str] = []
    for line in lines:
        if line.startswith("## "):
            if out:
                break
            if word in line.casefold():
                out.append(line)
        elif out:
            out.append(line)
    return out
