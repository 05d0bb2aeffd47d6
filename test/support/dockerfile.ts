/**
 * The repository's Dockerfile, read as a builder reads it (stages, instructions, exec-form arguments),
 * and the image's final stage laid out in a directory so that a container's command line can run
 * here, without a Docker engine: the bundle alone under its image path, `portal` on PATH through the
 * same symlink, the image's environment, its volume and its numeric user.
 */
import { chmod, chown, cp, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectRoot } from './usecases.ts';

export interface Instruction {
  readonly keyword: string;
  /** The text after the keyword, continuation lines joined. */
  readonly text: string;
  /** Exec-form (JSON array) arguments, when the instruction is written that way. */
  readonly exec?: string[];
}

export interface Stage {
  readonly from: string;
  readonly name?: string;
  readonly instructions: Instruction[];
}

export async function readDockerfile(path = join(projectRoot, 'Dockerfile')): Promise<Stage[]> {
  const logical = (await readFile(path, 'utf8'))
    .replace(/\\\n(\s*#[^\n]*\n)*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = '', text = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [from = '', as, name] = text.split(/\s+/);
      stages.push({ from, ...(as?.toUpperCase() === 'AS' && name ? { name } : {}), instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`${path}: ${upper} before the first FROM`);
    const execText = upper === 'HEALTHCHECK' ? /\bCMD\s+(\[.*\])$/.exec(text)?.[1] : text;
    const exec = execText?.startsWith('[') ? (JSON.parse(execText) as string[]) : undefined;
    stage.instructions.push({ keyword: upper, text, ...(exec ? { exec } : {}) });
  }
  return stages;
}

export interface ImageConfig {
  readonly entrypoint: string[];
  readonly cmd: string[];
  readonly user: { uid: number; gid: number };
  readonly env: Record<string, string>;
  readonly volumes: string[];
  readonly workdir: string;
  readonly healthcheck: string[];
  /** COPY --from=<stage> source → destination, in the final stage. */
  readonly copies: { from?: string; source: string; destination: string }[];
  /** Shell-form RUN lines of the final stage. */
  readonly runs: string[];
}

/** What `docker image inspect` would report of the final stage (only the parts Portal uses). */
export function imageConfig(stages: readonly Stage[]): ImageConfig {
  const final = stages.at(-1);
  if (!final) throw new Error('the Dockerfile has no stage');
  const last = (keyword: string) => final.instructions.filter((instruction) => instruction.keyword === keyword).at(-1);
  const all = (keyword: string) => final.instructions.filter((instruction) => instruction.keyword === keyword);
  const [uid, gid] = (last('USER')?.text ?? 'root').split(':');
  const env: Record<string, string> = {};
  for (const instruction of all('ENV')) {
    for (const pair of instruction.text.split(/\s+/)) {
      const [name, ...value] = pair.split('=');
      if (name) env[name] = value.join('=');
    }
  }
  return {
    entrypoint: last('ENTRYPOINT')?.exec ?? [],
    cmd: last('CMD')?.exec ?? [],
    user: { uid: Number(uid), gid: Number(gid ?? uid) },
    env,
    volumes: all('VOLUME').flatMap((instruction) => instruction.exec ?? instruction.text.split(/\s+/)),
    workdir: last('WORKDIR')?.text ?? '/',
    healthcheck: last('HEALTHCHECK')?.exec ?? [],
    copies: all('COPY').map((instruction) => {
      const words = instruction.text.split(/\s+/);
      const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
      const [source = '', destination = ''] = words.filter((word) => !word.startsWith('--'));
      return { ...(from ? { from } : {}), source, destination };
    }),
    runs: all('RUN').map((instruction) => instruction.text),
  };
}

export interface Container {
  /** The image's root, laid out here. */
  readonly root: string;
  /** The host directory mounted on the image's first volume (PORTAL_HOME). */
  readonly volume: string;
  /** Every volume: the image's mount point → the host directory mounted there. */
  readonly volumes: Readonly<Record<string, string>>;
  /** A path of the container as this host sees it: under a volume's host directory, or unchanged. */
  translate(path: string): string;
  /** The environment a process of the container starts with, before the compose file's own. */
  readonly env: Record<string, string>;
  /** The user the container runs as: the image's, when this test runs as root (only root can switch). */
  readonly user?: { uid: number; gid: number };
  /** ENTRYPOINT + args as one command line, `portal` resolved through the image's PATH. */
  commandLine(args: readonly string[]): [string, string[]];
  remove(): Promise<void>;
}

/**
 * Lays out the final stage (`node` is this machine's, as the base image brings its own): each
 * `COPY --from=build /src/dist/X DEST` becomes a copy of this checkout's dist/X (what the build stage's
 * `node scripts/build.mjs` makes), each `COPY --from=build /src/node_modules/X DEST` one of its
 * node_modules/X, each `ln -s TARGET LINK` of a RUN line a symlink, and the volume a
 * fresh directory with the owner and mode the RUN lines give the mount point.
 */
export async function layOutImage(config: ImageConfig): Promise<Container> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-image-'));
  await chmod(dir, 0o755);
  const root = join(dir, 'root');
  const volume = join(dir, 'volume');
  const inImage = (path: string) => join(root, path);
  for (const copy of config.copies) {
    const built = /^\/src\/(dist|node_modules\/.+)$/.exec(copy.source);
    if (copy.from !== 'build' || !built?.[1])
      throw new Error(`unexpected COPY ${copy.source}: the image takes only the bundle and koffi from the build stage`);
    await mkdir(dirname(inImage(copy.destination)), { recursive: true });
    // COPY of a folder copies what it holds, as cp -r does into a new folder.
    await cp(join(projectRoot, built[1]), inImage(copy.destination), { recursive: true });
  }
  // Each volume starts as the image has its mount point: owned by root, 0755, until a RUN line says otherwise.
  const volumes: Record<string, string> = {};
  for (const [index, mountPoint] of config.volumes.entries()) {
    volumes[mountPoint] = index === 0 ? volume : join(dir, `volume-${index}`);
    await mkdir(volumes[mountPoint], { mode: 0o755 });
  }
  const asRoot = process.getuid?.() === 0;
  for (const run of config.runs) {
    // One shell command at a time: `chown U:G a b && chmod 700 a b` names each path it changes.
    for (const command of run.split(/&&|;/).map((part) => part.trim().split(/\s+/))) {
      const [program, first = '', ...paths] = command;
      if (program === 'ln' && first === '-s') {
        const [target = '', link = ''] = paths;
        await mkdir(dirname(inImage(link)), { recursive: true });
        await symlink(inImage(target), inImage(link));
      }
      for (const path of paths) {
        const host = volumes[path];
        if (!host) continue;
        const owner = /^(\d+):(\d+)$/.exec(first);
        if (program === 'chown' && owner && asRoot) await chown(host, Number(owner[1]), Number(owner[2]));
        if (program === 'chmod' && /^[0-7]{3,4}$/.test(first)) await chmod(host, parseInt(first, 8));
      }
    }
  }
  const translate = (path: string): string => {
    for (const [mountPoint, host] of Object.entries(volumes)) {
      if (path === mountPoint || path.startsWith(`${mountPoint}/`)) return host + path.slice(mountPoint.length);
    }
    return path;
  };
  const env = Object.fromEntries(Object.entries(config.env).map(([name, value]) => [name, translate(value)]));
  return {
    root,
    volume,
    volumes,
    translate,
    env: {
      ...env,
      PATH: `${inImage('/usr/local/bin')}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: volume,
    },
    ...(asRoot ? { user: config.user } : {}),
    commandLine(args) {
      const [program = '', ...rest] = [...config.entrypoint, ...args];
      return [program.startsWith('/') ? inImage(program) : join(inImage('/usr/local/bin'), program), rest];
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
