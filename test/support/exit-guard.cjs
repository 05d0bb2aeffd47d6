// A test run whose process outlives its last test by seconds has a test that left a timer, a socket or
// a server open: say so and end it, rather than hang until CI's limit. The timer is unref'd, so a
// clean process exits at once without waiting for it.
const { setTimeout } = require('node:timers');

const graceMs = Number(process.env.PORTAL_TEST_LINGER_MS ?? 10_000);

function exitWhenLingering() {
  setTimeout(() => {
    process.stderr.write(
      `\nthe tests ended ${graceMs / 1000} s ago, but their process has not: a test left a timer, socket or ` +
        `server open (still open: ${openResources()}; run its files alone to find which)\n`,
    );
    // Mocha sets the exit code from its failures in an 'exit' listener; this one, added last, has the last word.
    process.on('exit', () => {
      process.exitCode = 1;
    });
    process.exit(1);
  }, graceMs).unref();
}

/** What keeps the process alive, by kind and count: "2 TCPSocketWrap, 1 Timeout". */
function openResources() {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${count} ${kind}`).join(', ') || 'nothing Node.js can name';
}

module.exports = { exitWhenLingering };
