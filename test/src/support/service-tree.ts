/**
 * A tree of `files` small source files (TypeScript classes and functions,
 * every third file Python), several chunks each: enough work for the
 * cluster tests to kill workers mid-job. `tag` goes into every identifier,
 * so several trees indexed together hold different symbols.
 */
export function serviceTree(files: number, tag = ''): Record<string, string> {
  const tree: Record<string, string> = {};
  for (let i = 0; i < files; i++) {
    if (i % 3 === 2) {
      tree[`py/mod${i}.py`] = [
        `"""Module ${i}."""`,
        '',
        '',
        `def load_${tag}${i}(path):`,
        `    """Load record ${i} from path."""`,
        '    with open(path) as f:',
        '        return f.read()',
        '',
        '',
        `def save_${tag}${i}(path, data):`,
        `    """Save record ${i} to path."""`,
        '    with open(path, "w") as f:',
        '        f.write(data)',
        '',
      ].join('\n');
    } else {
      tree[`src/m${i}.ts`] = [
        `/** Service number ${i}. */`,
        `export class ${tag}Service${i} {`,
        '  private readonly items: string[] = [];',
        '',
        `  /** Adds an item to service ${i}. */`,
        '  add(item: string): void {',
        '    this.items.push(item);',
        '  }',
        '',
        '  count(): number {',
        '    return this.items.length;',
        '  }',
        '}',
        '',
        `export function ${tag}helper${i}(n: number): number {`,
        `  return n * ${i} + 1;`,
        '}',
        '',
      ].join('\n');
    }
  }
  return tree;
}
