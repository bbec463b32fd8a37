import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Trailing } from '../throttle';

describe('Trailing', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('passes on only the latest value, once the interval ends', () => {
    const seen: number[] = [];
    const counts = new Trailing<number>((n) => seen.push(n), 200);
    counts.set(1);
    counts.set(0);
    counts.set(1);
    mock.timers.tick(199);
    assert.deepEqual(seen, []);
    mock.timers.tick(1);
    assert.deepEqual(seen, [1]);
  });

  it('starts a new interval with the next value, and passes on nothing without one', () => {
    const seen: number[] = [];
    const counts = new Trailing<number>((n) => seen.push(n), 200);
    counts.set(2);
    mock.timers.tick(200);
    mock.timers.tick(1000);
    assert.deepEqual(seen, [2]);
    counts.set(0);
    mock.timers.tick(200);
    assert.deepEqual(seen, [2, 0]);
  });

  it('forgets a pending value when cancelled', () => {
    const seen: number[] = [];
    const counts = new Trailing<number>((n) => seen.push(n), 200);
    counts.set(3);
    counts.cancel();
    mock.timers.tick(500);
    assert.deepEqual(seen, []);
    counts.set(4);
    mock.timers.tick(200);
    assert.deepEqual(seen, [4]);
  });
});
