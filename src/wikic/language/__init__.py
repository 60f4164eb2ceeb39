"""English rules in one place: sentences, names, stop words, stemming, fragment checks.

Ingest, lint, search, query and consolidate read English through this package. It imports only
the standard library, third-party packages, `wikic.errors`, `wikic.config` and the value types of
`wikic.vault.document` and `wikic.vault.names`.
"""
