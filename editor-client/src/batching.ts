// Groups the parts a model streams into `maestro/chatParts` notifications: parts that queue
// up within one turn of the event loop go out together, in order (as the headless editor does).
// Flow control (docs/protocol.md): with a window, at most that many parts are sent and not yet
// acknowledged by `maestro/chatAck`; `blocked` tells the chat to await `credit()` before it
// reads more of the model's stream.

import type { ResponsePart } from './protocol';

export type Schedule = (flush: () => void) => void;

export class PartBatcher {
  private buffer: ResponsePart[] = [];
  private scheduled = false;
  private sending: Promise<void> = Promise.resolve();
  /** Parts handed to add() (sent or about to be) and not yet acknowledged. */
  private unacked = 0;
  private wakeCredit: (() => void) | undefined;

  constructor(
    private readonly send: (parts: ResponsePart[]) => Promise<void> | void,
    private readonly schedule: Schedule = (flush) => setImmediate(flush),
    private readonly window?: number,
  ) {}

  get blocked(): boolean {
    return this.window !== undefined && this.unacked >= this.window;
  }

  /** Resolves once the server has acknowledged enough parts to send more (or at once). */
  async credit(): Promise<void> {
    void this.flush(); // what the server has not received cannot be acknowledged
    while (this.blocked) {
      await new Promise<void>((resolve) => { this.wakeCredit = resolve; });
    }
  }

  /** `maestro/chatAck`: the server consumed `parts` more parts. */
  acknowledged(parts: number): void {
    this.unacked = Math.max(0, this.unacked - parts);
    const wake = this.wakeCredit;
    this.wakeCredit = undefined;
    wake?.();
  }

  add(part: ResponsePart): void {
    this.unacked += 1;
    this.buffer.push(part);
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => void this.flush());
    }
  }

  /** Sends what is queued; resolves once every notification so far has been handed over. */
  flush(): Promise<void> {
    this.scheduled = false;
    if (this.buffer.length > 0) {
      const parts = this.buffer;
      this.buffer = [];
      // A lost connection fails the chat itself; the chain must not stop later flushes.
      this.sending = this.sending.then(() => this.send(parts)).catch(() => undefined);
    }
    return this.sending;
  }
}
