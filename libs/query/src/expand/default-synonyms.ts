/**
 * The default code-search synonym table: a word a person types -> words
 * code tends to use for the same thing. Data only; the expansion step
 * looks keys up after analysis (lowercase) and runs every value through the
 * analyzer too, so `Engine` and `engine` are the same entry.
 *
 * Directional on purpose: `function -> fn` helps, `fn -> function` would
 * pull every prose comment into a search for `fn`. Terms too generic to
 * expand (`get`, `set`, `new`, `data`, ...; see NON_EXPANDABLE) have no
 * entry. Repositories extend or override it with mergeSynonymTables.
 *
 * It is a TypeScript module rather than a .json file because the library's
 * tsconfig includes only `src` .ts files: a JSON import is rejected by
 * composite builds (TS6307) and would not be copied to dist.
 */
import type { SynonymTable } from './synonyms.js';

export const DEFAULT_SYNONYMS: SynonymTable = Object.freeze({
  // searching
  search: ['find', 'query', 'lookup', 'engine', 'searcher'],
  find: ['search', 'lookup', 'locate', 'query'],
  query: ['search', 'lookup', 'find'],
  lookup: ['find', 'search', 'resolve'],
  // code structure
  function: ['func', 'fn', 'def', 'method', 'procedure'],
  method: ['func', 'fn', 'function', 'def'],
  class: ['struct', 'type', 'interface'],
  struct: ['class', 'type', 'record'],
  interface: ['trait', 'protocol', 'abstract'],
  constructor: ['init', 'new', 'ctor', 'create'],
  variable: ['var', 'let', 'const', 'field'],
  parameter: ['param', 'arg', 'argument', 'option'],
  argument: ['arg', 'param', 'parameter'],
  callback: ['handler', 'hook', 'listener'],
  handler: ['callback', 'hook', 'listener', 'middleware'],
  module: ['package', 'pkg', 'import'],
  package: ['module', 'pkg', 'library'],
  dependency: ['dep', 'package', 'module', 'import'],
  import: ['require', 'include', 'use'],
  plugin: ['extension', 'addon', 'hook'],
  // errors
  error: ['err', 'exception', 'panic', 'failure'],
  exception: ['error', 'err', 'throw', 'raise'],
  failure: ['error', 'fail', 'err'],
  panic: ['error', 'crash', 'abort'],
  crash: ['panic', 'abort', 'fatal'],
  retry: ['backoff', 'attempt', 'retries'],
  timeout: ['deadline', 'expiry', 'ttl'],
  // lifecycle and actions
  delete: ['remove', 'drop', 'unlink', 'destroy', 'del', 'erase'],
  remove: ['delete', 'drop', 'unlink', 'rm'],
  create: ['new', 'make', 'build', 'init', 'construct'],
  initialize: ['init', 'setup', 'bootstrap'],
  start: ['begin', 'launch', 'run', 'init', 'boot'],
  stop: ['halt', 'shutdown', 'terminate', 'kill', 'close'],
  execute: ['run', 'exec', 'invoke'],
  send: ['emit', 'publish', 'post', 'write', 'dispatch'],
  receive: ['recv', 'read', 'consume', 'subscribe', 'listen'],
  publish: ['emit', 'send', 'broadcast'],
  subscribe: ['listen', 'consume', 'watch'],
  read: ['load', 'fetch', 'parse'],
  write: ['save', 'store', 'persist', 'flush'],
  save: ['write', 'store', 'persist'],
  load: ['read', 'fetch', 'open'],
  fetch: ['get', 'load', 'retrieve', 'request', 'download'],
  update: ['modify', 'change', 'patch', 'edit', 'upsert'],
  insert: ['add', 'put', 'append', 'upsert', 'push'],
  add: ['insert', 'append', 'push', 'register'],
  validate: ['check', 'verify', 'validation', 'assert'],
  compare: ['diff', 'equals', 'cmp'],
  sort: ['order', 'rank', 'compare'],
  filter: ['where', 'select', 'match', 'predicate'],
  merge: ['combine', 'join', 'union', 'fuse'],
  split: ['chunk', 'divide', 'separate'],
  convert: ['transform', 'cast', 'format'],
  schedule: ['cron', 'timer', 'interval'],
  watch: ['observe', 'listen', 'monitor'],
  // data and types
  config: ['configuration', 'settings', 'options', 'cfg', 'conf'],
  settings: ['config', 'options', 'preferences'],
  options: ['opts', 'config', 'settings', 'params'],
  list: ['array', 'slice', 'vec', 'collection'],
  array: ['list', 'slice', 'vec'],
  dictionary: ['dict', 'map', 'hashmap'],
  string: ['str', 'text'],
  integer: ['int', 'number'],
  boolean: ['bool', 'flag'],
  message: ['msg', 'event', 'payload'],
  event: ['message', 'signal', 'notification'],
  schema: ['model', 'type', 'definition'],
  // files and storage
  directory: ['dir', 'folder', 'path'],
  database: ['db', 'store', 'sql', 'sqlite'],
  storage: ['store', 'repository', 'db', 'persist'],
  cache: ['memo', 'lru', 'memoize'],
  environment: ['env', 'variable'],
  binary: ['bytes', 'blob'],
  // parsing and encoding
  parse: ['parser', 'parsing', 'decode', 'tokenize'],
  parser: ['parse', 'lexer', 'tokenizer'],
  tokenize: ['tokenizer', 'lexer', 'tokens', 'split'],
  serialize: ['encode', 'marshal', 'dump', 'stringify'],
  deserialize: ['decode', 'unmarshal', 'parse'],
  encode: ['serialize', 'marshal'],
  decode: ['deserialize', 'unmarshal', 'parse'],
  regex: ['regexp', 'pattern'],
  hash: ['digest', 'checksum', 'sha'],
  template: ['tmpl', 'layout', 'view'],
  render: ['draw', 'display', 'template'],
  // networking and services
  request: ['req', 'http', 'call'],
  response: ['res', 'resp', 'reply', 'result'],
  server: ['service', 'daemon', 'listener'],
  client: ['sdk', 'caller', 'consumer'],
  connection: ['conn', 'connect', 'socket', 'session'],
  queue: ['buffer', 'channel', 'broker', 'jobs'],
  worker: ['job', 'thread', 'goroutine'],
  async: ['await', 'promise', 'future', 'concurrent'],
  auth: ['authentication', 'authorization', 'login', 'token', 'credentials'],
  login: ['auth', 'signin', 'authenticate'],
  permission: ['access', 'role', 'acl', 'authorization'],
  token: ['jwt', 'secret', 'credential'],
  // observability and tooling
  log: ['logger', 'logging', 'trace'],
  metric: ['metrics', 'stats', 'telemetry', 'counter'],
  trace: ['span', 'tracing', 'telemetry'],
  command: ['cmd', 'cli', 'subcommand'],
  cli: ['command', 'cmd', 'argv'],
  // search-engine vocabulary (codesift's own domain and its users')
  index: ['indexer', 'indexing', 'reindex'],
  embedding: ['embed', 'vector', 'embeddings', 'embedder'],
  embedder: ['embed', 'embedding', 'encoder'],
  vector: ['embedding', 'vec'],
  score: ['rank', 'weight', 'relevance'],
  rank: ['score', 'order', 'sort'],
  chunk: ['segment', 'block', 'piece', 'split'],
  graph: ['node', 'edge', 'tree', 'dag'],
  edge: ['link', 'relation', 'connection'],
  tree: ['ast', 'hierarchy', 'node'],
  scan: ['walk', 'crawl', 'traverse'],
  walk: ['traverse', 'scan', 'visit'],
  skip: ['ignore', 'exclude', 'filter'],
  ignore: ['skip', 'exclude', 'gitignore'],
  size: ['length', 'len', 'count', 'bytes'],
  count: ['len', 'length', 'size', 'total'],
  limit: ['max', 'cap', 'threshold', 'bound'],
  test: ['spec', 'assert', 'unittest'],
});
