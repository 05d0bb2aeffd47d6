import assert from 'node:assert/strict';
import { floorTable, ratioToSsh, table, verdict, rows, type Figures } from '../../scripts/bench/report.ts';
import { joinedRegExp } from '../support/joined-regexp.ts';

const figures: Figures = {
  connect: { none: 0.07, ssh: 0.27, portal: { relayed: 0.48, direct: 0.41 }, floor: { relayed: 0.46, direct: 0.27 } },
  iperf: { none: 34, ssh: 9.8, portal: { relayed: 7, direct: 8.64 }, floor: { relayed: 7.26 } },
  rtt: { ssh: 117, portal: { relayed: 170, direct: 136 }, floor: {} },
};

describe('bench report: the table and the runtime floor beside it', () => {
  it('gives each path its ratio to ssh -L and its verdict, and the floor its own ratio', () => {
    assert.equal(ratioToSsh(figures.connect, 'direct')?.toFixed(2), '1.52');
    assert.equal(ratioToSsh(figures.connect, 'direct', 'floor')?.toFixed(2), '1.00');
    const connect = rows.find((row) => row.key === 'connect');
    assert.ok(connect);
    assert.equal(verdict(connect, figures.connect, 'relayed'), '≤ 1.5x NOT met');
    const lines = table(figures, ['relayed', 'direct']);
    assert.match(lines.find((line) => line.startsWith('new conn p50')) ?? '', /\| +1\.78x \| +1\.52x \|/);
  });

  it('lists only the rows measured through a floor, with the floor, its ratio and Portal side by side', () => {
    const lines = floorTable(figures, ['relayed', 'direct']);
    assert.equal(lines.length, 4, 'header, rule, new connection and iperf3; rtt has no floor figure');
    assert.match(
      lines[0] ?? '',
      joinedRegExp(
        /^figure +\| ssh -L \| relayed: Node\.js floor \| floor ÷ ssh \| portal relayed \| direct: /,
        /Node\.js floor \| floor ÷ ssh \| portal direct$/,
      ),
    );
    const iperf = (lines.find((line) => line.startsWith('iperf3')) ?? '').split('|').map((cell) => cell.trim());
    assert.deepEqual(iperf, ['iperf3 (Gbit/s)', '9.80', '7.26', '0.74x', '7.00', '—', '—', '8.64']);
    const connect = (lines.find((line) => line.startsWith('new conn')) ?? '').split('|').map((cell) => cell.trim());
    assert.deepEqual(connect, ['new conn p50 (ms)', '0.27', '0.46', '1.70x', '0.48', '0.27', '1.00x', '0.41']);
  });

  it('prints no floor table when no floor was measured', () => {
    assert.deepEqual(floorTable({ rtt: { ssh: 117, portal: { direct: 136 }, floor: {} } }, ['direct']), []);
  });
});
