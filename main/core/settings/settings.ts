import { randomBytes } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import { CONSOLE, type WritePath } from '../store/write-path.js';
import {
  DEFAULT_TILE_ATTRIBUTION,
  DEFAULT_TILE_ATTRIBUTION_URL,
  DEFAULT_TILE_CACHE_MB,
  DEFAULT_TILE_URL,
  LISTENER_SCOPES,
  backupSettings,
  mapSettings,
  type BackupSettings,
  type ListenerScope,
  type Settings,
} from '../../../shared/contract.js';
import { DEFAULT_KEEP_DAILY } from '../../../shared/backups.js';
import { fromHtmlAttribution } from './html-credit.js';
import { corsOrigins } from '../../../shared/cors.js';
import { faultRule, faultRules } from '../../../shared/faults.js';
import { DEFAULT_LOCATION, locationSettings, type LocationSettings } from '../../../shared/location.js';

export interface ListenerSettings {
  enabled: boolean;
  port: number;
  scope: ListenerScope;
  /** Origins allowed to call the API from a browser (shared/cors.ts); absent in a configure: kept as saved. */
  corsOrigins?: string[];
  /** Also serve over HTTPS on this port; null or absent: HTTP only. */
  httpsPort?: number | null;
  /** Fault rules on purpose, as written (shared/faults.ts); absent in a configure: kept as saved. */
  faults?: string[];
}

const DEFAULT_MAP: Settings = {
  tileUrl: DEFAULT_TILE_URL,
  tileAttribution: DEFAULT_TILE_ATTRIBUTION,
  tileAttributionUrl: DEFAULT_TILE_ATTRIBUTION_URL,
  tileCacheMb: DEFAULT_TILE_CACHE_MB,
};

const DEFAULT_LISTENER: ListenerSettings = { enabled: false, port: 8080, scope: 'local' };

/** A listener's name on the local network: `poi-` and six hex digits, drawn once per data folder. */
const LOCAL_NAME = /^poi-[0-9a-f]{6}$/;

const schemas = {
  map: mapSettings,
  backups: backupSettings,
  // Settings saved before CORS, HTTPS or fault rules existed read as no origins, HTTP only and
  // no faults, not as invalid.
  listener: z.object({
    enabled: z.boolean(),
    port: z.number().int().min(1).max(65535),
    scope: z.enum(LISTENER_SCOPES),
    corsOrigins: corsOrigins.default([]),
    // Absent (settings saved before HTTPS existed, or HTTPS off): HTTP only.
    httpsPort: z.number().int().min(1).max(65535).optional(),
    faults: faultRules.default([]),
  }),
  localName: z.string().regex(LOCAL_NAME),
  location: locationSettings,
};

/** Leaves out the saved fault rules this version cannot read (an operation since renamed), so that they alone are lost. */
function readableFaults(stored: unknown): unknown {
  if (typeof stored !== 'object' || stored === null || !('faults' in stored) || !Array.isArray(stored.faults)) return stored;
  return { ...stored, faults: stored.faults.filter((rule: unknown) => faultRule.safeParse(rule).success) };
}

/**
 * Settings kept in the database, next to the data they describe. A stored value that no longer
 * passes its schema (written by hand, or by an older version) falls back to the default.
 */
export class SettingsStore {
  private readonly read: Statement<[string], { value: string }>;
  private readonly write: Statement;

  /** Settings are the operator's: every change is the console's. */
  constructor(
    db: Database,
    private readonly writes: WritePath,
  ) {
    this.read = db.prepare('SELECT value FROM settings WHERE key = ?');
    this.write = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  }

  /** `upgrade` turns what an older version stored into today's shape, before the schema checks it. */
  private get<T>(key: string, schema: z.ZodType<T>, fallback: T, upgrade: (stored: unknown) => unknown = (v) => v): T {
    const row = this.read.get(key);
    if (!row) return fallback;
    const parsed = schema.safeParse(upgrade(JSON.parse(row.value)));
    return parsed.success ? parsed.data : fallback;
  }

  map(): Settings {
    return this.get('map', schemas.map, DEFAULT_MAP, fromHtmlAttribution);
  }

  setMap(settings: z.input<typeof mapSettings>): Settings {
    const value = JSON.stringify(schemas.map.parse(settings));
    this.writes.now(CONSOLE, () => this.write.run('map', value));
    return this.map();
  }

  /** Stored apart from the map's, so that settings saved before backups existed read as they were. */
  backups(): BackupSettings {
    return this.get('backups', schemas.backups, { keepDaily: DEFAULT_KEEP_DAILY });
  }

  setBackups(settings: z.input<typeof backupSettings>): BackupSettings {
    const value = JSON.stringify(schemas.backups.parse(settings));
    this.writes.now(CONSOLE, () => this.write.run('backups', value));
    return this.backups();
  }

  listener(): ListenerSettings {
    return this.get('listener', schemas.listener, DEFAULT_LISTENER, readableFaults);
  }

  setListener({ httpsPort, ...rest }: ListenerSettings): void {
    const value = JSON.stringify(schemas.listener.parse(httpsPort === null || httpsPort === undefined ? rest : { ...rest, httpsPort }));
    this.writes.now(CONSOLE, () => this.write.run('listener', value));
  }

  /** Where "Add at my position" takes its position from (location/location.ts). */
  location(): LocationSettings {
    return this.get('location', schemas.location, DEFAULT_LOCATION);
  }

  setLocation(settings: z.input<typeof locationSettings>): LocationSettings {
    const value = JSON.stringify(schemas.location.parse(settings));
    this.writes.now(CONSOLE, () => this.write.run('location', value));
    return this.location();
  }

  /**
   * The listener's stable name on the local network (`NAME.local`, docs/devices.md#a-stable-name):
   * drawn at its first use and kept, so that it stays while the computer's addresses change.
   * Random rather than the host name, which the system's own responder already answers for.
   */
  localName(): string {
    const kept = this.get<string | undefined>('localName', schemas.localName, undefined);
    if (kept !== undefined) return kept;
    const drawn = `poi-${randomBytes(3).toString('hex')}`;
    this.writes.now(CONSOLE, () => this.write.run('localName', JSON.stringify(drawn)));
    return drawn;
  }
}
