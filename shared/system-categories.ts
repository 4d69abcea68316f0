/**
 * The built-in categories every client application shares (is_system_category: true), with ids
 * 1, 2, 3... in this order on every desktop (main/core/store/migrations/002-pois.ts) and on the
 * central (`system:N`, main/central/store/migrations/002-sync-identity.ts). Never reordered.
 * Those migrations keep their own copy of this list: a new category needs a migration in each
 * store (test/core/frozen-migrations.test.ts fails until the copies and this list agree again).
 */
export const SYSTEM_CATEGORIES = [
  'Restaurant',
  'Café and bar',
  'Hotel and lodging',
  'Shop',
  'Supermarket',
  'Museum',
  'Monument and landmark',
  'Park and garden',
  'Beach',
  'Viewpoint',
  'Hospital and clinic',
  'Pharmacy',
  'School and university',
  'Library',
  'Public transport stop',
  'Train station',
  'Airport',
  'Fuel station',
  'EV charging',
  'Parking',
  'Bank and ATM',
  'Post office',
  'Police',
  'Place of worship',
  'Sports facility',
  'Theatre and cinema',
  'Public toilet',
  'Drinking water',
  'Tourist information',
  'Other',
] as const;
