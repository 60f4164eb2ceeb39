"""Text embeddings: a static embedding model that ships inside the install (wordllama's
weights), loaded from files only, never from the network; and the similarity arithmetic the
store, lint and consolidation share. Nothing here knows about pages or the database."""
