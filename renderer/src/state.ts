/** What the side panel shows. */
export type Panel =
  /** `byKeyboard`: opened from the panel (add at the centre), so focus goes to the form. */
  | { kind: 'poi-add'; lat: number; lng: number; byKeyboard?: boolean }
  /** `saved`: just saved by the form, so focus goes to the result. */
  | { kind: 'poi'; poi: number; saved?: boolean }
  | { kind: 'poi-edit'; poi: number }
  | { kind: 'search' }
  | { kind: 'reports' }
  | { kind: 'activity' }
  | { kind: 'duplicates' }
  | { kind: 'members' }
  | { kind: 'categories' }
  | { kind: 'clients' }
  | { kind: 'listener' }
  | { kind: 'settings' }
  | { kind: 'backups' }
  | { kind: 'sync' };

export type PanelKind = Panel['kind'];

const CLIENT_KEY = 'poi-admin.client';

export const rememberedClient = (): string | undefined => localStorage.getItem(CLIENT_KEY) ?? undefined;
export const rememberClient = (clientId: string): void => localStorage.setItem(CLIENT_KEY, clientId);
