#!/usr/bin/env bash
# Install everything, compile this repository's demo wiki from raw/ with the default local model,
# show a compiled page and ask the wiki a question. Re-running it rebuilds the wiki in place.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"

wikic model install qwen2.5-coder-0.5b
wikic ingest --rebuild
wikic consolidate          # the daily notes in raw/journal/: a digest per week, recurring patterns
wikic status
echo; echo "──── wiki/digests/2026-W15.md ────"
cat wiki/digests/2026-W15.md
echo; echo "──── wiki/sources/prefix-caching.md (first 40 lines) ────"
sed -n '1,40p' wiki/sources/prefix-caching.md
echo; echo "──── wikic query ────"
wikic query "Why do hybrid sliding-window models like Gemma 3 get no prefix-cache reuse?"
