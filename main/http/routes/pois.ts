import { OPTIONAL_TEXT_FIELDS, NUMBER_FIELDS } from '../../../shared/schemas/pois.js';
import type { Core } from '../../core/service.js';
import type { Credential } from '../../core/tokens.js';
import type { WireParams } from '../params.js';
import { getOrPost, type Route } from '../router.js';

const token = (p: WireParams): Credential => p.principal ?? p.text('access_token');

/** The optional POI fields as update understands them: absent unchanged, empty null. */
function optionalFields(p: WireParams) {
  const out: Record<string, string | number | null | undefined> = {};
  for (const f of OPTIONAL_TEXT_FIELDS) out[f] = p.nullableText(f);
  for (const f of NUMBER_FIELDS) out[f] = p.nullableDecimal(f);
  return out;
}

function poiFields(p: WireParams) {
  return {
    ...optionalFields(p),
    lat: p.nullableDecimal('lat'),
    lng: p.nullableDecimal('lng'),
    name: p.nullableText('name'),
    categories: p.idList('categories'),
    geocode: p.boolean('geocode'),
  };
}

/** An empty filter value means "no filter". */
const filterIds = (p: WireParams, name: string): number[] | undefined => p.idList(name) ?? undefined;

/** POIs, categories and warnings below /1/pois/ (spec 4.1/4.2 and api-extensions.md). */
export function poiRoutes(core: Core): Route[] {
  const api = core.poiApi;
  const routes: Route[] = [
    { path: /^pois\/add$/, methods: getOrPost(({ params: p }) => api.add(token(p), poiFields(p))) },
    {
      path: /^pois\/update$/,
      methods: getOrPost(({ params: p }) => api.update(token(p), { ...poiFields(p), poi: p.integer('poi') })),
    },
    { path: /^pois\/get$/,
      read: true, methods: getOrPost(({ params: p }) => api.get(token(p), { poi: p.integer('poi') })) },
    {
      path: /^pois\/get_near$/,
      read: true,
      heavy: true,
      methods: getOrPost(({ params: p }) =>
        api.near(token(p), {
          lat: p.decimal('lat'),
          lng: p.decimal('lng'),
          radius: p.decimal('radius'),
          categories: filterIds(p, 'categories'),
          total: p.integer('total'),
        }),
      ),
    },
    {
      path: /^pois\/get_where$/,
      read: true,
      heavy: true,
      methods: getOrPost(({ params: p }) =>
        api.where(token(p), {
          categories: filterIds(p, 'categories'),
          pois: filterIds(p, 'pois'),
          city: p.text('city'),
          country: p.text('country'),
          postal_code: p.text('postal_code'),
          q: p.text('q'),
          total: p.integer('total'),
        }),
      ),
    },
    {
      path: /^pois\/history$/,
      read: true,
      methods: getOrPost(({ params: p }) => api.history(token(p), { poi: p.integer('poi') })),
    },
    { path: /^pois\/delete$/, methods: getOrPost(({ params: p }) => api.remove(token(p), { poi: p.integer('poi') })) },
    {
      path: /^pois\/categories$/,
      read: true,
      methods: getOrPost(({ params: p }) => api.listCategories(token(p), p.boolean('include_system_categories'))),
    },
    { path: /^pois\/categories\/add$/, methods: getOrPost(({ params: p }) => api.addCategory(token(p), p.nullableText('desc'))) },
    {
      path: /^pois\/categories\/update$/,
      methods: getOrPost(({ params: p }) =>
        api.updateCategory(token(p), { category: p.integer('category'), desc: p.nullableText('desc') }),
      ),
    },
    {
      path: /^pois\/categories\/delete$/,
      methods: getOrPost(({ params: p }) => api.removeCategory(token(p), { category: p.integer('category') })),
    },
    {
      path: /^pois\/warnings$/,
      read: true,
      heavy: true,
      methods: getOrPost(({ params: p }) => api.listWarnings(token(p), { pois: filterIds(p, 'poi'), type: p.text('type') })),
    },
    {
      path: /^pois\/warnings\/add$/,
      methods: getOrPost(({ params: p }) =>
        api.addWarning(token(p), { ...poiFields(p), poi: p.integer('poi'), type: p.raw('type') }),
      ),
    },
    {
      path: /^pois\/warnings\/delete$/,
      methods: getOrPost(({ params: p }) => api.removeWarnings(token(p), { poi: p.idList('poi') ?? undefined, type: p.text('type') })),
    },
  ];
  return routes.map((route) => ({ ...route, token: true }));
}
