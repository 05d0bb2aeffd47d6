/** Where a node keeps what it runs with: read by the commands that talk to a running node, without loading it. */
import { join } from 'node:path';

export const nodeDirectory = (home: string) => join(home, 'node');
export const runtimeFile = (home: string) => join(nodeDirectory(home), 'runtime.json');
