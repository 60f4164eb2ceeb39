"""Consolidation: episodic notes (dated) → digests and recurring patterns on semantic pages."""

from wikic.consolidate.run import (
    ConsolidateReport,
    ConsolidateRequest,
    PeriodOutcome,
    ProgressEvent,
    consolidate,
)

EXIT_BUSY = 75  # EX_TEMPFAIL, as `wikic lint --fix`: another wikic process holds the wiki

__all__ = [
    "EXIT_BUSY",
    "ConsolidateReport",
    "ConsolidateRequest",
    "PeriodOutcome",
    "ProgressEvent",
    "consolidate",
]
