import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MORE_LANGUAGES } from './synthetic-languages.js';

/** A small TypeScript file the MCP tests search: a class with one documented method. */
export const GRAPH_TS = [
  '/** A directed graph kept as an edge list. */',
  'export class Graph {',
  '  private readonly edges: [string, string][] = [];',
  '',
  '  /** Inserts an edge from one node to another. */',
  '  insertEdgeBetween(from: string, to: string): void {',
  '    this.edges.push([from, to]);',
  '  }',
  '}',
  '',
].join('\n');

export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

/**
 * A synthetic but realistic multi-language repository: `n` modules spread over
 * packages, each with a class, methods, doc comments and free functions, so
 * chunk counts and timings resemble real code. `mix` 'classic' cycles through
 * TypeScript, Python, Go and Markdown (what the search, gRPC and cluster
 * benchmarks measure); 'all' adds C, C++, C#, Ruby, PHP, Kotlin, Scala,
 * shell, Lua, Swift and YAML (synthetic-languages.ts).
 */
export function syntheticRepo(root: string, n: number, mix: 'classic' | 'all' = 'classic'): void {
  const files: Record<string, string> = {};
  const kinds = mix === 'all' ? 4 + MORE_LANGUAGES.length : 4;
  for (let i = 0; i < n; i++) {
    const pkg = `pkg${i % 25}`;
    const kind = i % kinds;
    switch (kind) {
      case 0:
        files[`src/${pkg}/service${i}.ts`] = tsModule(i);
        break;
      case 1:
        files[`py/${pkg}/handler_${i}.py`] = pyModule(i);
        break;
      case 2:
        files[`go/${pkg}/store${i}.go`] = goModule(i);
        break;
      case 3:
        files[`docs/${pkg}/guide${i}.md`] = mdModule(i);
        break;
      default: {
        const m = MORE_LANGUAGES[kind - 4]!(i, pkg);
        files[m.path] = m.text;
      }
    }
  }
  writeTree(root, files);
}

function tsModule(i: number): string {
  return `import { EventEmitter } from 'node:events';

/** Keeps track of orders for tenant ${i} and notifies listeners. */
export class OrderService${i} extends EventEmitter {
  private readonly orders = new Map<string, number>();

  /** Adds an order and emits 'added'. */
  addOrder(id: string, amount: number): void {
    if (amount <= 0) {
      throw new Error('amount must be positive');
    }
    this.orders.set(id, amount);
    this.emit('added', id, amount);
  }

  /** Total of all orders. */
  total(): number {
    let sum = 0;
    for (const v of this.orders.values()) {
      sum += v;
    }
    return sum;
  }

  removeOrder(id: string): boolean {
    const existed = this.orders.delete(id);
    if (existed) {
      this.emit('removed', id);
    }
    return existed;
  }
}

export function parseAmount${i}(text: string): number {
  const value = Number.parseFloat(text.replace(/[^0-9.]/g, ''));
  if (Number.isNaN(value)) {
    throw new Error(\`not an amount: \${text}\`);
  }
  return Math.round(value * 100) / 100;
}
`;
}

function pyModule(i: number): string {
  return `"""Request handlers for module ${i}."""
import json


class Handler${i}:
    """Handles HTTP requests for resource ${i}."""

    def __init__(self, store):
        self.store = store

    def get(self, key):
        """Returns the stored value as JSON."""
        value = self.store.get(key)
        if value is None:
            return 404, json.dumps({"error": "not found"})
        return 200, json.dumps(value)

    def put(self, key, body):
        data = json.loads(body)
        self.store[key] = data
        return 201, ""


def validate_payload_${i}(payload):
    """Checks that a payload has the required fields."""
    missing = [f for f in ("id", "name") if f not in payload]
    if missing:
        raise ValueError("missing fields: " + ", ".join(missing))
    return True
`;
}

function goModule(i: number): string {
  return `package pkg${i % 25}

import (
	"errors"
	"sync"
)

// Store${i} is a concurrency-safe key value store.
type Store${i} struct {
	mu   sync.RWMutex
	data map[string]string
}

// NewStore${i} creates an empty store.
func NewStore${i}() *Store${i} {
	return &Store${i}{data: make(map[string]string)}
}

// Get returns the value for key.
func (s *Store${i}) Get(key string) (string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.data[key]
	if !ok {
		return "", errors.New("not found")
	}
	return v, nil
}

// Put sets key to value.
func (s *Store${i}) Put(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data[key] = value
}
`;
}

function mdModule(i: number): string {
  return `# Guide ${i}

This guide explains how component ${i} works.

## Installation

Run the installer and configure the service.

## Configuration

Set \`TIMEOUT_${i}\` to control how long requests wait.

## Troubleshooting

If requests fail, check the logs for errors.
`;
}
