// Groups the parts a model streams into `maestro/chatParts` notifications: parts that queue
// up within one turn of the event loop go out together, in order (as the headless editor does).

import type { ResponsePart } from './protocol';

export type Schedule = (flush: () => void) => void;

export class PartBatcher {
  private buffer: ResponsePart[] = [];
  private scheduled = false;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly send: (parts: ResponsePart[]) => Promise<void> | void,
    private readonly schedule: Schedule = (flush) => setImmediate(flush),
  ) {}

  add(part: ResponsePart): void {
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
