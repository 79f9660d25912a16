// n8n-core keeps instance settings in the user folder; tests use a throw-away one, not ~/.n8n.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

// Made here only when none was given; registered while the importing test file is collected, so the
// folder goes when that file's tests are done.
const made = process.env.N8N_USER_FOLDER === undefined ? mkdtempSync(join(tmpdir(), 'n8n-engine-test-')) : undefined;
if (made) {
  process.env.N8N_USER_FOLDER = made;
  afterAll(() => {
    rmSync(made, { recursive: true, force: true });
    if (process.env.N8N_USER_FOLDER === made) delete process.env.N8N_USER_FOLDER;
  });
}
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS ??= 'false';
