// Builds dist/: exactly what `clasp push` uploads (appsscript.json, the server .js files, the sidebar .html).
// addon.js is the bundle (one IIFE under the global CompanyDataAddon, ES2019: no modules, no private members);
// globals.js the plain top-level functions Apps Script calls. Files are evaluated in name order: addon, globals.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

await build({
  entryPoints: [join(here, 'src/main.ts')],
  outfile: join(dist, 'addon.js'),
  bundle: true,
  format: 'iife',
  globalName: 'CompanyDataAddon',
  target: 'es2019',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});
copyFileSync(join(here, 'src/globals.js'), join(dist, 'globals.js'));
copyFileSync(join(here, 'static/appsscript.json'), join(dist, 'appsscript.json'));
copyFileSync(join(here, 'static/Sidebar.html'), join(dist, 'Sidebar.html'));
