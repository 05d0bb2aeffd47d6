/**
 * `portal controller stop`: stops the embedded controller that `portal enroll` started in the background,
 * as `portal reset` does, and keeps all it holds (before `portal controller migrate-store`, say). The next
 * administrator command starts it again, unless its store moved to PostgreSQL.
 */
import type { Command } from 'commander';
import { readEmbeddedController, stopEmbeddedController } from './embedded-controller.ts';
import { portalHome } from './home.ts';

export function registerControllerStop(controller: Command): void {
  controller
    .command('stop')
    .description(
      'stop the embedded controller of this $PORTAL_HOME (started by portal enroll), keeping its state; ' +
        'the next administrator command starts it again',
    )
    .action(async () => {
      const home = portalHome();
      const running = await readEmbeddedController(home);
      if (!running) {
        console.log(`The embedded controller of PORTAL_HOME=${home} is not running.`);
        return;
      }
      await stopEmbeddedController(running);
      console.log(
        `Stopped the embedded controller of PORTAL_HOME=${home} (process ${running.pid}); its state is kept.`,
      );
    });
}
