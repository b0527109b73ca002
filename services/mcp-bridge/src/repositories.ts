import { CodesiftError } from '@codesift/core';
import type { SearchEngine } from '@codesift/search';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorResult, errorResultFrom, okResult } from './tools/results.js';
import type { LocalWorkspace } from './workspace.js';

/** One root a server serves, with its own index (and, when local, its own jobs and watch). */
export interface ServedRepository {
  /** What the `repository` argument names it by: letters, digits, `.`, `_` and `-`. */
  name: string;
  engine: SearchEngine;
  workspace?: LocalWorkspace;
}

const NAME = /^[A-Za-z0-9._-]+$/;

/** Refuses names a `repository` argument could not select unambiguously. */
export function checkRepositoryNames(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (!NAME.test(name)) {
      throw new CodesiftError('INVALID_ARGUMENT', `invalid repository name '${name}'`, {
        hint: 'use letters, digits, ".", "_" and "-" (--root name=dir)',
      });
    }
    if (seen.has(name)) {
      throw new CodesiftError('INVALID_ARGUMENT', `two roots are named '${name}'`, {
        hint: 'name them apart with --root name=dir',
      });
    }
    seen.add(name);
  }
}

type Handler = (...args: unknown[]) => CallToolResult | Promise<CallToolResult>;
interface Recorded {
  config: { description?: string; inputSchema?: z.ZodRawShape } & Record<string, unknown>;
  handlers: Map<string, Handler>;
}

/**
 * Registers the tools once per repository on a recorder, then once on
 * `server` with a `repository` argument that picks whose handler answers.
 * Each tool keeps working on one engine and workspace, as it does for a
 * single root, so no tool needs to know that several are served.
 */
export function registerRepositoryTools(
  server: McpServer,
  repositories: readonly ServedRepository[],
  registerTools: (target: McpServer, repository: ServedRepository) => void,
): void {
  if (repositories.length === 0) throw new Error('registerRepositoryTools needs a repository');
  checkRepositoryNames(repositories.map((r) => r.name));
  const tools = new Map<string, Recorded>();
  for (const repository of repositories) {
    const recorder = {
      registerTool(name: string, config: Recorded['config'], handler: Handler) {
        const tool = tools.get(name) ?? { config, handlers: new Map() };
        tool.handlers.set(repository.name, handler);
        tools.set(name, tool);
      },
    };
    // The tools only call registerTool; the recorder stands in for the server.
    registerTools(recorder as unknown as McpServer, repository);
  }
  const names = repositories.map((r) => r.name);
  const repositoryArg = repositoryArgument(names);
  for (const [name, { config, handlers }] of tools) {
    server.registerTool(
      name,
      {
        ...config,
        description: `${config.description ?? ''} ${repositoryNote(names)}`.trim(),
        inputSchema: { ...(config.inputSchema ?? {}), repository: repositoryArg },
      },
      (async (args: { repository?: string } & Record<string, unknown>, extra: unknown) => {
        const { repository, ...rest } = args;
        let chosen: string;
        try {
          chosen = pickRepository(names, repository);
        } catch (err) {
          return errorResultFrom(err);
        }
        const handler = handlers.get(chosen);
        if (!handler) {
          return errorResult(
            `${name} is not available for repository '${chosen}'`,
            `it is offered for: ${[...handlers.keys()].join(', ')}`,
          );
        }
        return config.inputSchema ? handler(rest, extra) : handler(extra);
      }) as never,
    );
  }
  registerListRepositories(server, repositories);
}

function repositoryArgument(names: readonly string[]) {
  // The enum puts the names in the schema; the message replaces zod's, which does not say what was wrong.
  const schema =
    names.length > 1
      ? z.enum(names as [string, ...string[]], {
          error: (issue) => unknownRepository(names, String(issue.input)).message,
        })
      : z.string();
  return schema
    .optional()
    .describe(
      names.length > 1
        ? `Which served repository to use: one of ${names.join(', ')} (required: list_repositories shows their roots).`
        : `The served repository (optional: the only one is ${names[0]}).`,
    );
}

function repositoryNote(names: readonly string[]): string {
  return names.length > 1
    ? `This server serves several repositories, each with its own index: pass repository (${names.join(', ')}).`
    : '';
}

/**
 * The repository a call names; with one served, an omitted name means it.
 * With several, an omitted name is an error rather than a search of all, so
 * that a result never leaves it unclear which root its path is relative to.
 */
export function pickRepository(names: readonly string[], wanted: string | undefined): string {
  if (wanted === undefined) {
    if (names.length === 1) return names[0]!;
    throw new CodesiftError('INVALID_ARGUMENT', 'this server serves several repositories', {
      hint: `pass repository: one of ${names.join(', ')}`,
    });
  }
  if (names.includes(wanted)) return wanted;
  throw unknownRepository(names, wanted);
}

function unknownRepository(names: readonly string[], wanted: string): Error {
  return new CodesiftError(
    'INVALID_ARGUMENT',
    `no repository named '${wanted}'; the served repositories are ${names.join(', ')}`,
  );
}

export const LIST_REPOSITORIES_DESCRIPTION = [
  'List the repositories this server serves: for each its name (the repository argument of the other tools), its root directory, its index file and whether it is indexed.',
  'Call it first when a tool asks for repository, or to find out which codebases you can search.',
].join(' ');

function registerListRepositories(
  server: McpServer,
  repositories: readonly ServedRepository[],
): void {
  server.registerTool(
    'list_repositories',
    {
      title: 'List repositories',
      description: LIST_REPOSITORIES_DESCRIPTION,
      inputSchema: {},
      outputSchema: {
        repositories: z.array(
          z.object({
            name: z.string(),
            root: z.string().nullable(),
            index_path: z.string().nullable(),
            indexed: z.boolean(),
          }),
        ),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      const rows = repositories.map(({ name, workspace }) => ({
        name,
        root: workspace?.root ?? null,
        index_path: workspace?.indexPath ?? null,
        indexed: workspace ? workspace.hasIndex() : true,
      }));
      const lines = rows.map(
        (r) =>
          `${r.name}: ${r.root ?? '(remote)'}${r.indexed ? '' : ' (not indexed yet: index_codebase with this repository builds it)'}`,
      );
      return okResult(
        `${rows.length} repositor${rows.length === 1 ? 'y' : 'ies'}:\n${lines.join('\n')}`,
        { repositories: rows },
      );
    },
  );
}
