/** Wrong credentials one address may send in a window before it waits: far more than a typo, far fewer than a guess. */
export const MAX_FAILED_AUTHENTICATIONS = 20;
const FAILURE_WINDOW_MS = 60_000;
/** Addresses remembered at most: a flood from many addresses cannot grow the table without bound. */
const MAX_ADDRESSES = 10_000;

/**
 * Failed device credentials per address, in a sliding window: past the limit, the address is
 * refused (429, with Retry-After) before its credential is even looked at, until the window
 * slides. In memory, per instance of the service: a guess costs the guesser, not the database.
 */
export class FailedAuthentications {
  private readonly byAddress = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds this address must wait, 0 when it may try. */
  waitFor(address: string): number {
    const recent = this.recent(address);
    if (recent.length < MAX_FAILED_AUTHENTICATIONS) return 0;
    return Math.max(1, Math.ceil((recent[0]! + FAILURE_WINDOW_MS - this.now()) / 1000));
  }

  failed(address: string): void {
    if (!this.byAddress.has(address) && this.byAddress.size >= MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
    this.byAddress.set(address, [...this.recent(address), this.now()]);
  }

  private recent(address: string): number[] {
    const since = this.now() - FAILURE_WINDOW_MS;
    const kept = (this.byAddress.get(address) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.byAddress.delete(address);
    else this.byAddress.set(address, kept);
    return kept;
  }
}
