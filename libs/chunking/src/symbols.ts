import type { UnitKind } from '@codesift/core';
import type { Node } from 'web-tree-sitter';
import {
  cleanDocstring,
  docFromComments,
  formatSignature,
  MAX_SIGNATURE_CHARS,
  stripDecorators,
} from './doc-text.js';
import type { Grammar } from './grammars.js';
import { type DefRule, type LanguageSpec, MEMBER_PARENT_KINDS } from './languages.js';

/**
 * A definition found in a syntax tree, detached from the tree (plain data),
 * so the tree can be freed before chunks are laid out.
 */
export interface DefNode {
  name: string;
  qualifiedName: string;
  /** Qualified name of the logical parent (Go receiver type included), or null. */
  parent: string | null;
  kind: UnitKind;
  signature: string;
  doc: string;
  /** First line of the declaration, decorators and attributes included (1-based). */
  declStart: number;
  /** First line of the chunk: the doc comment above the declaration, if any. */
  chunkStart: number;
  endLine: number;
  /** Definitions syntactically inside this one, in source order. */
  children: DefNode[];
}

interface RawDef {
  node: Node;
  rule: DefRule;
  name: string;
  outer: Node;
  sigStart: number;
  startIndex: number;
  endIndex: number;
  parent: RawDef | null;
  def?: DefNode;
}

/** Last row that holds a character of the node (a node ending at column 0 ends on the row before). */
function lastRow(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

/**
 * Finds every definition in the tree and nests them. Returns the top-level
 * definitions; nested ones hang off `children`.
 */
export function extractDefs(root: Node, grammar: Grammar, text: string): DefNode[] {
  const { spec } = grammar;
  const raws: RawDef[] = [];
  const seen = new Set<number>();
  for (const cap of grammar.defsQuery.captures(root)) {
    const node = cap.node;
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    const rule = spec.defs[cap.patternIndex];
    if (!rule) continue;
    const name = readName(node, rule, text);
    if (!name) continue;
    const { outer, sigStart } = climbWrappers(node, spec);
    raws.push({
      node,
      rule,
      name,
      outer,
      sigStart,
      startIndex: outer.startIndex,
      endIndex: outer.endIndex,
      parent: null,
    });
  }
  raws.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);

  const roots: DefNode[] = [];
  const stack: RawDef[] = [];
  for (const raw of raws) {
    while (stack.length > 0 && stack[stack.length - 1]!.endIndex <= raw.startIndex) stack.pop();
    const top = stack[stack.length - 1];
    // Two rules matching the same span (wrapper climbing) describe one definition.
    if (top && top.startIndex === raw.startIndex && top.endIndex === raw.endIndex) continue;
    raw.parent = top ?? null;
    const def = describe(raw, spec, text);
    raw.def = def;
    if (top?.def) top.def.children.push(def);
    else roots.push(def);
    stack.push(raw);
  }
  return roots;
}

