/** How a test expects a Portal failure: its stable code, its message, and a hint that says what to do. */
import assert from 'node:assert/strict';
import { PortalError } from '../../src/shared/errors.ts';

export async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PortalError, String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    assert.ok(error.hint, 'every error tells what to do');
    return true;
  });
}
