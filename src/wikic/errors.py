"""The one error family of wikic.

Every error a user can cause or fix is a `WikicError`; the CLI catches it once, prints
`Error: <message>` (and the hint, if any) on stderr and exits with `exit_code`.
Anything else escaping is a bug and keeps its traceback.
"""

from __future__ import annotations


class WikicError(Exception):
    """Base of all user-facing errors. `hint` says what to do next."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n{self.hint}"


class UsageError(WikicError):
    """Bad arguments or options (exit code 2, like typer's own usage errors)."""

    exit_code = 2


class ConfigError(WikicError):
    """wikic.yaml is missing a required value, has an unknown key or a bad value."""


class NotAWikiError(WikicError):
    """The directory is not (inside) a wiki made by `wikic init`."""


class WikiExistsError(WikicError):
    """`wikic init` would overwrite an existing wiki."""


class LockBusyError(WikicError):
    """Another wikic process holds the writer lock."""


class OperationError(WikicError):
    """An operation could not be carried out; the wiki is unchanged."""


class UnsafeJournalError(OperationError):
    """A journal names files wikic never writes (outside the wiki, in raw/, .git/ or .wikic/):
    recovery refuses to touch them and leaves the journal for a person to inspect."""


class GitStateError(WikicError):
    """The git repository is in a state wikic must not commit in (staged user changes, ...)."""


class SourceError(WikicError):
    """A raw source cannot be read: outside raw/, binary, empty, undecodable or too large."""


class PageError(WikicError):
    """A wiki page cannot be parsed or would be invalid."""


class ModelError(WikicError):
    """A model cannot be resolved, installed, converted or loaded."""


class EmbeddingError(WikicError):
    """The configured embedding model cannot be found or read."""


class BackendError(WikicError):
    """The LLM backend failed (runtime missing, server unreachable, generation failed)."""


class ServerUnavailableError(BackendError):
    """A model server could not answer (unreachable, HTTP 5xx, timed out); another server of
    the same model may."""


class GenerationError(BackendError):
    """The model produced output that is invalid even after one repair attempt."""


class CacheError(WikicError):
    """The prefix cache cannot be used (never raised for a bad cache file: that is a miss)."""


class SyncConflictError(GitStateError):
    """`wikic sync` met changes it cannot merge (people edited the same text two ways): the
    merge is left open, as git leaves one, for a person to finish."""
