import assert from 'node:assert/strict';
import {
  StreamState,
  acknowledges,
  endedHere,
  farewellOf,
  isPeerEvent,
  isProblem,
  transition,
  type StreamEvent,
} from '../../src/wire/mux/stream-state.ts';

const states = Object.values(StreamState);
const events: StreamEvent[] = [
  'announce',
  'accept',
  'socketEnded',
  'socketClosed',
  'socketClosedHolding',
  'drained',
  'peerAccept',
  'peerRefuse',
  'peerData',
  'peerEnd',
  'peerReset',
  'peerCredit',
];

/** The states a stream passes through from `start`, one event after another; throws at a problem. */
function walk(start: StreamState, ...path: StreamEvent[]): StreamState[] {
  const seen = [start];
  let state = start;
  for (const event of path) {
    const next = transition(state, event);
    if (isProblem(next)) throw new Error(`${state} on ${event}: ${next.problem}`);
    state = next;
    seen.push(state);
  }
  return seen;
}

/** The problem of `event` in `state` ('' when there is none). */
function problemOf(state: StreamState, event: StreamEvent): string {
  const next = transition(state, event);
  return isProblem(next) ? next.problem : '';
}

describe('stream states of the multiplexer (a pure state machine)', () => {
  it("walks an inlet's stream from its open to its end, the client ending first", () => {
    assert.deepEqual(
      walk(StreamState.unannounced, 'announce', 'socketEnded', 'peerAccept', 'peerCredit', 'peerData', 'peerEnd'),
      [
        StreamState.unannounced,
        StreamState.unanswered,
        StreamState.unansweredHalfClosedLocal,
        StreamState.halfClosedLocal,
        StreamState.halfClosedLocal,
        StreamState.halfClosedLocal,
        StreamState.closed,
      ],
    );
    assert.equal(walk(StreamState.closed, 'socketClosed').at(-1), StreamState.gone);
  });

  it("walks an outlet's stream: the client's bytes and end before the target connects, then the target's end", () => {
    assert.deepEqual(walk(StreamState.connecting, 'peerData', 'peerEnd', 'accept', 'accept', 'socketEnded'), [
      StreamState.connecting,
      StreamState.connecting,
      StreamState.connectingHalfClosedRemote,
      StreamState.halfClosedRemote,
      StreamState.halfClosedRemote,
      StreamState.closed,
    ]);
  });

  it('drains a stream whose socket closed cleanly after its end with bytes held, answered or not', () => {
    assert.deepEqual(walk(StreamState.open, 'socketEnded', 'socketClosedHolding', 'peerCredit', 'drained'), [
      StreamState.open,
      StreamState.halfClosedLocal,
      StreamState.draining,
      StreamState.draining,
      StreamState.gone,
    ]);
    assert.deepEqual(walk(StreamState.unanswered, 'socketEnded', 'socketClosedHolding', 'peerAccept', 'drained'), [
      StreamState.unanswered,
      StreamState.unansweredHalfClosedLocal,
      StreamState.unansweredDraining,
      StreamState.draining,
      StreamState.gone,
    ]);
    // A close with bytes held but no end (an abort) is no drain: the stream goes, and the peer hears a reset.
    assert.equal(walk(StreamState.open, 'socketClosedHolding').at(-1), StreamState.gone);
  });

  it('takes a peer frame the stream cannot take yet, or any more, for a violation that names it', () => {
    const cases: [StreamState, StreamEvent, string][] = [
      [StreamState.unannounced, 'peerData', 'data before its open'],
      [StreamState.unannounced, 'peerReset', 'a reset before its open'],
      [StreamState.unanswered, 'peerData', 'data before its answer'],
      [StreamState.unanswered, 'peerEnd', 'an end before its answer'],
      [StreamState.unanswered, 'peerCredit', 'credit before its answer'],
      [StreamState.open, 'peerAccept', 'a second answer'],
      [StreamState.open, 'peerRefuse', 'a refusal after its answer'],
      [StreamState.connecting, 'peerCredit', 'credit before its accept'],
      [StreamState.connectingHalfClosedRemote, 'peerData', 'data after its end'],
      [StreamState.halfClosedRemote, 'peerData', 'data after its end'],
      [StreamState.closed, 'peerEnd', 'a second end'],
    ];
    for (const [state, event, problem] of cases) assert.equal(problemOf(state, event), problem, `${state} on ${event}`);
  });

  it("takes this side's own misstep for a problem too (the session fails on it rather than go on)", () => {
    assert.equal(problemOf(StreamState.unanswered, 'announce'), 'announced twice');
    assert.equal(problemOf(StreamState.halfClosedLocal, 'socketEnded'), 'ended twice');
    assert.equal(problemOf(StreamState.unannounced, 'socketEnded'), 'an end before its open');
    assert.equal(problemOf(StreamState.connecting, 'socketEnded'), 'the target ended before it was accepted');
    assert.equal(problemOf(StreamState.unanswered, 'accept'), 'accepted by the inlet');
  });

  it('answers every state and event: a state, or a problem that says why; a reset ends any opened stream', () => {
    for (const state of states) {
      for (const event of events) {
        const next = transition(state, event);
        if (isProblem(next)) assert.ok(next.problem.length > 0, `${state} on ${event}`);
        else assert.ok(states.includes(next), `${state} on ${event} gives ${String(next)}`);
        if (!isProblem(next) && state !== StreamState.unannounced)
          assert.notEqual(next, StreamState.unannounced, 'no way back to before the open');
      }
      if (state !== StreamState.unannounced) assert.equal(transition(state, 'peerReset'), StreamState.gone, state);
      assert.equal(transition(state, 'socketClosed'), StreamState.gone, state);
    }
    for (const event of events) assert.equal(transition(StreamState.gone, event), StreamState.gone, 'gone stays gone');
    assert.deepEqual(events.filter(isPeerEvent), [
      'peerAccept',
      'peerRefuse',
      'peerData',
      'peerEnd',
      'peerReset',
      'peerCredit',
    ]);
  });

  it("reaches every state from the two starts (the inlet's and the outlet's)", () => {
    const reached = new Set<StreamState>();
    const queue: StreamState[] = [StreamState.unannounced, StreamState.connecting];
    while (queue.length > 0) {
      const state = queue.shift() as StreamState;
      if (reached.has(state)) continue;
      reached.add(state);
      for (const event of events) {
        const next = transition(state, event);
        if (!isProblem(next)) queue.push(next);
      }
    }
    assert.deepEqual([...reached].sort(), [...states].sort());
  });

  it('says what the peer hears of a stream whose socket closed', () => {
    assert.equal(farewellOf(StreamState.unannounced, false), undefined, 'the outlet never heard of it');
    assert.equal(farewellOf(StreamState.connecting, false), 'refuse', 'the target was never reached');
    assert.equal(farewellOf(StreamState.connectingHalfClosedRemote, false), 'refuse');
    assert.equal(farewellOf(StreamState.closed, false), undefined, 'both ends went: nothing to add');
    assert.equal(farewellOf(StreamState.closed, true), 'reset', 'its end never went: cut short');
    for (const state of [
      StreamState.unanswered,
      StreamState.open,
      StreamState.halfClosedLocal,
      StreamState.halfClosedRemote,
    ])
      assert.equal(farewellOf(state, false), 'reset', state);
  });

  it('says when a stream acknowledges what it receives, or has ended here', () => {
    assert.deepEqual(states.filter(acknowledges), [
      StreamState.open,
      StreamState.halfClosedLocal,
      StreamState.halfClosedRemote,
      StreamState.closed,
    ]);
    assert.deepEqual(states.filter(endedHere), [
      StreamState.unansweredHalfClosedLocal,
      StreamState.unansweredDraining,
      StreamState.halfClosedLocal,
      StreamState.closed,
      StreamState.draining,
    ]);
  });
});
