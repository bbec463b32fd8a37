// Reads today's usage from the endpoint for the status bar: at once when the endpoint is up,
// then every 30 s while it runs; nothing while it is stopped or failed.

import * as vscode from 'vscode';
import type { Controller } from './controller';
import { endpointUrlOf, type BridgeState } from './convert';
import type { Logger } from './logging';
import type { StatusItem } from './status';
import { parseUsage, todayUsageUrl, type TodayUsage } from './usageStatus';

const INTERVAL_MS = 30_000;
const TIMEOUT_MS = 5_000;

export class UsageWatch implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private url: string | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly controller: Controller,
    private readonly status: StatusItem,
    private readonly log: Logger,
  ) {
    this.subscription = controller.onDidChangeState((state) => this.follow(state));
    this.follow(controller.state);
  }

  private follow(state: BridgeState): void {
    const url = endpointUrlOf(state);
    if (url === this.url) return; // in-flight counts change the state, not the endpoint
    this.stop();
    this.url = url;
    this.status.showUsage(undefined);
    if (!url) return;
    void this.read(url);
    this.timer = setInterval(() => void this.read(url), INTERVAL_MS);
  }

  private async read(url: string): Promise<void> {
    const usage = await this.fetchToday(url);
    if (url === this.url) this.status.showUsage(usage);
  }

  private async fetchToday(url: string): Promise<TodayUsage | undefined> {
    const key = this.controller.settings.apiKey;
    try {
      const response = await fetch(todayUsageUrl(url), {
        headers: key ? { Authorization: `Bearer ${key}` } : {},
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (!response.ok) {
        // 404 usage_off: the ledger is off; the tooltip then says nothing of usage.
        this.log.debug(`GET /v1/usage: HTTP ${response.status}`);
        return undefined;
      }
      return parseUsage(await response.json());
    } catch (err) {
      this.log.debug(`GET /v1/usage: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.stop();
    this.url = undefined;
    this.subscription.dispose();
  }
}
