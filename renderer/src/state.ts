import type { Fix } from '../../shared/location';
import type { TabKind } from './panels';

/** What the side panel shows: a POI's details or form, or one of the tab bar's panels (panels.tsx). */
export type Panel =
  /** `byKeyboard`: opened from the panel (add at the centre), so focus goes to the form. */
  | { kind: 'poi-add'; lat: number; lng: number; byKeyboard?: boolean; taken?: { fix: Fix; from: string } }
  /** Add at my position, waiting for a fix good enough to take (location/PositionWait.tsx). */
  | { kind: 'poi-here' }
  /** `focusTitle`: just saved by the form, or opened from the keyboard, so focus goes to its name. */
  | { kind: 'poi'; poi: number; focusTitle?: boolean | undefined }
  | { kind: 'poi-edit'; poi: number }
  | { kind: TabKind };

const CLIENT_KEY = 'poi-admin.client';

export const rememberedClient = (): string | undefined => localStorage.getItem(CLIENT_KEY) ?? undefined;
export const rememberClient = (clientId: string): void => localStorage.setItem(CLIENT_KEY, clientId);
