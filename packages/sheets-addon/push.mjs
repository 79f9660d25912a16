// npm run addon:push: builds dist/ and pushes it with clasp 3 to the user's own Apps Script project.
// The project is named by packages/sheets-addon/.clasp.json ({"scriptId": "…"}), which the user makes
// (README, "In Google Sheets") and git ignores; clasp must be signed in once (npx clasp login).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const claspFile = join(here, '.clasp.json');
if (!existsSync(claspFile)) {
  console.error(
    'addon:push: packages/sheets-addon/.clasp.json is missing. Open your spreadsheet, Extensions > Apps Script, ' +
      'Project Settings, copy the Script ID, then write {"scriptId": "<the id>"} to packages/sheets-addon/.clasp.json.',
  );
  process.exit(1);
}
let settings;
try {
  settings = JSON.parse(readFileSync(claspFile, 'utf8'));
} catch {
  console.error('addon:push: packages/sheets-addon/.clasp.json is not JSON: it should read {"scriptId": "<the id>"}.');
  process.exit(1);
}
if (typeof settings.scriptId !== 'string' || !settings.scriptId) {
  console.error('addon:push: .clasp.json has no scriptId: copy it from Extensions > Apps Script > Project Settings.');
  process.exit(1);
}
// clasp pushes the folder rootDir names: always the built files, whatever the file said.
if (settings.rootDir !== 'dist') writeFileSync(claspFile, JSON.stringify({ ...settings, rootDir: 'dist' }, null, 2) + '\n');

const step = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
step(process.execPath, [join(here, 'build.mjs')], here);
// --force: the manifest (appsscript.json) is overwritten without asking; it is part of the build.
step(process.execPath, [join(here, '../../node_modules/@google/clasp/build/src/index.js'), 'push', '--force'], here);
