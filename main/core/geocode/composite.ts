import { compactAddress, isWarmable, type GeocodedAddress, type Geocoder, type Warmable } from './geocoder.js';

/**
 * Offline first, online (when configured) to fill what the offline data cannot know.
 *
 * Which answer wins, field by field:
 * - address, cross_street, postal_code: the online answer. The offline data has no streets or
 *   postal codes, so there is nothing to weigh it against.
 * - city, country: the offline answer, unless it has none. The offline choice is deterministic
 *   (the same point always names the same city whether or not the network is up, so POIs
 *   geocoded during an outage match the others), uses one naming scheme (GeoNames names,
 *   country-coder's English country names), and names the city a person would use, where
 *   Nominatim's city/town/village may be a suburb or a village inside a metropolis.
 *   Online fills them only for points the offline data leaves blank.
 *
 * Both lookups run at once: the offline one is local and quick, and the online one is bounded
 * by its own timeout, so the caller waits for the slower of the two, never their sum.
 */
export class CompositeGeocoder implements Geocoder, Warmable {
  constructor(
    private readonly offline: Geocoder,
    private readonly online?: Geocoder,
  ) {}

  async warm(): Promise<void> {
    if (isWarmable(this.offline)) await this.offline.warm();
  }

  async reverse(lat: number, lng: number): Promise<GeocodedAddress> {
    const none: GeocodedAddress = {};
    const [local, remote] = await Promise.all([
      this.offline.reverse(lat, lng),
      // A misbehaving online provider must not cost the offline answer.
      this.online?.reverse(lat, lng).catch(() => none) ?? none,
    ]);
    return compactAddress({
      address: remote.address ?? local.address,
      cross_street: remote.cross_street ?? local.cross_street,
      postal_code: remote.postal_code ?? local.postal_code,
      city: local.city ?? remote.city,
      country: local.country ?? remote.country,
    });
  }
}
