import type { SkipReason } from '@codesift/core';

/*
 * Every built-in "leave this out" rule lives here as data, so adding a lockfile
 * name or a binary extension is a one-line change with no logic to touch.
 * Names compare exactly (file systems are case-sensitive on Linux); extensions
 * compare lower-cased because `LOGO.PNG` is just as binary as `logo.png`.
 */

/**
 * Never walked, never counted (not part of the tree): version-control metadata,
 * and codesift's own index directory, which may sit in a tree that is indexed
 * into an index elsewhere (`--index`, cluster mode).
 */
export const VCS_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', '.codesift']);

/** Third-party code checked into or installed beside the project. */
export const VENDORED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  'vendor',
  'third_party',
  'third-party',
  '.venv',
  'venv',
  'site-packages',
  '.tox',
  'Pods',
  'Carthage',
]);

/**
 * Build output. `target` is here rather than under vendored: for cargo, maven
 * and sbt it holds compiler output of the project's own code, not someone
 * else's sources.
 */
export const GENERATED_DIRS: ReadonlySet<string> = new Set([
  'dist',
  'build',
  'out',
  'target',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.gradle',
  'coverage',
]);

export const GENERATED_FILE_NAMES: ReadonlySet<string> = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'go.sum',
  'composer.lock',
  'Gemfile.lock',
  'Podfile.lock',
  'pubspec.lock',
  'mix.lock',
  'flake.lock',
  'packages.lock.json',
]);

/** Lower-cased name endings of generated files. */
export const GENERATED_SUFFIXES: readonly string[] = [
  '.min.js',
  '.min.mjs',
  '.min.css',
  '.map',
  '_pb2.py',
  '_pb2.pyi',
  '_pb2_grpc.py',
  '.pb.go',
  '.pb.cc',
  '.pb.h',
  '.g.dart',
  '.freezed.dart',
];

export const GENERATED_NAME_PATTERNS: readonly RegExp[] = [/\.generated\./i];

export const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  // images
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.bmp',
  '.ico',
  '.icns',
  '.webp',
  '.avif',
  '.tif',
  '.tiff',
  '.psd',
  '.heic',
  // archives and packages
  '.zip',
  '.gz',
  '.tgz',
  '.bz2',
  '.xz',
  '.zst',
  '.7z',
  '.rar',
  '.tar',
  '.jar',
  '.war',
  '.ear',
  '.whl',
  '.egg',
  '.deb',
  '.rpm',
  '.apk',
  '.aab',
  '.ipa',
  '.dmg',
  '.iso',
  '.nupkg',
  // fonts
  '.ttf',
  '.otf',
  '.woff',
  '.woff2',
  '.eot',
  // audio and video
  '.mp3',
  '.mp4',
  '.m4a',
  '.m4v',
  '.wav',
  '.flac',
  '.ogg',
  '.oga',
  '.opus',
  '.webm',
  '.mov',
  '.avi',
  '.mkv',
  // compiled code and objects
  '.wasm',
  '.so',
  '.dylib',
  '.dll',
  '.exe',
  '.o',
  '.obj',
  '.a',
  '.lib',
  '.class',
  '.pyc',
  '.pyo',
  '.pyd',
  '.node',
  '.bin',
  // documents
  '.pdf',
  '.doc',
  '.docx',
  '.xls',
  '.xlsx',
  '.ppt',
  '.pptx',
  '.odt',
  '.ods',
  // databases and data blobs
  '.sqlite',
  '.sqlite3',
  '.db',
  '.mdb',
  '.parquet',
  '.npy',
  '.npz',
  '.pkl',
  '.pt',
  '.onnx',
  '.safetensors',
]);

export const BINARY_FILE_NAMES: ReadonlySet<string> = new Set(['.DS_Store', 'Thumbs.db']);

export const SECRET_FILE_NAMES: ReadonlySet<string> = new Set([
  '.env',
  '.netrc',
  '.pgpass',
  '.pypirc',
  '.htpasswd',
  'credentials',
  'credentials.json',
  'credentials.yml',
  'credentials.yaml',
  'secrets.json',
  'secrets.yml',
  'secrets.yaml',
]);

/** Lower-cased extensions of key and certificate stores. */
export const SECRET_EXTENSIONS: ReadonlySet<string> = new Set([
  '.pem',
  '.key',
  '.p12',
  '.pfx',
  '.jks',
  '.keystore',
]);

/**
 * `.env.*` and SSH private keys. Templates meant to be committed and public
 * keys are left alone: they carry no secret and are often useful context.
 */
export const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  /^\.env\.(?!(example|sample|template|dist)$)/,
  /^id_(rsa|dsa|ecdsa|ed25519)(?!.*\.pub$)/,
  /^client_secret.*\.json$/,
];

/**
 * "Code generated ... DO NOT EDIT" (the Go convention, also used by protoc,
 * sqlc, ...) and Meta's `@generated` tag. Only the first lines are checked,
 * where tools put the banner.
 */
export const GENERATED_MARKERS: readonly RegExp[] = [
  /@generated\b/,
  /generated\b.*\bdo not (edit|modify)\b/i,
];
export const GENERATED_MARKER_LINES = 5;

function extensionOf(lowerName: string): string {
  const dot = lowerName.lastIndexOf('.');
  // A leading dot makes a hidden file (`.png`), not an extension.
  return dot > 0 ? lowerName.slice(dot) : '';
}

/** Why a directory is left out by name, if it is. */
export function classifyDirectory(
  name: string,
  options: { includeVendored: boolean },
): SkipReason | undefined {
  if (!options.includeVendored && VENDORED_DIRS.has(name)) return 'vendored';
  if (GENERATED_DIRS.has(name)) return 'generated';
  return undefined;
}

/** Why a file is left out by name alone (no stat, no read), if it is. */
export function classifyFileName(
  name: string,
  options: { includeSecrets: boolean },
): SkipReason | undefined {
  const lower = name.toLowerCase();
  const ext = extensionOf(lower);
  if (!options.includeSecrets && isSecretName(name, ext)) return 'secret';
  if (
    GENERATED_FILE_NAMES.has(name) ||
    GENERATED_SUFFIXES.some((s) => lower.endsWith(s)) ||
    GENERATED_NAME_PATTERNS.some((re) => re.test(name))
  ) {
    return 'generated';
  }
  if (BINARY_EXTENSIONS.has(ext) || BINARY_FILE_NAMES.has(name)) return 'binary';
  return undefined;
}

function isSecretName(name: string, ext: string): boolean {
  return (
    SECRET_FILE_NAMES.has(name) ||
    SECRET_EXTENSIONS.has(ext) ||
    SECRET_NAME_PATTERNS.some((re) => re.test(name))
  );
}

/** True when one of the first lines of `text` carries a generated-code banner. */
export function hasGeneratedMarker(text: string): boolean {
  let end = -1;
  for (let line = 0; line < GENERATED_MARKER_LINES; line++) {
    end = text.indexOf('\n', end + 1);
    if (end === -1) break;
  }
  // Capped so a minified one-line file does not run the regexes over megabytes.
  const head = text.slice(0, Math.min(end === -1 ? text.length : end, 4096));
  return GENERATED_MARKERS.some((re) => re.test(head));
}