function readName(node: Node, rule: DefRule, text: string): string | null {
  for (const field of rule.nameFields ?? ['name']) {
    const n = node.childForFieldName(field);
    if (!n) continue;
    let name = text.slice(n.startIndex, n.endIndex);
    if (rule.nameIsType) name = typeName(name);
    name = name
      .replace(/^['"`]|['"`]$/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    return name.length > 0 ? name.slice(0, MAX_SIGNATURE_CHARS) : null;
  }
  return null;
}

/** `&'a mut crate::graph::Graph<T>` -> `Graph`: the name methods are filed under. */
function typeName(type: string): string {
  let t = type.replace(/^&\s*('\w+\s+)?(mut\s+)?/, '').replace(/^(dyn|impl)\s+/, '');
  const lt = t.indexOf('<');
  if (lt > 0) t = t.slice(0, lt);
  const parts = t.split('::');
  return parts[parts.length - 1]!.trim();
}

/** `(g *Graph[T])` -> `Graph`. */
function receiverType(receiver: string): string | null {
  const m = /([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver);
  return m ? m[1]! : null;
}

function isOnlyMember(wrapper: Node, child: Node, spec: LanguageSpec): boolean {
  for (const c of wrapper.namedChildren) {
    if (!c || c.id === child.id) continue;
    if (spec.comments.has(c.type) || spec.attachments.has(c.type)) continue;
    return false;
  }
  return true;
}

function climbWrappers(node: Node, spec: LanguageSpec): { outer: Node; sigStart: number } {
  let outer = node;
  let sigStart = node.startIndex;
  for (let p = node.parent; p && Object.hasOwn(spec.wrappers, p.type); p = p.parent) {
    if (!isOnlyMember(p, outer, spec)) break;
    outer = p;
    if (spec.wrappers[p.type]!.signature) sigStart = p.startIndex;
  }
  return { outer, sigStart };
}

function resolveBody(node: Node, steps: readonly string[]): Node | null {
  if (steps.length === 0) return null;
  let cur: Node | null = node;
  for (const step of steps) {
    if (!cur) return null;
    let next: Node | null = cur.childForFieldName(step);
    if (!next) {
      for (const c of cur.namedChildren) {
        if (c?.type === step) {
          next = c;
          break;
        }
      }
    }
    cur = next;
  }
  return cur;
}

function describe(raw: RawDef, spec: LanguageSpec, text: string): DefNode {
  const { node, rule, name, outer } = raw;
  const parentDef = raw.parent?.def ?? null;

  let kind = rule.kind;
  if (rule.kindByField) {
    const typeNode = node.childForFieldName(rule.kindByField.field);
    const byType = typeNode ? rule.kindByField.kinds[typeNode.type] : undefined;
    if (byType) kind = byType;
  }
  if (kind === 'function' && parentDef && MEMBER_PARENT_KINDS.has(parentDef.kind)) kind = 'method';

  let parent = parentDef?.qualifiedName ?? null;
  if (rule.receiverField) {
    const recv = node.childForFieldName(rule.receiverField);
    const type = recv ? receiverType(text.slice(recv.startIndex, recv.endIndex)) : null;
    if (type) parent = type;
  }
  const qualifiedName = parent ? `${parent}.${name}` : name;

  // Keep the wrapper's words (`export`, `type`) only when they sit on the
  // declaration's line: Go's `type (` groups would otherwise leak in.
  let sigStart = raw.sigStart;
  if (
    sigStart < node.startIndex &&
    stripDecorators(text.slice(sigStart, node.startIndex)).includes('\n')
  ) {
    sigStart = node.startIndex;
  }
  const body = resolveBody(node, rule.body ?? ['body']);
  const headerEnd = body
    ? body.startIndex
    : Math.min(node.endIndex, sigStart + MAX_SIGNATURE_CHARS * 4);
  const signature = formatSignature(text.slice(sigStart, headerEnd));

  const lead = leadingTrivia(outer, spec, text);
  let doc = spec.docstrings && body ? docstring(body, spec, text) : '';
  if (!doc) doc = lead.doc;

  return {
    name,
    qualifiedName,
    parent,
    kind,
    signature,
    doc,
    declStart: lead.declRow + 1,
    chunkStart: lead.topRow + 1,
    endLine: lastRow(outer) + 1,
    children: [],
  };
}

/**
 * Walks up from a declaration over attachments (decorators, attributes) and
 * the run of comments directly above it (no blank line in between, not a
 * trailing comment of the previous statement). The comments are the doc.
 */
function leadingTrivia(
  outer: Node,
  spec: LanguageSpec,
  text: string,
): { doc: string; declRow: number; topRow: number } {
  let declRow = outer.startPosition.row;
  let topRow = declRow;
  const comments: string[] = [];
  for (let cur = outer.previousNamedSibling; cur; cur = cur.previousNamedSibling) {
    if (lastRow(cur) < topRow - 1) break;
    const startRow = cur.startPosition.row;
    if (spec.attachments.has(cur.type)) {
      if (comments.length > 0) break;
      declRow = startRow;
      topRow = startRow;
    } else if (spec.comments.has(cur.type)) {
      const before = cur.previousSibling;
      if (before && lastRow(before) === startRow && !spec.comments.has(before.type)) break;
      comments.push(text.slice(cur.startIndex, cur.endIndex));
      topRow = startRow;
    } else {
      break;
    }
  }
  comments.reverse();
  return { doc: docFromComments(comments), declRow, topRow };
}

function docstring(body: Node, spec: LanguageSpec, text: string): string {
  for (const stmt of body.namedChildren) {
    if (!stmt || spec.comments.has(stmt.type)) continue;
    if (stmt.type !== 'expression_statement' || stmt.namedChildCount !== 1) return '';
    const str = stmt.firstNamedChild;
    if (str?.type !== 'string') return '';
    return cleanDocstring(text.slice(str.startIndex, str.endIndex));
  }
  return '';
}
