import { updatePoiInput } from '../../../shared/schemas/pois.js';
import type { OpenReport } from '../../../shared/contract.js';
import type { PoiReply } from '../../../shared/wire.js';
import { ServiceError, validate } from '../errors.js';
import type { Services } from '../services.js';

const noReport = (id: number): ServiceError => new ServiceError('NOT_FOUND', `no open report ${id} in this client application`, 'warning');

/** The client's open reports, oldest first: the ones waiting longest are handled first. */
export function openReports(s: Services, clientId: string): OpenReport[] {
  const reports = s.warnings.list(clientId, undefined, undefined).sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.id - b.id);
  // People read a reporter by name, not by member id.
  const nameOf = s.db.prepare<[string, string], string>('SELECT username FROM members WHERE id = ? AND client_id = ?').pluck();
  const names = new Map<string, string | null>();
  return reports.map((r) => {
    if (r.user_id && !names.has(r.user_id)) names.set(r.user_id, nameOf.get(r.user_id, clientId) ?? null);
    return { ...r, reporter: r.user_id ? (names.get(r.user_id) ?? null) : null };
  });
}

/**
 * Applies a WRONG_INFO or WRONG_INDICATOR report: its proposal (only the fields the reporter
 * gave) is written as an update of the POI, by the same rules and write path as any update, and
 * the report is closed. A proposal the rules refuse (a category deleted since) leaves the report open.
 */
export async function applyReport(s: Services, clientId: string, id: number): Promise<PoiReply> {
  const row = s.warnings.row(clientId, id);
  if (!row) throw noReport(id);
  if (row.type !== 'WRONG_INFO' && row.type !== 'WRONG_INDICATOR') {
    throw new ServiceError('INVALID_PARAMETER', `a ${row.type} report proposes no values: delete the POI, or dismiss the report`, 'warning');
  }
  const proposal = row.data === null ? {} : (JSON.parse(row.data) as Record<string, unknown>);
  const input = validate(updatePoiInput, { ...proposal, poi: row.poi_id, geocode: false });
  const updated = await s.pois.update(clientId, input);
  s.warnings.close(id);
  return updated;
}

/** Closes a report without changing its POI. */
export function dismissReport(s: Services, clientId: string, id: number): void {
  if (!s.warnings.row(clientId, id) || !s.warnings.close(id)) throw noReport(id);
}
