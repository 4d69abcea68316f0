import '../ui/panels.css';
import './inspector.css';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { InspectedBody, RequestSummary } from '../../../shared/inspector';
import { Checkbox } from '../ui/Checkbox';
import { CopyButton } from '../ui/CopyButton';
import { FormError } from '../ui/Field';
import { useConfirm } from '../ui/Confirm';
import { useClearRequests, useConfigureInspector, useReplay, useSaveRequests } from './mutations';
import { useCurl, useRequestDetail, useRequestFeed } from './queries';

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
type StatusClass = (typeof STATUS_CLASSES)[number];
const classOf = (status: number): StatusClass | undefined => STATUS_CLASSES.find((c) => c[0] === String(status)[0]);

interface Filters {
  status: StatusClass | '';
  operation: string;
  address: string;
  text: string;
}
const NO_FILTER: Filters = { status: '', operation: '', address: '', text: '' };

const clock = (iso: string): string => new Date(iso).toLocaleTimeString('en-GB', { hour12: false });
const describe = (r: RequestSummary): string => `${r.method} ${r.path}, ${r.status}, ${r.ms} ms, from ${r.address}, ${r.caller}`;

const matches = (r: RequestSummary, f: Filters): boolean => {
  if (f.status && classOf(r.status) !== f.status) return false;
  if (f.operation && r.operation !== f.operation) return false;
  if (f.address && r.address !== f.address) return false;
  const text = f.text.trim().toLowerCase();
  return text === '' || [r.method, r.path, r.operation ?? '', r.address, String(r.status), r.caller].some((s) => s.toLowerCase().includes(text));
};

/**
 * The listener's requests as they arrive (docs/devices.md#request-inspector): a list, newest
 * first, with filters; one opened shows its headers and bodies, secrets masked, its curl command
 * and a Replay.
 */
