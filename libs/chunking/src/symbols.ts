import type { UnitKind } from '@codesift/core';
import type { Node } from 'web-tree-sitter';
import {
  cleanDocstring,
  docFromComments,
  formatSignature,
  MAX_SIGNATURE_CHARS,
  stripDecorators,
  stripXmlTags,
} from './doc-text.js';
import type { Grammar } from './grammars.js';
import { type DefRule, type LanguageSpec, MEMBER_PARENT_KINDS } from './languages/index.js';

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
  /** Members are chunked on their own even when the whole fits (namespaces). */
  spread: boolean;
  /** Definitions syntactically inside this one, in source order. */
  children: DefNode[];
}

interface RawDef {
  node: Node;
  rule: DefRule;
  name: string;
  /** Qualifier written in the name (`Circle` of `Circle::area`), `.`-joined. */
  scope: string | null;
  outer: Node;
  sigStart: number;
  startIndex: number;
  endIndex: number;
  parent: RawDef | null;
  def?: DefNode;
}

/** The node whose end is the definition's end: its parent's for a rule that scopes the rest. */
function scopeEnd(outer: Node, rule: DefRule): Node {
  return rule.scopesRest ? (outer.parent ?? outer) : outer;
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
    const named = readName(node, rule, text);
    if (!named) continue;
    const { outer, sigStart } = climbWrappers(node, spec);
    raws.push({
      node,
      rule,
      ...named,
      outer,
      sigStart,
      startIndex: outer.startIndex,
      endIndex: scopeEnd(outer, rule).endIndex,
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
    if (spec.maxDefDepth !== undefined && stack.length >= spec.maxDefDepth) continue;
    raw.parent = top ?? null;
    const def = describe(raw, spec, text);
    raw.def = def;
    if (top?.def) top.def.children.push(def);
    else roots.push(def);
    stack.push(raw);
  }
  return roots;
}

function readName(
  node: Node,
  rule: DefRule,
  text: string,
): { name: string; scope: string | null } | null {
  if (rule.nameParts) return readNameParts(node, rule.nameParts, text);
  for (const field of rule.nameFields ?? ['name']) {
    let n = stepInto(node, field);
    if (!n) continue;
    if (rule.nameDescend) {
      for (
        let d = n.childForFieldName(rule.nameDescend);
        d;
        d = d.childForFieldName(rule.nameDescend)
      )
        n = d;
    }
    let name = text.slice(n.startIndex, n.endIndex);
    if (rule.nameIsType) name = typeName(name);
    name = name
      .replace(/^['"`]|['"`]$/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    let scope: string | null = null;
    if (rule.scopeSeparator) {
      const parts = name.split(rule.scopeSeparator).map((p) => p.trim());
      if (parts.length > 1 && parts.every((p) => p.length > 0)) {
        name = parts.pop()!;
        scope = parts.join('.');
      }
    }
    return name.length > 0 ? { name: name.slice(0, MAX_SIGNATURE_CHARS), scope } : null;
  }
  return null;
}

function readNameParts(
  node: Node,
  types: ReadonlySet<string>,
  text: string,
): { name: string; scope: null } | null {
  const parts: string[] = [];
  for (let c = node.firstNamedChild; c && types.has(c.type); c = c.nextNamedSibling) {
    parts.push(text.slice(c.startIndex, c.endIndex).replace(/^['"]|['"]$/g, ''));
  }
  const name = parts.join('.').replace(/\s+/g, ' ').trim();
  return name.length > 0 ? { name: name.slice(0, MAX_SIGNATURE_CHARS), scope: null } : null;
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
    cur = stepInto(cur, step);
  }
  return cur;
}

/** The first child reached by one of `a|b` (a field, else a named child of that type). */
function stepInto(node: Node, step: string): Node | null {
  for (const name of step.includes('|') ? step.split('|') : [step]) {
    const byField = node.childForFieldName(name);
    if (byField) return byField;
    for (const c of node.namedChildren) if (c?.type === name) return c;
  }
  return null;
}

/** Kind from the first child (keyword tokens included) listed in `kinds`. */
function kindOfChild(node: Node, kinds: Readonly<Record<string, UnitKind>>): UnitKind | undefined {
  for (const c of node.children) {
    if (c && Object.hasOwn(kinds, c.type)) return kinds[c.type];
  }
  return undefined;
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
  if (rule.kindByChild) kind = kindOfChild(node, rule.kindByChild) ?? kind;
  if (raw.scope && rule.scopedKind) kind = rule.scopedKind;
  if (kind === 'function' && parentDef && MEMBER_PARENT_KINDS.has(parentDef.kind)) kind = 'method';

  let parent = parentDef?.qualifiedName ?? null;
  if (raw.scope) parent = parent ? `${parent}.${raw.scope}` : raw.scope;
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
  // Attributes inside the declaration (C# `[Obsolete]`, PHP `#[Route]`) are not its signature.
  const inner = spec.innerAttributes;
  for (
    let c = inner ? node.firstNamedChild : null;
    c && inner?.has(c.type);
    c = c.nextNamedSibling
  ) {
    sigStart = Math.max(sigStart, c.endIndex);
  }
  const body = resolveBody(node, rule.body ?? ['body']);
  let headerEnd = body
    ? body.startIndex
    : Math.min(node.endIndex, sigStart + MAX_SIGNATURE_CHARS * 4);
  if (rule.oneLineSignature) {
    const eol = text.indexOf('\n', node.startIndex);
    if (eol >= 0) headerEnd = Math.min(headerEnd, eol);
  }
  const header = text.slice(sigStart, headerEnd);
  let signature = formatSignature(header);
  // A function declared without a body (a C prototype, an interface or trait
  // method) keeps its `;`, as written: search prefers a same-named definition
  // with a body.
  const callable = kind === 'function' || kind === 'method';
  if (callable && !body && /;\s*$/.test(header) && !signature.endsWith('…')) signature += ';';

  const lead = leadingTrivia(outer, spec, text);
  let doc = spec.docstrings && body ? docstring(body, spec, text) : '';
  if (!doc) doc = spec.xmlDoc ? stripXmlTags(lead.doc) : lead.doc;

  return {
    name,
    qualifiedName,
    parent,
    kind,
    signature,
    doc,
    declStart: lead.declRow + 1,
    chunkStart: lead.topRow + 1,
    endLine: lastRow(scopeEnd(outer, rule)) + 1,
    spread: rule.spread === true,
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
  let first = outer.previousNamedSibling;
  // Ruby: the comment above a class's first method precedes the class's body node.
  // (`parent` walks down from the root, so it is only asked for when needed.)
  const holder = !first && spec.bodyNodes ? outer.parent : null;
  if (holder && spec.bodyNodes?.has(holder.type)) first = holder.previousNamedSibling;
  for (let cur = first; cur; cur = cur.previousNamedSibling) {
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
