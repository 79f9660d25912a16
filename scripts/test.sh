#!/usr/bin/env bash
# The one test command (README): installs dependencies when missing, type-checks, builds, runs all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # npm install, not npm ci: this registry lacks rollup's non-Linux optional packages, and npm ci
  # refuses a lockfile without them. npm install still takes every locked version.
  echo "== installing dependencies"
  npm install --no-audit --no-fund
fi
echo "== type check"
npx tsc --noEmit -p tsconfig.json
echo "== build (tsup): the n8n node package and the company-data tool package"
npm run --silent build
echo "== community-node lint (n8n-node lint, strict)"
bash scripts/lint-n8n.sh
# Both packages packed as published: n8n's own scanner on the node package's sources and tarball, its
# size budget and registered files; the tool installed from its tarball into an empty prefix and run.
echo "== packed packages (n8n scanner, sizes, npm i -g of the tool)"
node scripts/check-packages.mjs
echo "== tests"
npx vitest run
# The example workflows in a real n8n 2.41.1 (Node 24 and n8n are installed into a cache on first use:
# several minutes cold, about two minutes warm). COMPANY_DATA_SKIP_E2E=1 skips it for quick local runs.
if [ "${COMPANY_DATA_SKIP_E2E:-}" = "1" ]; then
  echo "== real-n8n end to end: skipped (COMPANY_DATA_SKIP_E2E=1)"
else
  echo "== real-n8n end to end (example workflows)"
  node e2e/run.mjs
  # The trigger's duplicate handling in queue mode: main, 2 webhook processes behind nginx and 2 workers, a
  # burst with copies and a restart (PostgreSQL, Redis and nginx-light from Debian, installed when missing).
  echo "== real-n8n queue mode (trigger dedupe across processes)"
  node e2e/queue-mode.mjs
  # The XLSX the CLI writes, opened by LibreOffice Calc (Debian's libreoffice-calc, installed when missing).
  echo "== XLSX read back by LibreOffice"
  node e2e/xlsx-libreoffice.mjs
fi
