from __future__ import annotations

from wikic.vault.sections import FACTS, bullets, split_body

BODY = """# Alpha

Alpha is a thing.

## Facts

- Alpha is red. [[sources/a#^p3]] ^f-abc123
- Alpha is big, says
  a second line. [[sources/b#^p1]] [[sources/a#^p2]]
- Uncited claim.

## Notes

```
## not a heading
```

## Contradictions

- **open** — [[#^f-abc123]] vs [[#^f-def456]]: red or blue ^x-1
"""


def test_split_and_render_round_trip() -> None:
    body = split_body(BODY)
    assert [name for name, _ in body.sections] == ["Facts", "Notes", "Contradictions"]
    assert body.lead.strip().startswith("# Alpha")
    assert "## not a heading" in (body.get("Notes") or "")
    assert body.render().strip() == BODY.strip()


def test_bullets_with_citations_and_blocks() -> None:
    facts = bullets(split_body(BODY).get(FACTS))
    assert [f.block for f in facts] == ["f-abc123", None, None]
    assert [len(f.citations) for f in facts] == [1, 2, 0]
    assert facts[1].text.startswith("Alpha is big, says a second line.")
    contradiction = bullets(split_body(BODY).get("Contradictions"))[0]
    assert contradiction.status == "open" and contradiction.block == "x-1"


def test_set_places_known_sections_in_order() -> None:
    body = split_body("# T\n\nlead\n\n## Sources\n\n- s\n")
    body.set(FACTS, "- f")
    body.set("Related", "- r")
    assert [n for n, _ in body.sections] == ["Facts", "Related", "Sources"]
    body.set("Custom", "x")
    assert [n for n, _ in body.sections][-1] == "Custom"
