// The programs a lane of `npm test` started that still run: every process whose environment carries
// the lane's marker (PORTAL_TEST_LANE), which each program a test starts inherits. Linux only (/proc).
const { readdirSync, readFileSync } = require('node:fs');

/** Processes other than `self` whose PORTAL_TEST_LANE starts with `prefix`. */
function survivors(prefix, self = process.pid) {
  if (!prefix || process.platform !== 'linux') return [];
  const found = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === self) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      if (!environ.some((variable) => variable.startsWith(`PORTAL_TEST_LANE=${prefix}`))) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
      // tsx's esbuild service belongs to the lane itself and ends with it.
      if (command !== '' && !/esbuild --service/.test(command)) found.push({ pid, command });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

function stop(processes) {
  for (const { pid } of processes) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

module.exports = { survivors, stop };
