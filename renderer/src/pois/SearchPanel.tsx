import { useState } from 'react';
import type { PoiReply } from '../../../shared/wire';
import { useCategories } from '../categories/queries';
import { ExportPois } from './ExportPois';
import { ImportPois } from './ImportPois';
import { useSearch } from './queries';

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
  const results = useSearch(clientId, filter.q, filter.categories);
  return (
    <section className="panel">
      <h2>Points of interest</h2>
      <p className="hint">Click the map to add a POI there, or:</p>
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
      {results.data && (
        <ul className="results" aria-label="Search results">
          {results.data.length === 0 && <li>No POI matches.</li>}
          {results.data.map((poi) => (
            <li key={poi.id}>
              <button type="button" className="link" onClick={() => onPick(poi)}>
                {poi.name}
              </button>
              <span className="muted"> {[poi.city, poi.country].filter(Boolean).join(', ')}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
