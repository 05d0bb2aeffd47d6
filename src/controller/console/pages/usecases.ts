/** Use cases: a manifest pasted or uploaded, its problems located, or the artifacts the compiler makes. */
import { html } from 'hono/html';
import type { Problem } from '../../../shared/errors.ts';
import type { Html } from './layout.ts';

export interface CompiledFile {
  readonly path: string;
  readonly content: string;
}

export function useCaseForm(manifest: string): Html {
  return html`<p>
      Paste a use-case manifest (as in <code>usecases/</code>), or choose its file, and compile it: the console shows
      every problem where it is, or every file the compiler makes, to read and download. Nothing is written on the
      controller.
    </p>
    <form method="post" action="/usecases" enctype="multipart/form-data">
      <p>
        <label for="manifest">Manifest (YAML)</label><br />
        <textarea id="manifest" name="manifest" rows="14" cols="80" spellcheck="false">${manifest}</textarea>
      </p>
      <p>
        <label for="file">Or its file</label><br />
        <input id="file" name="file" type="file" accept=".yaml,.yml" />
      </p>
      <p><button type="submit">Compile</button></p>
    </form>`;
}

/** Every problem, located by line, column and JSON pointer, with the lines they point at. */
export function useCaseProblems(manifest: string, problems: readonly Problem[]): Html {
  const lines = manifest.split('\n');
  return html`<section aria-labelledby="problems">
      <h2 id="problems">${problems.length === 1 ? '1 problem' : `${problems.length} problems`}</h2>
      <div role="alert">
        <ol>
          ${problems.map(
            (problem) =>
              html`<li>
                <a href="#line-${problem.line}">line ${problem.line}, column ${problem.column}</a>
                <code>${problem.pointer === '' ? '/' : problem.pointer}</code>: ${problem.message}
              </li>`,
          )}
        </ol>
      </div>
      <div class="scroll" role="region" aria-label="The manifest, by line" tabindex="0">
        <pre class="numbered">
${lines.map(
            (line, index) =>
              html`<span id="line-${index + 1}" class="${problems.some((p) => p.line === index + 1) ? 'at-fault' : ''}"
                >${String(index + 1).padStart(4)} ${line}</span
              > `,
          )}</pre>
      </div>
    </section>
    ${useCaseForm(manifest)}`;
}

/** The compiled files, each to read, and each to download through the same manifest compiled again. */
export function useCaseArtifacts(usecase: string, manifest: string, files: readonly CompiledFile[]): Html {
  return html`<p role="status">Compiled <code>${usecase}</code>: ${files.length} files.</p>
    <form method="post" action="/usecases/file" enctype="multipart/form-data">
      <input type="hidden" name="manifest" value="${manifest}" />
      <ul class="artifacts">
        ${files.map(
          (file) =>
            html`<li>
              <details>
                <summary><code>${file.path}</code> (${file.content.length} bytes)</summary>
                <div class="scroll" role="region" aria-label="${file.path}" tabindex="0">
                  <pre>${file.content}</pre>
                </div>
              </details>
              <button type="submit" name="path" value="${file.path}">
                Download<span class="visually-hidden"> ${file.path}</span>
              </button>
            </li>`,
        )}
      </ul>
    </form>
    <p><a href="/usecases">Compile another</a></p>`;
}
