// Packs a package folder the way `npm publish` would, and unpacks a tarball the way n8n's community
// package installer does (the tarball's package/ folder becomes node_modules/<name>).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newest } from './build.mjs';

/**
 * What `npm pack --json` reports of one tarball (the fields used), plus the tarball's path and the packed paths.
 * @typedef {{ name: string, version: string, filename: string, size: number, unpackedSize: number, entryCount: number, file: string, files: string[] }} Packed
 */

/**
 * npm pack into dest.
 * @param {string} dir
 * @param {string} dest
 * @returns {Packed}
 */
export function packPackage(dir, dest) {
  fs.mkdirSync(dest, { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest, '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  const [info] = JSON.parse(out);
  return { ...info, file: path.join(dest, info.filename), files: info.files.map((/** @type {{ path: string }} */ f) => f.path) };
}

// Tarballs packed in this process, keyed by package folder and the newest mtime under its dist/ and
// its package.json, all in one temp folder removed on exit.
/** @type {Map<string, Packed>} */
const packed = new Map();
/** @type {string | undefined} */
let cacheDir;

/**
 * packPackage(dir) once per process while the package's dist/ and package.json are unchanged; packs
 * again (into a fresh subfolder) when either is newer. Returns what packPackage returns.
 * @param {string} dir
 */
export function packPackageCached(dir) {
  const abs = path.resolve(dir);
  const key = `${abs}\n${Math.max(newest(path.join(abs, 'dist')), newest(path.join(abs, 'package.json')))}`;
  const hit = packed.get(key);
  if (hit && fs.existsSync(hit.file)) return hit;
  if (!cacheDir) {
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-pack-'));
    process.on('exit', removePackCache);
  }
  const info = packPackage(abs, fs.mkdtempSync(path.join(cacheDir, 'p-')));
  packed.set(key, info);
  return info;
}

/** Removes the tarballs packPackageCached made (also done on process exit). */
export function removePackCache() {
  if (cacheDir) fs.rmSync(cacheDir, { recursive: true, force: true });
  cacheDir = undefined;
  packed.clear();
}

/**
 * Unpacks a package tarball into target (replacing it).
 * @param {string} tgz
 * @param {string} target
 */
export function unpackTarball(tgz, target) {
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  execFileSync('tar', ['xzf', tgz, '-C', target, '--strip-components=1']);
  return target;
}
