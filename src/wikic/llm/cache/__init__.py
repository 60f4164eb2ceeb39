"""The managed prefix cache: KV snapshots at segment boundaries, in memory and on disk."""
