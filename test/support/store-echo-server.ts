/**
 * startStoreEchoServer as a process of its own, so that its bulk answers do not share an event loop
 * with the clients measured beside it: `node --import tsx test/support/store-echo-server.ts TOGETHER
 * FROM_BYTES` prints `store echo listening on PORT` and runs until SIGTERM.
 */
import { startStoreEchoServer } from './tcp.ts';

const [together = '1', from = '0'] = process.argv.slice(2);
const echo = await startStoreEchoServer(Number(together), Number(from));
process.stdout.write(`store echo listening on ${echo.port}\n`);
await new Promise<void>((resolve) => {
  process.once('SIGTERM', resolve);
  process.once('SIGINT', resolve);
});
await echo.close();
process.exit(0);
