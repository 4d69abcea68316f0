import { useQuery } from '@tanstack/react-query';
import { isReceiver } from '../../../shared/location';
import { call } from '../transport';

export const locationKeys = { status: ['location'] as const };

/** How often a receiver's state is asked while it is the source (it sends about once a second). */
const RECEIVER_POLL_MS = 1_000;

/** The location setting, and a receiver's state, asked every second while a receiver is the source. */
export const useLocationStatus = () =>
  useQuery({
    queryKey: locationKeys.status,
    queryFn: () => call('location.status', {}),
    refetchInterval: (query) => (query.state.data && isReceiver(query.state.data.settings.source) ? RECEIVER_POLL_MS : false),
  });
