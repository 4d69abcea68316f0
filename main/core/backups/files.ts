import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupInfo, BackupKind } from '../../../shared/backups.js';

/** Why each backup was taken: its name says so, and only the daily ones are pruned. */
const BACKUP_KINDS = ['manual', 'daily', 'before-restore'] as const satisfies readonly BackupKind[];

/** `poi-daily-2026-01-15T12-00-00-000Z.sqlite`: the kind, then the UTC time it was taken. */
const NAME = /^poi-(manual|daily|before-restore)-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z(?:-(\d+))?\.sqlite$/;

export const isBackupName = (name: string): boolean => NAME.test(name);

/** A name for a backup of this kind taken at `now`; `n` tells apart two taken in the same millisecond. */
export function backupName(kind: BackupKind, now: number, n = 0): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  return `poi-${kind}-${stamp}${n > 0 ? `-${n}` : ''}.sqlite`;
}

function parse(name: string): { kind: BackupKind; takenAt: string; seq: number } | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const [, kind, day, h, min, s, ms, n] = m;
  const found = BACKUP_KINDS.find((k) => k === kind);
  if (found === undefined) return undefined;
  return { kind: found, takenAt: `${day}T${h}:${min}:${s}.${ms}Z`, seq: Number(n ?? 0) };
}

/** Creates the backups folder private (0700), or tightens an existing one. */
export function ensureFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** The backups in the folder, newest first (by the time in their names, not the file's mtime). */
export function listBackups(dir: string | undefined): BackupInfo[] {
  if (dir === undefined || !existsSync(dir)) return [];
  const found: Array<BackupInfo & { seq: number }> = [];
  for (const name of readdirSync(dir)) {
    const parsed = parse(name);
    if (!parsed) continue;
    found.push({ name, kind: parsed.kind, takenAt: parsed.takenAt, bytes: statSync(join(dir, name)).size, seq: parsed.seq });
  }
  found.sort((a, b) => b.takenAt.localeCompare(a.takenAt) || b.seq - a.seq);
  return found.map(({ seq: _seq, ...info }) => info);
}
