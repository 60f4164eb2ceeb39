"""Benchmark and check `wikic consolidate` on dated notes against the answers planted in them.

Builds a fresh wiki whose episode source pages are rendered from the notes by `vault.document`
(as ingest renders them, without spending model time on ingest), runs `consolidate` in this
process, then counts what the issue asks for, from the notes' `expected.yaml`: each planted
pattern on one page or section citing all its episodes (and its dated change, when planted), one-off
events promoted to a semantic page, sentences citing a block that does not hold them and cut
sentences (`consolidate.audit`), pattern names of a single word, broken links, lint problems,
and whether a re-run changes nothing. Wall and CPU seconds are reported per episode, with the
load average: this machine may be shared.

    python scripts/bench_consolidate.py                                  # the sample journal
    python scripts/bench_consolidate.py --notes tests/data/episodes-weeks --backend echo
    python scripts/bench_consolidate.py --json --out scripts/results/bench_consolidate.json

`--backend model` (the default) loads the configured model; `--backend echo` is a scripted
stand-in that copies the first sentence of each episode's first paragraph as its digest
sentences and proposes the recurring items code offers unchanged: what code alone makes of
the notes, in seconds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from wikic.cli import backends
from wikic.consolidate import ConsolidateRequest, consolidate
from wikic.consolidate.audit import audit
from wikic.init import init_wiki
from wikic.lint import LintOptions, run_lint
from wikic.llm.backend import Backend
from wikic.llm.blas import ensure_fast_blas
from wikic.llm.fake import FakeBackend, FakeCall
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths, open_paths
from wikic.vault.document import parse_document, render_source_body
from wikic.vault.links import parse_links
from wikic.vault.pages import Page, render_page
from wikic.vault.sections import split_body
from wikic.vault.sources import sha256_bytes
from wikic.vault.tree import Vault

REPO = Path(__file__).resolve().parent.parent
JOURNAL = REPO / "raw" / "journal"
JOURNAL_EXPECTED = REPO / "tests" / "data" / "journal-expected.yaml"
TODAY = dt.date(2026, 6, 1)  # fixed, so two runs of the same code write the same pages
_BLOCK_RE = re.compile(r"^\[(e\d+p\d+)\] (.*)$", re.MULTILINE)
_EPISODE_RE = re.compile(r"^EPISODE (e\d+) ", re.MULTILINE)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


def build_wiki(root: Path, notes: Path) -> WikiPaths:
    init_wiki(root)
    paths = open_paths(root)
    (paths.raw / "journal").mkdir(parents=True, exist_ok=True)
    plan = Plan("test", "episodes rendered from the notes")
    for note in sorted(notes.glob("*.md")):
        data = note.read_bytes()
        (paths.raw / "journal" / note.name).write_bytes(data)
        doc = parse_document(data.decode("utf-8"), filename=note.name)
        first = doc.blocks[0].sentences[0].text if doc.blocks[0].sentences else doc.title
        props = {
            "type": "source",
            "title": doc.title,
            "aliases": [],
            "tags": ["source", "journal"],
            "summary": first,
            "kind": "journal",
            "raw": f"raw/journal/{note.name}",
            "sha256": sha256_bytes(data),
            "created": TODAY,
            "ingested": TODAY,
        }
        body = f"# {doc.title}\n\n{first}\n\n## Text\n\n{render_source_body(doc)}"
        plan.write(f"wiki/sources/{note.stem}.md", render_page(Page("", props, body)))
    with writing(paths, "test") as writer:
        writer.commit(plan, today=TODAY)
    return paths


def echo_reply(call: FakeCall) -> dict[str, Any]:
    """A stand-in model: each episode's first sentence as a digest sentence, and every
    recurring item the prompt offers as a pattern, with nothing of its own."""
    prompt = call.prompt
    firsts: dict[str, tuple[str, str]] = {}
    for bid, text in _BLOCK_RE.findall(prompt):
        episode = bid.split("p", 1)[0]
        firsts.setdefault(episode, (bid, _SENTENCE_END_RE.split(text)[0]))
    digest = [
        {"text": text, "cites": [bid]}
        for bid, text in list(firsts.values())[:3]
        if 10 <= len(text) <= 160
    ]
    schema = call.schema.model_json_schema() if call.schema is not None else {}
    return {"digest": digest, "patterns": _echo_patterns(schema, firsts)}


def _echo_patterns(schema: dict[str, Any], firsts: dict[str, tuple[str, str]]) -> list[Any]:
    defs = schema.get("$defs", {})
    pattern = defs.get("Pattern", {}).get("properties", {})
    names = (pattern.get("name") or pattern.get("id") or {}).get("enum") or []
    out: list[dict[str, Any]] = []
    for name in names[:3]:
        if name == "none":
            continue
        item: dict[str, Any] = {}
        for key, spec in pattern.items():
            if key in ("name", "id"):
                item[key] = name
            elif key == "target":
                item[key] = "new"
            elif key == "changed":
                item[key] = None
            elif spec.get("type") == "string":
                item[key] = next(
                    (t for _, t in firsts.values() if name.casefold() in t.casefold()),
                    f"{name} recurs in these notes.",
                )[: spec.get("maxLength", 160)]
        out.append(item)
    return out


def cited_sections(page: Page) -> dict[str, set[str]]:
    """Section heading (the lead is "") → the source pages its lines cite."""
    body = split_body(page.body)
    found = {"": {lnk.target for lnk in parse_links(body.lead) if lnk.block}}
    for heading, text in body.sections:
        found[heading] = {lnk.target for lnk in parse_links(text) if lnk.block}
    return found


def check(paths: WikiPaths, expected: dict[str, Any], report: Any) -> dict[str, Any]:
    vault = Vault.load(paths.wiki)
    semantic = [p for p in vault if p.type in ("concept", "entity")]
    sections = [
        (page, heading, {c.removeprefix("sources/") for c in cited})
        for page in semantic
        for heading, cited in cited_sections(page).items()
    ]
    planted = {}
    for item in expected.get("patterns", []):
        wanted = set(item["episodes"])
        best = max(sections, key=lambda s: len(s[2] & wanted), default=None)
        found = sorted(best[2] & wanted) if best else []
        changed = None
        if item.get("changed") and best is not None:
            page = best[0]
            tail = page.body.split("### How this changed", 1)
            changed = len(tail) == 2 and all(
                f"[[sources/{item['changed'][k]}#^p" in tail[1] for k in ("before", "after")
            )
        planted[item["id"]] = {
            "page": f"{best[0].path}#{best[1]}" if best and found else None,
            "episodes_cited": f"{len(found)}/{len(wanted)}",
            "all_on_one": len(found) == len(wanted),
            "changed_entry": changed,
        }
    promoted = sorted(
        {
            o["word"]
            for o in expected.get("one_offs", [])
            for p in semantic
            if o["word"].casefold() in p.body.casefold()
        }
    )
    problems = audit(vault)
    names = [str(p["name"]) for o in report.outcomes for p in o.patterns]
    broken = [
        f"{p.path}: {lnk.render()}"
        for p in vault
        for lnk in parse_links(p.body)
        if not vault.link_exists(lnk, on=p)
    ]
    lint = run_lint(paths, LintOptions())
    return {
        "planted": planted,
        "planted_all_on_one": sum(1 for v in planted.values() if v["all_on_one"]),
        "planted_total": len(planted),
        "changes_found": sum(1 for v in planted.values() if v["changed_entry"]),
        "changes_planted": sum(1 for v in planted.values() if v["changed_entry"] is not None),
        "one_offs_promoted": promoted,
        "unsupported_citations": [
            f"{p.page}: {p.text[:90]} — {p.detail}" for p in problems if p.kind != "cut"
        ],
        "cut_sentences": [
            f"{p.page}: {p.text[-90:]} — {p.detail}" for p in problems if p.kind == "cut"
        ],
        "pattern_names": sorted(set(names)),
        "names_not_phrases": sorted({n for n in names if len(n.split()) < 3}),
        "broken_links": broken,
        "lint_problems": [
            f"{f.rule} {f.page}: {f.message}" for f in lint.findings if f.level != "info"
        ],
        "semantic_pages": [p.path for p in semantic],
    }


def pick_backend(paths: WikiPaths, kind: str, model: str | None) -> Backend:
    if kind == "echo":
        return FakeBackend(echo_reply, name="echo")
    return backends.for_role(paths, "write", model)


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=Path, default=JOURNAL, help="a folder of dated notes")
    parser.add_argument(
        "--expected", type=Path, help="planted answers (default: NOTES/expected.yaml)"
    )
    parser.add_argument("--backend", choices=["model", "echo"], default="model")
    parser.add_argument("--model", default=None, help="default: the config's model")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument("--keep", action="store_true", help="print and keep the wiki directory")
    args = parser.parse_args()
    expected_path = args.expected or (
        JOURNAL_EXPECTED if args.notes.resolve() == JOURNAL else args.notes / "expected.yaml"
    )
    expected = yaml.safe_load(expected_path.read_text(encoding="utf-8"))
    if args.backend == "model":
        ensure_fast_blas()
    root = Path(tempfile.mkdtemp(prefix="bench-consolidate-")) / "w"
    paths = build_wiki(root, args.notes)
    backend = pick_backend(paths, args.backend, args.model)
    load_before = os.getloadavg()

    def run() -> Any:
        return consolidate(paths, ConsolidateRequest(), backend=lambda: backend, today=TODAY)

    report, wall, cpu = timed(run)
    rerun = run()
    head = (paths.root / ".git" / "HEAD").read_text()
    n = report.episodes
    result = {
        "notes": str(args.notes.resolve().relative_to(REPO)),
        "backend": args.backend,
        "model": backend.model_name,
        "episodes": n,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "wall_s_per_episode": round(wall / n, 2) if n else None,
        "cpu_s_per_episode": round(cpu / n, 2) if n else None,
        "loadavg_1m_before_after": [round(load_before[0], 1), round(os.getloadavg()[0], 1)],
        "cpus": os.cpu_count(),
        "periods": [
            {
                "period": o.period,
                "episodes": len(o.episodes),
                "seconds": o.seconds,
                "prompt_tokens": o.stats.prompt_tokens,
                "generated_tokens": o.stats.generated_tokens,
                "patterns": [(p["name"], p["page"], len(p["episodes"])) for p in o.patterns],
                "rejected": [(r["name"], r["why"]) for r in o.rejected],
                "notes": o.notes,
                "status": o.status,
                "error": o.error,
            }
            for o in report.outcomes
        ],
        "rerun_noop": rerun.outcomes == [] and head == (paths.root / ".git" / "HEAD").read_text(),
        "checks": check(paths, expected, report),
        "date": dt.date.today().isoformat(),
    }
    if args.keep:
        result["wiki"] = str(root)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        print(text)
    else:
        print(summary(result))
    sys.exit(0 if all(o.status == "consolidated" for o in report.outcomes) else 1)


def summary(result: dict[str, Any]) -> str:
    c = result["checks"]
    lines = [
        f"{result['notes']}: {result['episodes']} episodes, backend {result['backend']} "
        f"({result['model']}); {result['wall_s']} s wall ({result['wall_s_per_episode']} s per "
        f"episode), {result['cpu_s']} s CPU; load {result['loadavg_1m_before_after']}",
        "",
        "| check | count |",
        "|---|---|",
        f"| planted patterns on one page or section, all episodes cited | "
        f"{c['planted_all_on_one']}/{c['planted_total']} |",
        f"| planted changes written as a dated entry | {c['changes_found']}/{c['changes_planted']} |",
        f"| one-offs promoted to a semantic page | {len(c['one_offs_promoted'])} |",
        f"| sentences citing a block that does not hold them | {len(c['unsupported_citations'])} |",
        f"| cut sentences | {len(c['cut_sentences'])} |",
        f"| pattern names under three words | {len(c['names_not_phrases'])} |",
        f"| broken links | {len(c['broken_links'])} |",
        f"| lint problems | {len(c['lint_problems'])} |",
        f"| re-run changes nothing | {result['rerun_noop']} |",
        "",
    ]
    for name, found in c["planted"].items():
        lines.append(f"- {name}: {found['episodes_cited']} on {found['page']}")
    lines.append(f"- pattern names: {c['pattern_names']}")
    for key in ("one_offs_promoted", "unsupported_citations", "cut_sentences", "lint_problems"):
        for item in c[key][:6]:
            lines.append(f"- {key}: {item}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
