"""wikic: a wiki compiler. Immutable sources in raw/ → an interlinked, cited wiki in wiki/."""

__version__ = "0.1.0"
