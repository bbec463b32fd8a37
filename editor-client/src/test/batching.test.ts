import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PartBatcher } from '../batching';
import type { ResponsePart } from '../protocol';

const text = (value: string): ResponsePart => ({ type: 'text', value });

describe('PartBatcher', () => {
  it('sends parts queued in one loop turn as one notification, in order', async () => {
    const sent: ResponsePart[][] = [];
    const batcher = new PartBatcher((parts) => { sent.push(parts); });
    batcher.add(text('a'));
    batcher.add(text('b'));
    await new Promise((r) => setImmediate(r));
    batcher.add(text('c'));
    await batcher.flush();
    assert.deepEqual(sent, [[text('a'), text('b')], [text('c')]]);
  });

  it('flush waits for notifications still being sent, and sends nothing when empty', async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const slow = new Promise<void>((r) => { release = r; });
    const batcher = new PartBatcher(async (parts) => {
      if (parts[0]?.type === 'text' && parts[0].value === 'first') await slow;
      order.push(parts.map((p) => (p.type === 'text' ? p.value : p.type)).join(','));
    }, () => undefined /* never flush by itself */);
    batcher.add(text('first'));
    void batcher.flush();
    batcher.add(text('second'));
    const done = batcher.flush().then(() => order.push('flushed'));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, []);
    release();
    await done;
    assert.deepEqual(order, ['first', 'second', 'flushed']);
    await batcher.flush();
    assert.equal(order.length, 3);
  });

  it('a failed send does not stop later parts', async () => {
    const sent: string[] = [];
    let fail = true;
    const batcher = new PartBatcher((parts) => {
      if (fail) { fail = false; throw new Error('pipe closed'); }
      sent.push(parts.map((p) => (p.type === 'text' ? p.value : '')).join());
    }, () => undefined);
    batcher.add(text('lost'));
    await batcher.flush();
    batcher.add(text('kept'));
    await batcher.flush();
    assert.deepEqual(sent, ['kept']);
  });
});

describe('PartBatcher flow control', () => {
  it('blocks at the window, flushes, and resumes when the server acknowledges', async () => {
    const sent: ResponsePart[][] = [];
    const batcher = new PartBatcher((parts) => { sent.push(parts); }, () => undefined, 3);
    batcher.add(text('a'));
    batcher.add(text('b'));
    assert.equal(batcher.blocked, false);
    batcher.add(text('c'));
    assert.equal(batcher.blocked, true);
    let resumed = false;
    const waiting = batcher.credit().then(() => { resumed = true; });
    await new Promise((r) => setImmediate(r));
    assert.equal(resumed, false);
    assert.deepEqual(sent, [[text('a'), text('b'), text('c')]]); // sent before waiting
    batcher.acknowledged(2);
    await waiting;
    assert.equal(resumed, true);
    assert.equal(batcher.blocked, false);
  });

  it('never blocks without a window (an older server)', async () => {
    const batcher = new PartBatcher(() => undefined, () => undefined);
    for (let i = 0; i < 10_000; i += 1) batcher.add(text('w'));
    assert.equal(batcher.blocked, false);
    await batcher.credit();
  });
});
