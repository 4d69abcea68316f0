import { compactSourced, isWarmable, sourcedBy, type AddressSources, type GeocodedAddress, type Geocoder, type SourcedAddress, type SourcedGeocoder, type Warmable } from './geocoder.js';
import { foldText } from '../../../shared/text-fold.js';
import { NOMINATIM_SOURCE } from './nominatim.js';
import { OFFLINE_SOURCE } from './offline.js';

const words = (text: string): string[] => foldText(text).split(/[^\p{L}\p{N}]+/u);

/**
 * Whether an address names a road, by the road's longest word ("ashbury" of "Ashbury St",
 * "alcala" of "Calle de Alcalá"): sources abbreviate differently ("St", "Street").
 */
const names = (address: string, road: string): boolean => {
  const word = words(road).reduce((longest, w) => (w.length > longest.length ? w : longest), '');
  return word !== '' && words(address).includes(word);
};

/**
 * Offline first, online (when configured) to fill what the offline data cannot know, and the
 * offline map packages' streets where online gives nothing.
 *
 * Which answer wins, field by field:
 * - address, cross_street, postal_code: the online answer; where there is none (no server
 *   configured, or it timed out, failed or had nothing for that field), the map packages'
 *   (streets.ts). The places data has no streets or postal codes.
 * - city, country: the offline places' answer, unless it has none. The offline choice is deterministic
 *   (the same point always names the same city whether or not the network is up, so POIs
 *   geocoded during an outage match the others), uses one naming scheme (GeoNames names,
 *   country-coder's English country names), and names the city a person would use, where
 *   Nominatim's city/town/village may be a suburb or a village inside a metropolis.
 *   Online fills them only for points the offline data leaves blank, then a map package's place
 *   (a city only: packages name no countries).
 *
 * All lookups run at once: the offline ones are local and quick, and the online one is bounded
 * by its own timeout, so the caller waits for the slowest of them, never their sum.
 */
export class CompositeGeocoder implements SourcedGeocoder, Warmable {
  constructor(
    private readonly offline: Geocoder,
    private readonly online?: Geocoder,
    private readonly streets?: SourcedGeocoder,
  ) {}

  async warm(): Promise<void> {
    if (isWarmable(this.offline)) await this.offline.warm();
  }

  async reverse(lat: number, lng: number): Promise<GeocodedAddress> {
    return (await this.reverseSourced(lat, lng)).fields;
  }

  async reverseSourced(lat: number, lng: number): Promise<SourcedAddress> {
    const none: SourcedAddress = { fields: {}, sources: {} };
    const [local, remote, streets] = await Promise.all([
      this.offline.reverse(lat, lng).then((fields) => sourcedBy(fields, OFFLINE_SOURCE)),
      // A misbehaving online provider must not cost the offline answer.
      this.online?.reverse(lat, lng).then(
        (fields) => sourcedBy(fields, NOMINATIM_SOURCE),
        () => none,
      ) ?? none,
      // Nor a map package the street reader chokes on.
      this.streets?.reverseSourced(lat, lng).catch(() => none) ?? none,
    ]);
    const fields: GeocodedAddress = {};
    const sources: AddressSources = {};
    const take = (key: keyof GeocodedAddress, ...order: SourcedAddress[]): SourcedAddress | undefined => {
      const from = order.find((answer) => answer.fields[key] !== undefined);
      if (from === undefined) return undefined;
      fields[key] = from.fields[key];
      const source = from.sources[key];
      if (source !== undefined) sources[key] = source;
      return from;
    };
    const address = take('address', remote, streets, local);
    // The packages' cross street is their second road; beside another source's address it is
    // their nearest road that the address does not name ("710 Ashbury Street" at Haight and
    // Ashbury: Haight St, not Ashbury St).
    const cross = address !== streets && fields.address !== undefined && remote.fields.cross_street === undefined ? streets.roads?.find((road) => !names(fields.address!, road.name)) : undefined;
    if (cross === undefined) take('cross_street', remote, streets, local);
    else {
      fields.cross_street = cross.name;
      sources.cross_street = cross.source;
    }
    take('postal_code', remote, streets, local);
    take('city', local, remote, streets);
    take('country', local, remote, streets);
    return compactSourced({ fields, sources });
  }
}
