import { useState } from 'react';
import type { PoiReply } from '../../../shared/wire';
import { useCategories } from '../categories/queries';
import { ExportPois } from './ExportPois';
import { ImportPois } from './ImportPois';
import { SEARCH_PAGE, useSearch } from './queries';

interface Props {
  clientId: string;
  filter: { q: string; categories: number[] };
  onFilter: (filter: { q: string; categories: number[] }) => void;
  onPick: (poi: PoiReply) => void;
  onAddAtCentre: () => void;
}

/** Search by name and description, filter by category: the map shows only what matches. */
export function SearchPanel({ clientId, filter, onFilter, onPick, onAddAtCentre }: Props) {
  const categories = useCategories(clientId);
  const [q, setQ] = useState(filter.q);
  // The id each page starts after: a stack, so that Previous goes back exactly.
  const [pages, setPages] = useState<number[]>([]);
  const [searched, setSearched] = useState(filter);
  if (searched !== filter) {
    setSearched(filter);
    setPages([]);
    // Cleared from the map ("Show all"): the field says so too.
    if (filter.q !== q.trim()) setQ(filter.q);
  }
  const results = useSearch(clientId, filter.q, filter.categories, pages.at(-1));
  const page = results.data;
  const first = pages.length * SEARCH_PAGE + 1;
  return (
    <section className="panel">
      <h2>Points of interest</h2>
      <p className="hint">Click or tap the map to add a POI there, or:</p>
      <button type="button" onClick={onAddAtCentre}>
        Add a POI at the map centre
      </button>
      <ExportPois clientId={clientId} />
      <ImportPois clientId={clientId} />
      <form
        role="search"
        aria-label="Search POIs"
        onSubmit={(e) => {
          e.preventDefault();
          onFilter({ ...filter, q: q.trim() });
        }}
      >
        <div className="field">
          <label htmlFor="search-q">Search (name and description)</label>
          <div className="field-row">
            <input id="search-q" type="search" value={q} maxLength={200} onChange={(e) => setQ(e.target.value)} />
            <button type="submit">Find</button>
          </div>
        </div>
        <div className="field">
          <label htmlFor="search-category">Category</label>
          <select
            id="search-category"
            value={filter.categories[0] ?? ''}
            onChange={(e) => onFilter({ ...filter, q: q.trim(), categories: e.target.value ? [Number(e.target.value)] : [] })}
          >
            <option value="">Any category</option>
            {(categories.data ?? []).map((c) => (
              <option key={c.Id} value={c.Id}>
                {c.Description}
              </option>
            ))}
          </select>
        </div>
        {(filter.q || filter.categories.length > 0) && (
          <button
            type="button"
            onClick={() => {
              setQ('');
              onFilter({ q: '', categories: [] });
            }}
          >
            Clear search
          </button>
        )}
      </form>
      {page && page.total > 0 && (
        <p className="results-count" role="status">
          {first}–{first + page.pois.length - 1} of {page.total.toLocaleString('en')}
        </p>
      )}
      {page && (
        <ul className="results" aria-label="Search results">
          {page.pois.length === 0 && <li>No POI matches.</li>}
          {page.pois.map((poi) => (
            <li key={poi.id}>
              <button type="button" className="link" onClick={() => onPick(poi)}>
                {poi.name}
              </button>
              <span className="muted"> {[poi.city, poi.country].filter(Boolean).join(', ')}</span>
            </li>
          ))}
        </ul>
      )}
      {page && (pages.length > 0 || first + page.pois.length - 1 < page.total) && (
        <div className="actions" role="group" aria-label="Pages of results">
          <button type="button" disabled={pages.length === 0} onClick={() => setPages((p) => p.slice(0, -1))}>
            Previous {SEARCH_PAGE}
          </button>
          <button type="button" disabled={first + page.pois.length - 1 >= page.total} onClick={() => setPages((p) => [...p, page.pois.at(-1)!.id])}>
            Next {SEARCH_PAGE}
          </button>
        </div>
      )}
    </section>
  );
}
