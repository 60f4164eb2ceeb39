"""Every prompt string wikic sends to a model, one module per verb; `sentences` lists them.

Each UPPER_CASE string of a prompt module is a `str.format` template: `{field}` is a value filled
in (by the module's pure functions, which return text, or by the caller), `{{`/`}}` a literal
brace. Which role a text plays and in what order the segments go stay with the verb that makes
the call. This package imports nothing of wikic outside it, so any layer may import it.
"""
