"""Page maintenance: `rename`, `merge` and `delete`, each one committed operation.

Every link to the pages involved is rewritten in every page (body and properties, with aliases,
headings and block ids); index.md is regenerated and log.md relinked by the write path, and the
search index follows the commit. `wikic undo` restores the wiki as it was.
"""
