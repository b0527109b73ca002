import type { UnitKind } from '@codesift/core';

/**
 * One kind of definition in one grammar. Each rule is a single tree-sitter
 * query pattern whose `@def` capture is the definition node, so a rule's
 * pattern index in the compiled query identifies the rule.
 */
export interface DefRule {
  query: string;
  kind: UnitKind;
  /**
   * Fields tried in order for the name node (or, where a grammar has no
   * field, child node types; `a|b` tries both); default ['name'].
   */
  nameFields?: readonly string[];
  /**
   * The name is the run of leading children of these types, `.`-joined
   * without quotes: HCL `resource "aws_instance" "web"` is
   * `resource.aws_instance.web`. Replaces nameFields.
   */
  nameParts?: ReadonlySet<string>;
  /**
   * Field followed down from the name node as far as it goes: C declarators
   * nest (`*f(int)` is a pointer declarator around a function declarator
   * around the identifier).
   */
  nameDescend?: string;
  /** Name is a type expression (Rust `impl<T> Foo<T>`): reduce it to `Foo`. */
  nameIsType?: boolean;
  /**
   * Separator of a qualified name (`Circle::area` in C++, `M.total` in Lua):
   * the last part is the name, the rest joins the parent.
   */
  scopeSeparator?: RegExp;
  /** Kind of a definition whose name was qualified (C++ `Circle::area` is a method). */
  scopedKind?: UnitKind;
  /** Kind decided by the node type of a field (Go `type X struct {}`). */
  kindByField?: { field: string; kinds: Readonly<Record<string, UnitKind>> };
  /** Kind decided by a child node or keyword (Kotlin `interface`, `enum_class_body`). */
  kindByChild?: Readonly<Record<string, UnitKind>>;
  /**
   * Steps from the definition to its body (field name, or a child node type
   * when no field exists; `a|b` tries both); default ['body']. Empty: the
   * node has no body and the signature is the whole (bounded) declaration.
   */
  body?: readonly string[];
  /**
   * The signature ends with the declaration's first line: Ruby has no body
   * opener, so its body node starts at the first statement (or comment).
   */
  oneLineSignature?: boolean;
  /** Field holding a Go method receiver; its type becomes the parent. */
  receiverField?: string;
  /**
   * A namespace (C#, C++, PHP, a Ruby module): it often wraps a whole file,
   * so its members are always chunked on their own, never as one chunk.
   */
  spread?: boolean;
  /**
   * A statement that opens a scope for the rest of its parent instead of
   * wrapping it (C# `namespace Shop.Billing;`): the definitions after it
   * nest under it, as they would inside braces, and it ends where its parent
   * (the file) ends.
   */
  scopesRest?: boolean;
}

export interface LanguageSpec {
  /** Grammar package and the .wasm file it ships at its root. */
  grammar: { pkg: string; wasm: string };
  defs: readonly DefRule[];
  /**
   * Parents that belong to the definition when it is their only named child
   * (`export`, Python decorators, Go's `type` keyword). `signature: true`
   * when the signature should start at the wrapper (`export const f = ...`).
   */
  wrappers: Readonly<Record<string, { signature: boolean }>>;
  /** Preceding siblings that are part of the definition (decorators, Rust attributes). */
  attachments: ReadonlySet<string>;
  /** Attribute nodes inside a declaration, before its signature (C# `[Obsolete]`). */
  innerAttributes?: ReadonlySet<string>;
  /** Comment node types; a run of them directly above a definition is its doc. */
  comments: ReadonlySet<string>;
  /**
   * C and C++: a file whose parse has errors is parsed once more without its
   * unknown macro words and with only the first branch of each conditional
   * (see preprocessor.ts), and the tree with fewer errors is kept.
   */
  preprocessor?: boolean;
  /** Python: the first string statement of the body is the doc. */
  docstrings?: boolean;
  /** Doc comments are XML (C# `/// <summary>`): tags are dropped from the doc. */
  xmlDoc?: boolean;
  /**
   * Body nodes that start after the comments leading their first member
   * (Ruby's `body_statement`): the doc of that member is looked up before them.
   */
  bodyNodes?: ReadonlySet<string>;
  /**
   * The language a file really is, from its path and text, when the
   * extension is ambiguous (`.h` is C or C++); undefined keeps this one.
   */
  refineLanguage?: (path: string, text: string) => string | undefined;
  /** Definitions nested deeper than this are left inside their ancestor (data files). */
  maxDefDepth?: number;
}

/** Functions nested directly in these become methods. */
export const MEMBER_PARENT_KINDS: ReadonlySet<UnitKind> = new Set<UnitKind>([
  'class',
  'interface',
  'trait',
  'impl',
  'struct',
  'enum',
]);

/** Oversized definitions of these kinds are split along their members instead of by windows. */
export const CONTAINER_KINDS: ReadonlySet<UnitKind> = new Set<UnitKind>([
  ...MEMBER_PARENT_KINDS,
  'module',
  // Data-file sections (YAML, JSON keys); markdown sections have their own splitter.
  'section',
]);

/** `//` and `/* *\/` comments in one node type (C, C++, C#, PHP, JavaScript). */
export const C_COMMENTS: ReadonlySet<string> = new Set(['comment']);
