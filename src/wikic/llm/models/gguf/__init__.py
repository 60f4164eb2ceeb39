"""GGUF → MLX conversion: read, dequantize, map tensors, build config and tokenizer."""
