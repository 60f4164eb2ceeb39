"""Model resolution and the offline model store (built-in models converted from GGUF)."""
