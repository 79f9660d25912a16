#!/usr/bin/env bash
# The official community-node lint (n8n-node lint, strict) over exactly what the n8n bundles contain:
# the nodes, the credential, every source file they import and the whole core (@company-data/core, which
# n8n bundles). The rest of the repo (CLI, sandbox, Sheets, tests) is not part of a node and uses Node APIs
# the node rules forbid, so it is left out by staging the node sources with the default eslint.config.mjs
# in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
node - "$stage" <<'JS'
const fs = require('node:fs');
const path = require('node:path');
const stage = process.argv[2];
const roots = [];
const walk = (d) => fs.existsSync(d) && fs.readdirSync(d).forEach((n) => {
  const p = path.join(d, n);
  if (fs.statSync(p).isDirectory()) walk(p);
  else if (/\.(node|credentials)\.ts$/.test(n)) roots.push(p);
});
walk('nodes'); walk('credentials');
const seen = new Set();
const visit = (file) => {
  if (seen.has(file)) return;
  seen.add(file);
  const src = fs.readFileSync(file, 'utf8');
  for (const m of src.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+|@company-data\/core\/[^']+)'/g)) {
    // The core is bundled into the nodes, so its files are linted as node code too.
    const base = m[1].startsWith('@company-data/core/') ? m[1].replace('@company-data/core/', 'packages/core/') : path.join(path.dirname(file), m[1]);
    const hit = [base + '.ts', path.join(base, 'index.ts'), base].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
    if (hit && hit.endsWith('.ts')) visit(path.normalize(hit));
  }
};
roots.forEach(visit);
// The whole core, not only what the nodes import today: it is the code n8n bundles, held to n8n's rules.
const walkCore = (d) => fs.readdirSync(d).forEach((n) => {
  const p = path.join(d, n);
  if (fs.statSync(p).isDirectory()) { if (n !== 'node_modules') walkCore(p); }
  else if (p.endsWith('.ts')) visit(p);
});
walkCore('packages/core');
const copy = (f) => { fs.mkdirSync(path.join(stage, path.dirname(f)), { recursive: true }); fs.copyFileSync(f, path.join(stage, f)); };
for (const f of seen) copy(f);
for (const dir of ['nodes', 'credentials']) walk2(dir);
function walk2(d) {
  if (!fs.existsSync(d)) return;
  for (const n of fs.readdirSync(d)) {
    const p = path.join(d, n);
    if (fs.statSync(p).isDirectory()) walk2(p);
    else if (/\.(svg|png|json)$/.test(n)) copy(p);
  }
}
['package.json', 'eslint.config.mjs', 'tsconfig.json'].forEach(copy);
console.log(`n8n lint: ${seen.size} source files (nodes, credentials and what they import)`);
JS
ln -s "$PWD/node_modules" "$stage/node_modules"
version="$(node -p "JSON.parse(require('fs').readFileSync('node_modules/@n8n/node-cli/package.json', 'utf8')).version")"
# n8n-node lint fails on errors only and takes no --max-warnings; ESLint's summary line
# ("✖ N problems (E errors, W warnings)") appears whenever anything was reported, warnings included.
set +e
out="$(cd "$stage" && FORCE_COLOR=0 npx n8n-node lint 2>&1)"
status=$?
set -e
printf '%s\n' "$out"
if [ "$status" -ne 0 ] || grep -Eq '[0-9]+ problems? \(' <<<"$out"; then
  echo "n8n lint (@n8n/node-cli $version, strict): FAILED, see above" >&2
  exit 1
fi
# Every inline exception, so a new one is seen in the log (each carries its reason in the source).
disables="$(cd "$stage" && grep -rnE 'eslint-disable' --include='*.ts' nodes credentials src packages | sed -E 's/:[[:space:]]*\/\/[[:space:]]*/: /' || true)"
echo "n8n lint (@n8n/node-cli $version, strict): 0 errors, 0 warnings; inline disables: $(grep -c . <<<"$disables" || true)"
[ -z "$disables" ] || sed 's/^/  /' <<<"$disables"
# n8n's own verdict on n8n Cloud eligibility (strict mode, default ESLint config), read from its status text.
cloud="$(NO_COLOR=1 npx n8n-node cloud-support 2>&1 | sed -E 's/\x1b\[[0-9;]*m//g')"
if ! grep -q 'eligible for n8n Cloud verification' <<<"$cloud"; then
  printf '%s\n' "$cloud"
  echo "n8n cloud-support: NOT eligible, see above" >&2
  exit 1
fi
echo "n8n cloud-support: eligible for n8n Cloud verification (strict mode, default ESLint config)"
