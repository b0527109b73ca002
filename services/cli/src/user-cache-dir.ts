import { homedir } from 'node:os';
import path from 'node:path';

/**
 * codesift's directory in the user's cache: CODESIFT_CACHE_DIR when set,
 * else the platform's cache directory (XDG_CACHE_HOME or ~/.cache on Linux
 * and other Unixes, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows)
 * followed by `codesift`. Only absolute values count: the XDG spec says a
 * relative XDG_CACHE_HOME is invalid, and a relative override would move
 * with the working directory, so the same repository would get two indexes.
 */
export function userCacheDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const override = absolute(env.CODESIFT_CACHE_DIR);
  if (override) return override;
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'codesift');
  if (platform === 'win32') {
    const local = absolute(env.LOCALAPPDATA) ?? path.join(home, 'AppData', 'Local');
    return path.join(local, 'codesift', 'Cache');
  }
  return path.join(absolute(env.XDG_CACHE_HOME) ?? path.join(home, '.cache'), 'codesift');
}

function absolute(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v && path.isAbsolute(v) ? v : undefined;
}
