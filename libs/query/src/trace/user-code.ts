/**
 * What a frame says about the user's own code: whether it is a runtime or
 * dependency frame (left out of the search terms), and its function name
 * reduced to what a repository defines.
 */
import type { TraceFormat } from '../types.js';

/** Whether a frame is runtime, standard-library or dependency code rather than the user's. */
export function isExternal(format: TraceFormat, path: string | null, fn: string | null): boolean {
  const p = path ?? '';
  const f = fn ?? '';
  switch (format) {
    case 'python':
      return (
        p.includes('site-packages') ||
        p.includes('dist-packages') ||
        /[\\/]lib[\\/]python\d/.test(p) ||
        p.startsWith('<')
      );
    case 'javascript':
      return (
        p.startsWith('node:') ||
        p.startsWith('internal/') ||
        p.includes('node_modules/') ||
        p === '<anonymous>' ||
        p === 'native'
      );
    case 'java':
      return /^(?:java\.|javax\.|jdk\.|sun\.|com\.sun\.|kotlin\.|kotlinx\.|scala\.|org\.junit\.|junit\.|org\.apache\.maven\.|org\.gradle\.|[\w.]+\/java\.)/.test(
        f,
      );
    case 'go':
      return (
        p.includes('/pkg/mod/') ||
        /(?:^|\/)go[\w.-]*(?:\/libexec)?\/src\/[a-z0-9_]+(?:\/|\.go$)/.test(p) ||
        /^(?:runtime|testing|reflect|sync)\./.test(f)
      );
    case 'rust':
      return (
        p.startsWith('/rustc/') ||
        p.includes('/.cargo/registry/') ||
        p.includes('/.rustup/') ||
        /^<?(?:std|core|alloc|test)::|^rust_begin_unwind|^__rust/.test(f)
      );
    default:
      return false;
  }
}

/** A printed function name reduced to what a repository defines, or null. */
export function normalizeFunction(format: TraceFormat, raw: string): string | null {
  let f = raw.trim();
  if (f === '' || (f.startsWith('<') && f.endsWith('>'))) return null; // <module>, <anonymous>
  switch (format) {
    case 'javascript': {
      f = f.replace(/ \[as [^\]]*\]$/, '');
      if (f.startsWith('Object.')) f = f.slice(7);
      if (f.includes('<anonymous>') || f === '') return null;
      return f;
    }
    case 'java': {
      const slash = f.lastIndexOf('/');
      if (slash >= 0) f = f.slice(slash + 1);
      const parts = f.split('.');
      let method = parts.pop() ?? '';
      let cls = parts.pop() ?? '';
      const inner = cls.split('$').filter((s) => s !== '' && !/^\d+$/.test(s));
      cls = inner[inner.length - 1] ?? cls;
      const lambda = /^lambda\$([\w]+)\$\d+$/.exec(method);
      if (lambda) method = lambda[1]!;
      if (method === '<init>' || method === '<clinit>') return cls || null;
      return cls ? `${cls}.${method}` : method;
    }
    case 'go': {
      const slash = f.lastIndexOf('/');
      if (slash >= 0) f = f.slice(slash + 1);
      f = f.replace(/(?:\.func\d+)+(?:\.\d+)*$/, '').replace(/\.\d+$/, '');
      const recv = /^[\w-]+\.\(\*?(\w+)\)\.(\w+)/.exec(f);
      if (recv) return `${recv[1]}.${recv[2]}`;
      return f.replace(/\[\.\.\.\]/g, '') || null;
    }
    case 'rust': {
      f = f.replace(/::h[0-9a-f]{16}$/, '').replace(/::\{\{closure\}\}/g, '');
      if (f.startsWith('<')) {
        // `<crate::Foo as core::fmt::Display>::fmt` -> `Foo::fmt`
        const m = /^<([\w:]+)(?: as [^>]*)?>::(\w+)$/.exec(f);
        if (!m) return null;
        const ty = m[1]!.split('::').pop()!;
        return `${ty}::${m[2]}`;
      }
      const segs = f.split('::').filter((s) => s !== '');
      return segs.slice(-2).join('::') || null;
    }
    default:
      return f;
  }
}
