// n8n-core keeps instance settings in the user folder; tests use a throw-away one, not ~/.n8n.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-engine-test-'));
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS ??= 'false';
