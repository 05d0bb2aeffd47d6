// Loaded before the unit tests: any attempt to start a program fails the test that made it, so the
// unit suite stays what it says (Node.js alone, seconds) and a slow test cannot slip into it.
const childProcess = require('node:child_process');
const { syncBuiltinESMExports } = require('node:module');

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = () => {
    throw new Error(
      `a unit test called child_process.${name}: unit tests start no program; ` +
        'it belongs to the integration suite (scripts/test-suites.cjs)',
    );
  };
}
// ES modules import node:child_process by name: let them see the replacements too.
syncBuiltinESMExports();