export function RequestsPanel() {
  const titleId = useId();
  const feed = useRequestFeed();
  const clear = useClearRequests();
  const configure = useConfigureInspector();
  const save = useSaveRequests();
  const [filters, setFilters] = useState<Filters>(NO_FILTER);
  const [open, setOpen] = useState<number | undefined>();
  const rows = useRef(new Map<number, HTMLButtonElement>());
  const back = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (open !== undefined || back.current === undefined) return;
    rows.current.get(back.current)?.focus();
    back.current = undefined;
  }, [open]);
  const shown = useMemo(() => feed.entries.filter((r) => matches(r, filters)), [feed.entries, filters]);
  const operations = useMemo(() => [...new Set(feed.entries.map((r) => r.operation).filter((o) => o !== null))].sort(), [feed.entries]);
  const addresses = useMemo(() => [...new Set(feed.entries.map((r) => r.address))].sort(), [feed.entries]);
  const set = (change: Partial<Filters>) => setFilters((f) => ({ ...f, ...change }));

  if (open !== undefined) {
    return (
      <RequestDetailView
        id={open}
        onBack={() => {
          back.current = open;
          setOpen(undefined);
        }}
      />
    );
  }
  return (
    <section className="panel admin-panel requests-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Requests</h2>
      <p className="note">The API listener's last requests, as they arrive. Passwords, tokens and keys are masked.</p>
      <div className="actions">
        <Checkbox
          label="Keep requests"
          checked={feed.enabled}
          disabled={configure.isPending}
          onChange={(enabled) => configure.mutate({ enabled }, { onSuccess: () => feed.reset() })}
        />
        <button type="button" disabled={clear.isPending || feed.entries.length === 0} onClick={() => clear.mutate({}, { onSuccess: () => feed.reset() })}>
          Clear
        </button>
        <button type="button" disabled={save.isPending || feed.entries.length === 0} onClick={() => save.mutate({})}>
          Save to a file
        </button>
      </div>
      <p role="status" className="done">
        {save.data ? `Saved ${save.data.count} requests, secrets masked, to ${save.data.file}` : ''}
      </p>
      <FormError error={configure.errors.form ?? clear.errors.form ?? save.errors.form} />
      {feed.error && <FormError error={`Could not read the requests: ${feed.error}. Trying again.`} />}
      <fieldset className="request-filters">
        <legend>Show</legend>
        <FilterSelect label="Status" value={filters.status} choices={STATUS_CLASSES} onChange={(v) => set({ status: STATUS_CLASSES.find((c) => c === v) ?? '' })} />
        <FilterSelect label="Operation" value={filters.operation} choices={operations} onChange={(operation) => set({ operation })} />
        <FilterSelect label="Address" value={filters.address} choices={addresses} onChange={(address) => set({ address })} />
        <label>
          Text
          <input type="search" value={filters.text} onChange={(e) => set({ text: e.target.value })} />
        </label>
      </fieldset>
      <p role="status" className="note">
        {!feed.enabled
          ? 'Requests are not kept: tick Keep requests.'
          : feed.entries.length === 0
            ? 'No request yet: requests to the API listener appear here as they arrive.'
            : `${shown.length} of ${feed.entries.length} requests shown.`}
      </p>
      <ul className="request-list" aria-label="Requests">
        {shown.map((r) => (
          <li key={r.id}>
            <button
              type="button"
              className="request-row"
              aria-label={`Open ${describe(r)}`}
              ref={(button) => {
                if (button) rows.current.set(r.id, button);
                else rows.current.delete(r.id);
              }}
              onClick={() => setOpen(r.id)}
            >
              <span className="request-line">
                <time dateTime={r.time}>{clock(r.time)}</time> <strong>{r.method}</strong> <span className="request-path">{r.path}</span>
              </span>
              <span className="request-line">
                <span className={`request-status status-${classOf(r.status) ?? 'other'}`}>{r.status}</span> {r.ms} ms · {r.operation ?? 'no operation'} · {r.address} · {r.caller}
                {r.replayOf !== null ? ` · replay of #${r.replayOf}` : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A filter of the list: one of the values seen, or All (the empty value). */
function FilterSelect({ label, value, choices, onChange }: { label: string; value: string; choices: readonly string[]; onChange: (value: string) => void }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">All</option>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );
}

function Body({ title, body }: { title: string; body: InspectedBody | null }) {
  return (
    <>
      <h3>{title}</h3>
      {body === null ? (
        <p className="note">None.</p>
      ) : (
        <>
          <pre className="request-body" tabIndex={0} aria-label={title}>
            {body.text}
          </pre>
          {body.truncated && <p className="note">Cut: only the first 64 KiB are kept.</p>}
        </>
      )}
    </>
  );
}

function Headers({ title, headers }: { title: string; headers: Array<[string, string]> }) {
  return (
    <>
      <h3>{title}</h3>
      {headers.length === 0 ? (
        <p className="note">None kept.</p>
      ) : (
        <dl className="request-headers">
          {headers.map(([name, value], i) => (
            <div key={`${name}-${i}`}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}

/** A request that writes, replayed, writes again: asked first, in the operation's name. */
const replayQuestion = (operation: string) => ({
  title: 'Replay a request that writes',
  text: `Send ${operation} again? It writes again what it wrote (adds, changes or deletes), with the same token.`,
  yes: 'Replay it',
  no: 'Do not replay',
  destructive: true,
});

/** One request opened: what it asked and what it was answered, its curl command, and Replay. */
function RequestDetailView({ id, onBack }: { id: number; onBack: () => void }) {
  const titleId = useId();
  const curlId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const detail = useRequestDetail(id);
  const [withSecrets, setWithSecrets] = useState(false);
  const curl = useCurl(id, withSecrets);
  const replay = useReplay();
  const confirm = useConfirm();
  useEffect(() => heading.current?.focus(), []);
  const r = detail.data;
  return (
    <section className="panel admin-panel requests-panel" aria-labelledby={titleId}>
      <div className="actions">
        <button type="button" onClick={onBack}>
          Back to the requests
        </button>
      </div>
      <h2 id={titleId} ref={heading} tabIndex={-1}>
        Request #{id}
      </h2>
      {detail.isPending && <p>Loading the request…</p>}
      {detail.isError && <FormError error={detail.error.message} />}
      {r && (
        <>
          <dl className="request-summary">
            <dt>Time</dt>
            <dd>
              <time dateTime={r.time}>{new Date(r.time).toLocaleString('en-GB')}</time>
            </dd>
            <dt>Request</dt>
            <dd>
              <code>
                {r.method} {r.url}
              </code>
            </dd>
            <dt>Operation</dt>
            <dd>{r.operation ?? 'none at this path'}</dd>
            <dt>Answer</dt>
            <dd>
              {r.status} in {r.ms} ms
            </dd>
            <dt>From</dt>
            <dd>
              {r.address} over {r.scheme}, {r.caller === 'anonymous' ? 'not authenticated' : `as the ${r.caller}`}
            </dd>
            {r.replayOf !== null && (
              <>
                <dt>Replay of</dt>
                <dd>request #{r.replayOf}</dd>
              </>
            )}
          </dl>
          <div className="actions">
            <button
              type="button"
              // Not disabled while it works: a disabled button drops the focus the confirmation gave back to it.
              aria-disabled={replay.isPending}
              onClick={() => {
                if (replay.isPending) return;
                if (!r.writes) replay.mutate({ id });
                else void confirm(replayQuestion(r.operation ?? r.path)).then((yes) => yes && replay.mutate({ id }));
              }}
            >
              {replay.isPending ? 'Replaying…' : 'Replay'}
            </button>
            <span role="status">{replay.data ? `Replayed: ${replay.data.status}${replay.data.id !== null ? ` (request #${replay.data.id})` : ''}` : ''}</span>
          </div>
          <FormError error={replay.errors.form} />
          {replay.data && <Body title="Replay's reply" body={replay.data.body} />}
          <h3>Copy as curl</h3>
          <Checkbox label="Include secrets" checked={withSecrets} onChange={setWithSecrets} describedBy={curlId} />
          <p className="note" id={curlId}>
            {withSecrets ? 'The command carries the passwords, tokens and keys as sent: keep it to yourself.' : 'Secrets are *** in the command: put them back before running it.'}
          </p>
          {curl.isError && <FormError error={curl.error.message} />}
          {curl.data && (
            <>
              <pre className="request-body" data-testid="curl-command" tabIndex={0} aria-label="curl command">
                {curl.data.command}
              </pre>
              <CopyButton label="Copy as curl" value={curl.data.command} />
            </>
          )}
          <Headers title="Request headers" headers={r.requestHeaders} />
          <Body title="Request body" body={r.requestBody} />
          <Headers title="Reply headers" headers={r.replyHeaders} />
          <Body title="Reply body" body={r.replyBody} />
        </>
      )}
    </section>
  );
}
