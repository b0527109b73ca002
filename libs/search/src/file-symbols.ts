import { CodesiftError, type SymbolInfo } from '@codesift/core';
import type { SearchEngine } from './types.js';

/** What fileSymbols throws where the stores cannot list a file's symbols (remote, cluster). */
export function cannotListFileSymbols(): CodesiftError {
  return new CodesiftError('INVALID_ARGUMENT', "this index cannot list a file's symbols", {
    hint: 'use find_symbol by name, or read the file with get_snippet',
  });
}

/** `engine.fileSymbols(path)`, for wrappers over any engine: rejects when it has none. */
export function fileSymbolsOf(engine: SearchEngine, file: string): Promise<SymbolInfo[]> {
  return engine.fileSymbols ? engine.fileSymbols(file) : Promise.reject(cannotListFileSymbols());
}
