"""English rules in one place: sentences, names, stop words, and the topic finders' catalogue."""
