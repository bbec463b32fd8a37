// A value that may change many times a second, passed on at most once per interval: the latest
// one, when the interval ends. The count of requests in flight changes twice per request, and
// every status bar update is a message to the workbench that the model's own round trips to it
// (and so every request's first part) would queue behind; nobody reads a count that lasted
// a few milliseconds anyway.

export class Trailing<T> {
  private latest: { value: T } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly apply: (value: T) => void, private readonly intervalMs: number) {}

  set(value: T): void {
    this.latest = { value };
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const latest = this.latest;
      this.latest = undefined;
      if (latest) this.apply(latest.value);
    }, this.intervalMs);
  }

  /** Forgets a value not passed on yet. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.latest = undefined;
  }
}
