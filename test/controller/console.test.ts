import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConsoleAccess } from '../../src/controller/console/access.ts';
import { consoleLimits } from '../../src/controller/console/limits.ts';
import { openStore } from '../../src/controller/store/open.ts';
import { enrollWithTicket } from '../../src/node/enrollment.ts';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { callController } from '../../src/wire/control-channel.ts';
import { auditExchangeVersion } from '../../src/wire/protocol/audit.ts';
import { rejectsWith } from '../support/portal-errors.ts';
import { projectRoot } from '../support/usecases.ts';
import { createWorld, type World } from '../support/portal-world.ts';

const as = (identity: StoredIdentity) => ({ key: identity.privateKey, certificate: identity.certificate });

/** A browser's requests, reduced to what the console sees: a cookie jar of one cookie and the origin it sends. */
class Browser {
  cookie: string | undefined;
  constructor(private readonly base: string) {}

  async get(path: string): Promise<Response> {
    return fetch(new URL(path, this.base), { headers: this.cookie ? { cookie: this.cookie } : {}, redirect: 'manual' });
  }

  async post(path: string, form: Record<string, string>, origin = new URL(this.base).origin): Promise<Response> {
    const response = await fetch(new URL(path, this.base), {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: { origin, ...(this.cookie ? { cookie: this.cookie } : {}) },
      redirect: 'manual',
    });
    const set = response.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    return response;
  }

  /** Opens a printed link and presses its button, as a person would. */
  async signIn(link: string): Promise<Response> {
    const page = await (await this.get(link)).text();
    const secret = /name="secret" value="([^"]+)"/.exec(page)?.[1];
    assert.ok(secret, page);
    return this.post('/sign-in', { secret });
  }
}

