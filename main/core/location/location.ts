import { isReceiver, type LocationSettings, type LocationStatus } from '../../../shared/location.js';
import type { SettingsStore } from '../settings/settings.js';
import { Receiver } from './receiver.js';

/** A receiver nobody has asked about for this long is let go: a page showing the map asks every second. */
const IDLE_MS = 60_000;

/**
 * Where "Add at my position" takes its position from (docs/field-guide.md#add-at-my-position).
 * The platform's location is read by the page itself; a receiver (NMEA over TCP, gpsd) is read
 * here, from its first status asked, and let go when no page has asked for a minute: a CLI run,
 * or a server whose pages are all closed, holds no connection to it.
 */
export class Location {
  private receiver: Receiver | undefined;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: Pick<SettingsStore, 'location' | 'setLocation'>,
    private readonly now: () => number,
  ) {}

  status(): LocationStatus {
    const settings = this.settings.location();
    return { settings, receiver: this.ensure(settings)?.status() ?? null };
  }

  configure(next: LocationSettings): LocationStatus {
    this.settings.setLocation(next);
    this.release();
    return this.status();
  }

  /** The receiver the settings name, connected if it was not; none for the other sources. */
  private ensure(settings: LocationSettings): Receiver | undefined {
    if (!isReceiver(settings.source)) {
      this.release();
      return undefined;
    }
    const a = this.receiver?.address;
    if (!a || a.source !== settings.source || a.host !== settings.host || a.port !== settings.port) {
      this.release();
      this.receiver = new Receiver({ source: settings.source, host: settings.host, port: settings.port }, this.now);
    }
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.release(), IDLE_MS);
    this.idle.unref();
    return this.receiver;
  }

  private release(): void {
    clearTimeout(this.idle);
    this.receiver?.stop();
    this.receiver = undefined;
  }

  close(): void {
    this.release();
  }
}
