"""The derived sqlite index in .wikic/: pages, links, claims and full-text search, rebuilt from the
page files whenever they change. Never a source of truth."""
