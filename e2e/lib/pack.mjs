// Packs a package folder the way `npm publish` would, and unpacks a tarball the way n8n's community
// package installer does (the tarball's package/ folder becomes node_modules/<name>).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** npm pack into dest; returns { file, size, unpackedSize, entryCount, files }. */
export function packPackage(dir, dest) {
  fs.mkdirSync(dest, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest, '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  const [info] = JSON.parse(out);
  return { ...info, file: path.join(dest, info.filename), files: info.files.map((f) => f.path) };
}

/** Unpacks a package tarball into target (replacing it). */
export function unpackTarball(tgz, target) {
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  execFileSync('tar', ['xzf', tgz, '-C', target, '--strip-components=1']);
  return target;
}
