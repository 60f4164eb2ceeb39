"""The LLM layer: backend contract, backends (mlx, HTTP, fake), models and the prefix cache.

Importing this package never imports mlx; only `wikic.llm.mlx_backend` and the modules it
uses do, so the rest of wikic runs (and is tested) without mlx installed.
"""