describe('console: who gets in, and what an administrator does there', () => {
  let world: World;
  let url: string;
  const link = async (admin: StoredIdentity = world.admin) =>
    (await callController(admin.record, 'console-link', {}, as(admin))).link;

  before(async () => {
    world = await createWorld({ console: { host: '127.0.0.1', port: 0 } });
    url = world.controller.console!.url;
  });
  after(() => world.close());

  it('signs an administrator in once with a printed link, and shows the project to that session', async () => {
    const printed = await link();
    assert.match(printed, new RegExp(`^${url}/sign-in/[A-Za-z0-9_-]{43}$`));
    const browser = new Browser(url);
    const signedIn = await browser.signIn(printed);
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get('location'), '/');
    const cookie = signedIn.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^portal_console=[A-Za-z0-9_-]{43};/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.doesNotMatch(cookie, /Secure/, 'served on loopback over HTTP');
    const overview = await browser.get('/');
    assert.equal(overview.status, 200);
    const text = await overview.text();
    assert.match(text, /<h1>Overview<\/h1>/);
    assert.match(text, new RegExp(`Signed in as <code>${world.admin.record.nodeId}</code>`));
    const members = await (await browser.get('/members')).text();
    assert.match(members, new RegExp(`<td><code>${world.admin.record.nodeId}</code></td>\\s*<td>administrator</td>`));

    // The same link again, in another browser: refused, and nothing signed in.
    const again = new Browser(url);
    assert.equal((await again.signIn(printed)).status, 403);
    assert.equal(again.cookie, undefined);
    assert.equal((await again.get('/')).status, 401);
  });

  it('keeps the newest links of an administrator who asks again and again: the oldest no longer signs in', async () => {
    const printed = [];
    for (let index = 0; index <= consoleLimits.linksPerAdministrator; index += 1) printed.push(await link());
    assert.equal((await new Browser(url).signIn(printed[0]!)).status, 403, 'the oldest gave way');
    assert.equal((await new Browser(url).signIn(printed[1]!)).status, 303);
    assert.equal((await new Browser(url).signIn(printed.at(-1)!)).status, 303);
  });

  it('refuses an expired link, a forged cookie, and a form sent from another site', async () => {
    const store = await openStore(`sqlite:${join(world.dir, 'controller', 'controller.db')}`);
    try {
      const admin = { ...world.admin.record, attributes: [], relays: [], admin: true, tls: false, relayNode: false };
      const issuedAt = Date.now() - consoleLimits.linkMs - 1000;
      const expired = await new ConsoleAccess({ store }).issueLink(admin, issuedAt);
      assert.equal((await new Browser(url).signIn(`${url}/sign-in/${expired.secret}`)).status, 403);
    } finally {
      await store.destroy();
    }
    const forger = new Browser(url);
    forger.cookie = `portal_console=${'A'.repeat(43)}`;
    assert.equal((await forger.get('/')).status, 401);
    forger.cookie = 'portal_console=../../etc';
    assert.equal((await forger.get('/members')).status, 401);

    // A page elsewhere that posts the sign-in form of a leaked link: refused before the link is used.
    const browser = new Browser(url);
    const printed = await link();
    const secret = printed.split('/').at(-1)!;
    assert.equal((await browser.post('/sign-in', { secret }, 'https://elsewhere.example')).status, 403);
    assert.equal((await browser.signIn(printed)).status, 303, 'the link was not used by the refused form');
  });

  it('answers with a strict Content-Security-Policy, and only to requests addressed to loopback', async () => {
    const response = await new Browser(url).get('/');
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'self'/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-frame-options'), 'SAMEORIGIN');
    // A site that points its own name at 127.0.0.1 reaches the port, but not the console.
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path: '/', headers: { host: `rebound.example:${port}` } });
      request.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    assert.equal(status, 421);
  });

  it('ends a session at once when its administrator is revoked, and gives a link to administrators only', async () => {
    const second = await enrollWithTicket(
      join(world.dir, 'second-admin'),
      String(
        (
          await callController(
            world.admin.record,
            'ticket',
            { expiresInMs: 60_000, usageCount: 1, attribute: '', admin: true },
            as(world.admin),
          )
        ).ticket,
      ),
    );
    const browser = new Browser(url);
    assert.equal((await browser.signIn(await link(second))).status, 303);
    assert.equal((await browser.get('/')).status, 200);
    await callController(
      world.admin.record,
      'revoke',
      { member: second.record.nodeId, reason: 'left' },
      as(world.admin),
    );
    assert.equal((await browser.get('/')).status, 401);

    const node = await enrollWithTicket(join(world.dir, 'node'), await world.ticket({ attribute: 'db-inlet' }));
    await rejectsWith(callController(node.record, 'console-link', {}, as(node)), 'NOT_ADMIN');
  });

  it('signs out: the cookie is cleared and its session ends in the store too', async () => {
    const trailOf = async (event: string) =>
      (
        await callController(
          world.admin.record,
          'audit',
          { exchange: auditExchangeVersion, afterSeq: 0, limit: 500, since: 0, event },
          as(world.admin),
        )
      ).records;
    const before = {
      in: (await trailOf('console-signed-in')).length,
      out: (await trailOf('console-signed-out')).length,
    };
    const browser = new Browser(url);
    await browser.signIn(await link());
    const kept = browser.cookie;
    const out = await browser.post('/sign-out', {});
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie') ?? '', /portal_console=;.*Max-Age=0/);
    const replay = new Browser(url);
    replay.cookie = kept;
    assert.equal((await replay.get('/')).status, 401, 'the old cookie signs nobody in');
    // Both are audit records naming the administrator.
    const signedIn = await trailOf('console-signed-in');
    const signedOut = await trailOf('console-signed-out');
    assert.equal(signedIn.length, before.in + 1);
    assert.equal(signedOut.length, before.out + 1);
    assert.equal(signedIn.at(-1)!.members, JSON.stringify([world.admin.record.nodeId]));
    assert.match((JSON.parse(signedIn.at(-1)!.details) as { expires_at: string }).expires_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal(signedOut.at(-1)!.members, JSON.stringify([world.admin.record.nodeId]));
  });

  it('revokes a member from its page, after asking, and the trail names the administrator and the reason', async () => {
    const node = await enrollWithTicket(join(world.dir, 'doomed'), await world.ticket({ attribute: 'db-outlet' }));
    const browser = new Browser(url);
    await browser.signIn(await link());
    const members = await (await browser.get('/members')).text();
    assert.match(members, new RegExp(`href="/members/${node.record.nodeId}/revoke"`));
    assert.doesNotMatch(members, new RegExp(`href="/members/${world.admin.record.nodeId}/revoke"`), 'not oneself');
    const asking = await (await browser.get(`/members/${node.record.nodeId}/revoke`)).text();
    assert.match(asking, /<label for="reason">/);
    const done = await browser.post(`/members/${node.record.nodeId}/revoke`, { reason: 'disk <lost>' });
    assert.equal(done.status, 200);
    assert.match(await done.text(), new RegExp(`Revoked ${node.record.nodeId}: its connections are closed`));
    assert.match(
      await (await browser.get('/members')).text(),
      /revoked by <code>a[0-9a-f]{16}<\/code>: disk &lt;lost&gt;/,
    );
    const { records } = await callController(
      world.admin.record,
      'audit',
      { exchange: auditExchangeVersion, afterSeq: 0, limit: 500, since: 0, event: 'revoked' },
      as(world.admin),
    );
    const revoked = records.find((record) => record.members.includes(node.record.nodeId));
    assert.ok(revoked, 'a revoked record');
    assert.deepEqual(JSON.parse(revoked.members), [node.record.nodeId, world.admin.record.nodeId]);
    assert.equal((JSON.parse(revoked.details) as { reason: string }).reason, 'disk <lost>');
    // Twice: said, not done again.
    assert.equal((await browser.post(`/members/${node.record.nodeId}/revoke`, { reason: '' })).status, 400);
  });

  it('tries an allow expression: the members it admits now, or the column where it does not read', async () => {
    await enrollWithTicket(join(world.dir, 'ops'), await world.ticket({ attribute: 'team=ops' }));
    const browser = new Browser(url);
    await browser.signIn(await link());
    const admitted = await (await browser.get(`/policies?allow=${encodeURIComponent('team = "ops"')}`)).text();
    assert.match(admitted, /It admits 1 member now\./);
    assert.match(admitted, /<td>team=ops<\/td>/);
    const none = await (await browser.get('/policies?allow=nobody-has-this')).text();
    assert.match(none, /It admits no member of the project now\./);
    const broken = await (await browser.get(`/policies?allow=${encodeURIComponent('team = ')}`)).text();
    assert.match(broken, /This is not an allow expression: column 8: expected/);
    assert.match(broken, /aria-invalid="true"/);
  });

  it('issues a ticket from the form, shows it once, lists it and cancels it, refusing what does not read', async () => {
    const browser = new Browser(url);
    await browser.signIn(await link());
    const form = { kind: 'node', attributes: 'db-inlet\nteam=ops', relays: '', expiresIn: '1h', usageCount: '2' };
    const issued = await browser.post('/tickets', form);
    assert.equal(issued.status, 200);
    const page = await issued.text();
    const ticket = /<textarea id="ticket"[^>]*>([^<]+)<\/textarea>/.exec(page)?.[1];
    assert.ok(ticket, page);
    assert.match(page, /a loopback address: only nodes on this machine can use it/);
    const node = await enrollWithTicket(join(world.dir, 'from-console'), ticket);
    assert.deepEqual(node.record.attributes, ['db-inlet', 'team=ops']);

    const listed = await (await browser.get('/tickets')).text();
    const id = /<td><code>(t[0-9a-f]{16})<\/code><\/td>\s*<td>attributes db-inlet, team=ops<\/td>\s*<td>1<\/td>/.exec(
      listed,
    )?.[1];
    assert.ok(id, 'listed with one use left');
    assert.match(await (await browser.get(`/tickets/${id}/cancel`)).text(), /can enroll 1 more/);
    assert.match(await (await browser.post(`/tickets/${id}/cancel`, {})).text(), new RegExp(`Cancelled ${id}`));
    assert.doesNotMatch(await (await browser.get('/tickets')).text(), new RegExp(id));
    await rejectsWith(enrollWithTicket(join(world.dir, 'too-late'), ticket), 'TICKET_CANCELLED');

    for (const [change, problem] of [
      [{ expiresIn: '10x' }, /Expires in: 10x/],
      [{ usageCount: '0' }, /Enrollments it allows: 0 is not a whole number/],
      [{ attributes: '' }, /a node needs one at least/],
      [{ attributes: 'a,b' }, /&quot;a,b&quot; holds a comma/],
      [
        { attributes: 'not an attribute!' },
        /&quot;not an attribute!&quot; is not an attribute; give NAME or KEY=VALUE/,
      ],
      // Refused by the controller, in the words of the form rather than the command line's flags.
      [{ relays: 'Not_Valid' }, /&quot;Relay names&quot; is not valid: give a name of lower-case letters/],
    ] as const) {
      const refused = await browser.post('/tickets', { ...form, ...change });
      assert.equal(refused.status, 400, JSON.stringify(change));
      const text = await refused.text();
      assert.match(text, problem);
      assert.doesNotMatch(text, /--[a-z]/, 'no flag of the command line');
      assert.match(text, /role="alert"/);
    }
  });

  it('compiles a pasted manifest: every file to read and download, or each problem where it is', async () => {
    const browser = new Browser(url);
    await browser.signIn(await link());
    const manifest = await readFile(join(projectRoot, 'usecases', 'webhook.yaml'), 'utf8');
    const compiled = await browser.post('/usecases', { manifest });
    assert.equal(compiled.status, 200);
    const page = await compiled.text();
    assert.match(page, /Compiled <code>webhook<\/code>: \d+ files\./);
    assert.match(page, /<summary><code>outlet\.json<\/code>/);
    const download = await browser.post('/usecases/file', { manifest, path: 'outlet.json' });
    assert.match(download.headers.get('content-disposition') ?? '', /attachment; filename="outlet\.json"/);
    assert.deepEqual(
      JSON.parse(await download.text()),
      JSON.parse(await readFile(join(projectRoot, 'out', 'webhook', 'outlet.json'), 'utf8')),
    );
    const tickets = await (await browser.post('/usecases/file', { manifest, path: 'tickets.sh' })).text();
    assert.ok(tickets.includes(world.controller.address), 'the project controller written into tickets.sh');

    const broken = manifest.replace('port: 17777', 'port: seventeen');
    const refused = await browser.post('/usecases', { manifest: broken });
    assert.equal(refused.status, 400);
    const text = await refused.text();
    const line = broken.split('\n').findIndex((each) => each.includes('seventeen')) + 1;
    assert.match(text, new RegExp(`<a href="#line-${line}">line ${line}, column \\d+</a>\\s*<code>/inlet/port</code>`));
    assert.match(text, new RegExp(`<span id="line-${line}" class="at-fault"`));
  });

  it('shows the trail through filters, exports it as JSON lines, verifies it until a record is changed', async () => {
    const browser = new Browser(url);
    await browser.signIn(await link());
    const admin = world.admin.record.nodeId;
    const page = await (await browser.get(`/audit?since=1h&event=project-created&member=${admin}`)).text();
    assert.match(page, /<td>project-created<\/td>/);
    assert.doesNotMatch(page, /<td>ticket-issued<\/td>/);
    const exported = await browser.get(`/audit.jsonl?since=&event=ticket-issued&member=`);
    assert.match(exported.headers.get('content-disposition') ?? '', /attachment; filename="audit.jsonl"/);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; seq: number });
    assert.ok(lines.length >= 3, `${lines.length} ticket-issued records`);
    assert.ok(lines.every((record) => record.event === 'ticket-issued'));
    const refused = await browser.get('/audit?since=10x');
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /role="alert">Since: 10x/);

    assert.match(
      await (await browser.get('/audit/verify')).text(),
      /The audit trail is whole: \d+ records, signed from record 1 on/,
    );
    const store = await openStore(`sqlite:${join(world.dir, 'controller', 'controller.db')}`);
    try {
      await store
        .updateTable('audit_records')
        .set({ details: '{"tampered":true}' })
        .where('seq', '=', lines[0]!.seq)
        .execute();
    } finally {
      await store.destroy();
    }
    assert.match(await (await browser.get('/audit/verify')).text(), new RegExp(`Broken: .*${lines[0]!.seq}`));
  });
});
