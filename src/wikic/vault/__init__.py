"""The on-disk wiki format, pure text ↔ values: links, pages, page sections, slugs, sources,
index.md and log.md rendering, and the one rule for when two names are the same."""
