/**
 * The console's one script, run in the browser (bundled by scripts/build.mjs into dist/console/): it
 * only adds to pages that work without it. It checks allow expressions and attributes as they are
 * typed, with the parser the nodes use, copies a ticket with one press, and keeps the live parts of a
 * page (the portals, the audit trail's tail) current from the console's event streams.
 */
import { parseAttribute } from '../../../shared/policy/attributes.ts';
import { parsePolicy } from '../../../shared/policy/parse.ts';

/** What is wrong with a typed value, or undefined when it reads. */
type Check = (value: string) => string | undefined;

const checks: Record<string, Check> = {
  policy: (value) => {
    if (value.trim() === '') return undefined;
    const read = parsePolicy(value);
    return read.ok
      ? undefined
      : `column ${read.problem.column}: expected ${read.problem.expected}, found ${read.problem.found}`;
  },
  attribute: (value) => {
    const lines = value
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
    for (const [index, line] of lines.entries()) {
      const read = parseAttribute(line);
      if (!read.ok) return `line ${index + 1}: ${read.problem}`;
    }
    return undefined;
  },
};

/** Each field with data-check says, in the element named by its data-check-output, whether it reads. */
function checkAsTyped(field: HTMLInputElement | HTMLTextAreaElement): void {
  const check = checks[field.dataset.check ?? ''];
  const output = document.getElementById(field.dataset.checkOutput ?? '');
  if (!check || !output) return;
  const update = () => {
    const problem = check(field.value);
    output.textContent = problem === undefined ? '' : `Does not read: ${problem}`;
    if (problem === undefined) field.removeAttribute('aria-invalid');
    else field.setAttribute('aria-invalid', 'true');
  };
  field.addEventListener('input', update);
}

/** A button with data-copy copies the value of the field it names, and says so. */
function copyButton(button: HTMLButtonElement): void {
  const field = document.getElementById(button.dataset.copy ?? '') as HTMLTextAreaElement | null;
  const said = document.querySelector<HTMLElement>('[data-copied]');
  if (!field) return;
  button.hidden = false;
  button.addEventListener('click', () => {
    const done = (text: string) => {
      if (said) said.textContent = text;
    };
    navigator.clipboard.writeText(field.value).then(
      () => done('Copied.'),
      () => {
        field.select();
        done('Selected: copy it with your keyboard.');
      },
    );
  });
}

/**
 * An element with data-live follows the stream it names: each message of its data-live-event replaces
 * its content, or with data-live-mode="append" is added at its end. The HTML comes escaped from the
 * console's own pages. A stream that says the session ended is closed, and the page says so.
 */
function follow(element: HTMLElement): void {
  const source = new EventSource(element.dataset.live ?? '');
  const event = element.dataset.liveEvent ?? 'message';
  source.addEventListener(event, (message) => {
    const { data } = message as MessageEvent<string>;
    if (element.dataset.liveMode === 'append') element.insertAdjacentHTML('beforeend', data);
    else element.innerHTML = data;
  });
  source.addEventListener('ended', () => {
    source.close();
    say('Your session has ended: run portal console for a new sign-in link.');
  });
  // Refused when opened again (the session ended meanwhile, too many views open): the browser gives up.
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) say('This page stopped updating: reload it to see the latest.');
  });
}

/** A line at the top of the page, read out once. */
function say(text: string): void {
  const said = document.createElement('p');
  said.className = 'problem';
  said.setAttribute('role', 'alert');
  said.textContent = text;
  document.querySelector('main')?.prepend(said);
}

for (const element of document.querySelectorAll<HTMLElement>('[data-live]')) follow(element);
for (const field of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('[data-check]'))
  checkAsTyped(field);
for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) copyButton(button);
