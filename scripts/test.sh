#!/usr/bin/env bash
# The one test command (README): installs dependencies when missing, type-checks, builds, runs all checks.
#
# Output: each stage starts with `== <stage>` and ends with `== <stage>: passed` or `== <stage>: failed`;
# the last line is `<N> passed, <N> failed`, where N counts STAGES that ran (this machine's CI reads that
# line). A stage that is skipped (COMPANY_DATA_SKIP_E2E=1) counts in neither number; the dependency install
# is a stage only on the runs that need it. Individual test counts are in each stage's own output.
#
# A failing stage does not stop the run: the later stages check other things (a type error says nothing
# about the scanner or the e2e workflows), so they still run and the summary covers everything. The exit
# status is non-zero when any stage failed. Two exceptions: without dependencies nothing can run, so a failed
# install ends the run there; and the stages that check the built packages are not run after a failed build
# (they would only fail on the missing dist/) and count as failed.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
failed_stages=()
build_ok=1

# Ctrl-C (sent to the whole process group) ends the whole run, also when the stage's program catches SIGINT
# and exits by itself, which bash would otherwise take as a failed stage and go on. SIGTERM keeps its default.
trap 'echo; echo "== interrupted"; exit 130' INT

summary() {
  if [ "${#failed_stages[@]}" -gt 0 ]; then
    echo "failed stages: $(IFS=,; echo "${failed_stages[*]}" | sed 's/,/, /g')"
  fi
  echo "$passed passed, $failed failed"
}

verdict() { # verdict <name> passed|failed [why]
  echo "== $1: $2${3:+ ($3)}"
  if [ "$2" = passed ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_stages+=("$1")
  fi
}

# stage "<name>" <command...>: runs the command as one stage and records its verdict.
stage() {
  local name="$1"
  shift
  echo "== $name"
  if "$@"; then
    verdict "$name" passed
  else
    verdict "$name" failed
    return 1
  fi
}

# built_stage "<name>" <command...>: a stage that checks the built packages; not run after a failed build.
built_stage() {
  if [ "$build_ok" = 1 ]; then stage "$@"; else verdict "$1" failed "not run: the build failed"; fi
}

# e2e_stage "<name>" <command...>: a built_stage that COMPANY_DATA_SKIP_E2E=1 skips (a quick local run).
e2e_stage() {
  if [ "${COMPANY_DATA_SKIP_E2E:-}" = "1" ]; then
    echo "== $1: skipped (COMPANY_DATA_SKIP_E2E=1)"
  else
    built_stage "$@"
  fi
}

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # npm ci where the lockfile is: it installs exactly the locked tree and never writes package-lock.json, so a
  # run leaves the working tree clean (npm install may re-resolve and rewrite it: docs/decisions/release.md, "Install").
  if [ -f package-lock.json ]; then
    # The lockfile is npm 11's; npm 10's ci refuses it for optional peers npm 11 leaves out.
    npm_major="$(npm --version | cut -d. -f1)"
    if [ "$npm_major" -lt 11 ]; then
      echo "== installing dependencies"
      echo "npm $(npm --version) cannot install this lockfile: npm 11 or newer is needed (npm install -g npm@11)"
      verdict "installing dependencies" failed "npm 11 needed"
    else
      stage "installing dependencies" npm ci --no-audit --no-fund
    fi
  else
    stage "installing dependencies" npm install --no-audit --no-fund
  fi
  if [ "$failed" -gt 0 ]; then
    summary
    exit 1
  fi
fi

# One formatter over the whole repo (.prettierrc.json; .prettierignore leaves out generated files and prose).
stage "format" npx prettier --check --log-level warn .
stage "type check" npx tsc --noEmit -p tsconfig.json
# e2e/, bench/ and scripts/ (JavaScript) through their JSDoc types, strict like the TypeScript sources.
stage "type check of scripts" npx tsc -p tsconfig.scripts.json
# ESLint's recommended rules over the tool package and the scripts (the n8n lint below covers the nodes).
stage "eslint" npx eslint -c eslint.scripts.config.mjs e2e bench scripts packages/company-data/src
# Both packages with tsup: dist/ (the n8n node package) and packages/company-data/dist/ (the company-data tool).
stage build npm run --silent build || build_ok=0
# The official community-node lint, strict, over the node sources (scripts/lint-n8n.sh says which).
stage "community-node lint" bash scripts/lint-n8n.sh
# Both packages packed as published: n8n's own scanner on the node package's sources and tarball, its
# size budget and registered files; the tool installed from its tarball into an empty prefix and run.
built_stage "packed packages" node scripts/check-packages.mjs
stage tests npx vitest run

# The example workflows in a real n8n 2.41.1 (Node 24 and n8n are installed into a cache on first use:
# several minutes cold, about two minutes warm).
e2e_stage "real-n8n end to end" node e2e/run.mjs
# The Company Data: Google Sheets node (issue 28) in a real n8n against the Google Sheets stand-in: the example
# workflow with a colleague's insert and sort mid-run, reruns, view-only sharing, an expiring token, 429s.
e2e_stage "real-n8n Google Sheets node" node e2e/google-sheets-node.mjs
# The trigger's duplicate handling in queue mode: main, 2 webhook processes behind nginx and 2 workers, a
# burst with copies and a restart (PostgreSQL, Redis and nginx-light from Debian, installed when missing).
e2e_stage "real-n8n queue mode" node e2e/queue-mode.mjs
# The XLSX the CLI writes, opened by LibreOffice Calc (Debian's libreoffice-calc, installed when missing).
e2e_stage "XLSX read back by LibreOffice" node e2e/xlsx-libreoffice.mjs
# The tool's MCP server driven by the official MCP Inspector's command line (pinned in e2e/inspector, Node 24).
e2e_stage "MCP Inspector" node e2e/mcp-inspector.mjs
# The official MCP conformance suite (pinned in e2e/conformance, Node 24) against `company-data mcp --http`: every
# protocol scenario must pass; the reference server's fixture scenarios are a closed not-applicable list in the script.
e2e_stage "MCP conformance" node e2e/mcp-conformance.mjs
# `company-data auth login` signed in by headless Chromium (Debian's chromium, installed when missing) on the
# Google stand-in's consent page, then status, enrich --google-account and logout.
e2e_stage "Google sign-in in Chromium" node e2e/google-signin.mjs

summary
[ "$failed" -eq 0 ]
