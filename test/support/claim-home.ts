/**
 * One starter of the home-claim race: claims the runtime file named by CLAIM_FILE, prints "won" or
 * "refused", and holds a won claim until its standard input closes.
 */
import { claimHome } from '../../src/node/home-claim.ts';

const file = process.env.CLAIM_FILE as string;
try {
  const claim = await claimHome({ file, what: 'a node', home: 'test' });
  process.stdout.write('won\n');
  process.stdin.resume();
  process.stdin.on('end', () => void claim.release());
} catch (error) {
  process.stdout.write(`refused ${(error as { code?: string }).code ?? (error as Error).message}\n`);
}
