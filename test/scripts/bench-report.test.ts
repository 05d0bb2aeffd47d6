import assert from 'node:assert/strict';
import { judge, ratioOf, rows, summary, table, verdict, type Figures } from '../../scripts/bench/report.ts';

const figures: Figures = {
  connect: { none: 0.07, ssh: 0.27, portal: { relayed: 0.48, direct: 0.41 }, floor: { relayed: 0.46, direct: 0.27 } },
  iperf: { none: 34, ssh: 9.8, portal: { relayed: 7, direct: 8.64 }, floor: { relayed: 7.26, direct: 9.2 } },
  rtt: { ssh: 117, portal: { relayed: 170, direct: 136 }, floor: {} },
  rssRelay: { portal: { relayed: 3.1 }, floor: {} },
};

const row = (key: string) => {
  const spec = rows.find((one) => one.key === key);
  assert.ok(spec, key);
  return spec;
};
const cells = (lines: string[], label: string) =>
  (lines.find((line) => line.startsWith(label)) ?? '').split('|').map((cell) => cell.trim());

describe('bench report: each path judged against its runtime floor', () => {
  it('divides a path by its own floor, and by ssh -L beside it', () => {
    assert.equal(ratioOf(figures.connect, 'direct')?.toFixed(2), '1.52');
    assert.equal(ratioOf(figures.connect, 'relayed')?.toFixed(2), '1.04');
    assert.equal(ratioOf(figures.connect, 'direct', 'ssh')?.toFixed(2), '1.52');
    assert.equal(ratioOf(figures.rtt, 'direct'), undefined, 'no floor measured, no ratio');
  });

  it('meets a target within the bound, misses it past, and says when there was nothing to judge', () => {
    assert.equal(verdict(row('connect'), figures.connect, 'relayed'), '≤ 1.15x floor met');
    assert.equal(verdict(row('connect'), figures.connect, 'direct'), '≤ 1.15x floor NOT met');
    assert.equal(verdict(row('iperf'), figures.iperf, 'direct'), '≥ 0.90x floor met', '8.64 of 9.2 is 0.94');
    assert.equal(verdict(row('iperf'), figures.iperf, 'relayed'), '≥ 0.90x floor met', '7 of 7.26 is 0.96');
    assert.equal(judge(row('rtt'), figures.rtt, 'direct').verdict, 'not measured');
    assert.equal(verdict(row('rssRelay'), figures.rssRelay, 'relayed'), '≤ 4 KiB met');
    assert.equal(verdict(row('connectP99'), figures.connect, 'direct'), '—', 'p99 of a new connection is shown only');
    const connectCpu = { floor: { direct: 520 }, portal: { direct: 880 } };
    assert.equal(verdict(row('connectCpu'), connectCpu, 'direct'), '—', 'CPU per connection is shown only');
    assert.equal(ratioOf(connectCpu, 'direct')?.toFixed(2), '1.69', 'with its ratio to the floor');
  });

  it('lays out floor, Portal, both ratios and the verdict per path, only for the rows measured', () => {
    const lines = table(figures, ['relayed', 'direct']);
    assert.equal(lines.length, 2 + 4, 'header, rule, and the four rows measured');
    assert.deepEqual(cells(lines, 'new conn p50'), [
      'new conn p50 (ms)',
      '0.07',
      '0.27',
      '0.46',
      '0.48',
      '1.04x',
      '1.78x',
      '≤ 1.15x floor met',
      '0.27',
      '0.41',
      '1.52x',
      '1.52x',
      '≤ 1.15x floor NOT met',
    ]);
    assert.equal(cells(lines, 'RSS/idle conn relay')[5], '—', 'memory has no ratio');
  });

  it('puts the TLS floor and Portal ÷ TLS floor beside the floor where measured, judging nothing by it', () => {
    const withTls: Figures = {
      ...figures,
      rtt: { ssh: 117, portal: { direct: 136 }, floor: { direct: 100 }, tlsFloor: { direct: 120 } },
    };
    const lines = table(withTls, ['direct']);
    assert.match(
      lines[0] ?? '',
      /floor direct \| TLS floor direct \| portal direct \| ÷ floor \| ÷ TLS floor \| ÷ ssh/,
    );
    assert.deepEqual(cells(lines, 'rtt p50').slice(3), [
      '100',
      '120',
      '136',
      '1.36x',
      '1.13x',
      '1.16x',
      '≤ 1.10x floor NOT met',
    ]);
    assert.equal(ratioOf(withTls.rtt, 'direct', 'tlsFloor')?.toFixed(2), '1.13');
    assert.equal(cells(table(figures, ['direct']), 'iperf3').length, 8, 'no TLS floor measured: no such columns');
  });

  it('sums up each path: the targets met of those measured, and the ones missed by name', () => {
    assert.deepEqual(summary(figures, ['relayed', 'direct']), [
      'portal relayed: 3 of 3 targets met',
      'portal direct: 1 of 2 targets met; not met: new conn p50 (ms)',
    ]);
  });
});
