"""The single write path: plan → lock → journal → atomic renames → one git commit.

Nothing else in wikic writes to wiki/; the derived index is told through a commit callback."""
