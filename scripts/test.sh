#!/usr/bin/env bash
# The one test command (README): installs dependencies when missing, type-checks, builds, runs all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== installing dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi
echo "== type check"
npx tsc --noEmit -p tsconfig.json
echo "== tests"
npx vitest run
