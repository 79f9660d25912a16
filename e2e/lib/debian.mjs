// Debian packages the checks need: found on PATH, or installed with apt-get when missing (as root, the
// way CI runs), so nothing has to be installed by hand.
import { execFileSync } from 'node:child_process';
import { ms } from './runtime.mjs';

/**
 * The path of `cmd` on PATH, or undefined.
 * @param {string} cmd
 */
export function which(cmd) {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Installs Debian package `pkg` (what: how messages name it) and returns `found()` afterwards, which
 * must then be truthy. `options` are extra apt-get install options, e.g. --no-install-recommends.
 * @template T
 * @param {string} pkg
 * @param {{ what?: string, found: () => T, options?: string[], log?: (m: string) => void }} opts
 * @returns {NonNullable<T>}
 */
export function installDebianPackage(pkg, { what = pkg, found, options = [], log = () => {} }) {
  if (process.getuid?.() !== 0) throw new Error(`${what} is not installed and this is not root: apt-get install -y ${pkg}`);
  const t0 = Date.now();
  log(`installing ${pkg} (apt-get)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...options, pkg], { stdio: 'ignore', env });
  const result = found();
  if (!result) throw new Error(`apt-get install ${pkg} did not give ${what}`);
  log(`${pkg} installed (${ms(t0)})`);
  return result;
}
