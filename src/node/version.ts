/** Portal's version, as package.json states it (bundled into dist/). */
import packageJson from '../../package.json' with { type: 'json' };

export const version: string = packageJson.version;
