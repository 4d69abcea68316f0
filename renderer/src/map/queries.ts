import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

/** How many names a view shows: an atlas page's worth, whatever the zoom. */
const NAMES_PER_VIEW = 12;

/** The largest places of a box, for the bundled map's names; they never change while the app runs. */
export const usePlaces = (box: { south: number; north: number; west: number; east: number }) =>
  useQuery({ queryKey: ['map.places', box], queryFn: () => call('map.places', { ...box, limit: NAMES_PER_VIEW }), staleTime: Infinity });
