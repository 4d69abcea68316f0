import type { ReactNode } from 'react';
import { ActivityPanel } from './activity/ActivityPanel';
import { BackupsPanel } from './backups/BackupsPanel';
import { CategoriesPanel } from './categories/CategoriesPanel';
import { ClientsPanel } from './clients/ClientsPanel';
import { DuplicatesPanel } from './duplicates/DuplicatesPanel';
import { ListenerPanel } from './listener/ListenerPanel';
import { MembersPanel } from './members/MembersPanel';
import type { PoiReply } from '../../shared/wire';
import { SearchPanel } from './pois/SearchPanel';
import { ReportsPanel } from './reports/ReportsPanel';
import { RequestsPanel } from './inspector/RequestsPanel';
import { SettingsPanel } from './settings/SettingsPanel';
import { SyncPanel } from './sync/SyncPanel';

/** What a tab's panel is given by the app: the client shown, and the ways to move elsewhere. */
export interface PanelContext {
  clientId: string;
  /** The client the app shows, or none yet (only panels that need none are shown then). */
  selectClient: (id: string) => void;
  selected: string | undefined;
  openPoi: (poi: number) => void;
  search: {
    filter: { q: string; categories: number[] };
    onFilter: (filter: { q: string; categories: number[] }) => void;
    onPick: (poi: PoiReply) => void;
    onAddAtCentre: () => void;
  };
}

interface TabPanel {
  label: string;
  /** Shown only once a client application is chosen (its data is the client's). */
  needsClient: boolean;
  render: (context: PanelContext) => ReactNode;
}

/**
 * The tab bar's panels, in its order: each one's label, whether it needs a client, and what it
 * shows. The tab bar, the side panel and the "no client yet" notice all derive from this.
 */
export const TAB_PANELS = {
  search: { label: 'Search', needsClient: true, render: (c) => <SearchPanel clientId={c.clientId} {...c.search} /> },
  reports: { label: 'Reports', needsClient: true, render: (c) => <ReportsPanel clientId={c.clientId} onOpen={c.openPoi} /> },
  activity: { label: 'Activity', needsClient: true, render: (c) => <ActivityPanel clientId={c.clientId} onOpen={c.openPoi} /> },
  duplicates: { label: 'Duplicates', needsClient: true, render: (c) => <DuplicatesPanel clientId={c.clientId} onOpen={c.openPoi} /> },
  members: { label: 'Members', needsClient: true, render: (c) => <MembersPanel clientId={c.clientId} /> },
  categories: { label: 'Categories', needsClient: true, render: (c) => <CategoriesPanel clientId={c.clientId} /> },
  clients: { label: 'Client applications', needsClient: false, render: (c) => <ClientsPanel selected={c.selected} onSelect={c.selectClient} /> },
  listener: { label: 'Listener', needsClient: false, render: (c) => <ListenerPanel clientId={c.selected} /> },
  requests: { label: 'Requests', needsClient: false, render: () => <RequestsPanel /> },
  settings: { label: 'Settings', needsClient: false, render: () => <SettingsPanel /> },
  backups: { label: 'Backups', needsClient: false, render: () => <BackupsPanel /> },
  sync: { label: 'Sync', needsClient: false, render: () => <SyncPanel /> },
} as const satisfies Record<string, TabPanel>;

export type TabKind = keyof typeof TAB_PANELS;
export const isTab = (kind: string): kind is TabKind => kind in TAB_PANELS;
/** The tabs in the tab bar's order (the registry's). */
export const TAB_KINDS: readonly TabKind[] = Object.keys(TAB_PANELS).filter(isTab);
