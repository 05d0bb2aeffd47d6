/**
 * The use-cases section: the compiler, run in the controller on a manifest an administrator pastes or
 * uploads, with the project's controller address in the artifacts. Nothing is written: a file is
 * downloaded by compiling the same manifest again.
 */
import { basename } from 'node:path';
import type { Context, Hono } from 'hono';
import { compileUseCase } from '../../compile/compile.ts';
import { manifestProblems } from '../../compile/manifest.ts';
import type { ConsoleData, ConsoleEnv } from './context.ts';
import { page, type Html } from './pages/layout.ts';
import { useCaseArtifacts, useCaseForm, useCaseProblems, type CompiledFile } from './pages/usecases.ts';
import type { Problem } from '../../shared/errors.ts';

type Page = Context<ConsoleEnv>;

const shown = (c: Page, title: string, body: Html, status: 200 | 400 = 200) =>
  c.html(page(title, body, { admin: c.get('session').admin.nodeId, current: '/usecases' }), status);

export function useCaseRoutes(app: Hono<ConsoleEnv>, data: ConsoleData): void {
  app.get('/usecases', (c) => shown(c, 'Use cases', useCaseForm('')));
  app.post('/usecases', async (c) => {
    const { name, text } = await manifestOf(c);
    const result = await compiled(c, data, name, text);
    if ('problems' in result) return shown(c, 'Use cases', useCaseProblems(text, result.problems), 400);
    return shown(c, 'Use cases', useCaseArtifacts(result.usecase, text, result.files));
  });
  app.post('/usecases/file', async (c) => {
    const form = await c.req.parseBody();
    const { name, text } = await manifestOf(c, form);
    const path = typeof form.path === 'string' ? form.path : '';
    const result = await compiled(c, data, name, text);
    const file = 'files' in result ? result.files.find((each) => each.path === path) : undefined;
    if (!file) return c.text('that file is not among what the manifest compiles to\n', 400);
    c.header('content-disposition', `attachment; filename="${basename(file.path).replace(/[^A-Za-z0-9._-]/g, '_')}"`);
    return c.body(file.content, 200, { 'content-type': 'application/octet-stream' });
  });
}

/** The manifest of the form: the file chosen, else the text pasted. */
async function manifestOf(c: Page, form?: Record<string, unknown>): Promise<{ name: string; text: string }> {
  const body = form ?? (await c.req.parseBody());
  const file = body.file;
  if (file instanceof File && file.size > 0) return { name: file.name || 'manifest.yaml', text: await file.text() };
  return { name: 'manifest.yaml', text: typeof body.manifest === 'string' ? body.manifest.replace(/\r\n/g, '\n') : '' };
}

type Compiled =
  { readonly problems: readonly Problem[] } | { readonly usecase: string; readonly files: readonly CompiledFile[] };

async function compiled(c: Page, data: ConsoleData, name: string, text: string): Promise<Compiled> {
  const { manifest, problems } = manifestProblems(name, text);
  if (!manifest) return { problems };
  const { controller } = await data.project(c.get('session').admin);
  const files = compileUseCase(manifest, { controller }).map(({ path, content }) => ({ path, content }));
  return { usecase: manifest.usecase, files };
}
