"""`wikic query`: retrieve from the wiki, answer with checked citations, file answers back."""
