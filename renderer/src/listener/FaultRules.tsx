import { useId, useState, type KeyboardEvent } from 'react';
import { ALL_OPERATIONS, FAULT_OPERATIONS, FAULT_STATUSES, FaultRuleError, MAX_FAULT_LATENCY_MS, MAX_FAULT_RULES, parseFaultRule, type FaultStatus } from '../../../shared/faults';

interface Props {
  rules: string[];
  onChange: (rules: string[]) => void;
  /** The server's refusal of the list, if any. */
  error?: string | undefined;
}

const KINDS = [
  { kind: 'status', label: 'Fail with a status' },
  { kind: 'latency', label: 'Slow down' },
  { kind: 'drop', label: 'Drop the connection' },
] as const;
type Kind = (typeof KINDS)[number]['kind'];

const STATUS_LABELS = {
  503: '503 Service unavailable (with Retry-After)',
  500: '500 Internal error',
  429: '429 Too many requests (with Retry-After)',
} as const satisfies Record<FaultStatus, string>;

interface Draft {
  operation: string;
  kind: Kind;
  status: FaultStatus;
  minMs: string;
  maxMs: string;
  share: string;
}

const EMPTY: Draft = { operation: ALL_OPERATIONS, kind: 'status', status: 503, minMs: '', maxMs: '', share: '100' };
const WHOLE = /^\d+$/;

/** The rule the fields describe, in the syntax of shared/faults.ts; or what to fix, in plain words. */
function ruleOf(d: Draft): { rule: string } | { problem: string; field: 'minMs' | 'maxMs' | 'share' } {
  const share = d.share.trim();
  if (!/^\d+(\.\d+)?$/.test(share) || !(Number(share) > 0 && Number(share) <= 100)) {
    return { problem: 'Enter the share of requests as a number from 1 to 100, such as 50.', field: 'share' };
  }
  let action: string = d.kind;
  if (d.kind === 'status') action = `status=${d.status}`;
  if (d.kind === 'latency') {
    const [min, max] = [d.minMs.trim(), d.maxMs.trim()];
    if (!WHOLE.test(min)) return { problem: `Enter the delay as a whole number of milliseconds, from 0 to ${MAX_FAULT_LATENCY_MS}, such as 300.`, field: 'minMs' };
    if (max !== '' && !WHOLE.test(max)) return { problem: 'Enter the longest delay as a whole number of milliseconds, or leave it empty for a fixed delay.', field: 'maxMs' };
    action = `latency=${min}${max === '' ? '' : `-${max}`}ms`;
  }
  const rule = `${d.operation}:${action}${Number(share) === 100 ? '' : `@${share}%`}`;
  try {
    return { rule: parseFaultRule(rule).text };
  } catch (error) {
    const reason = error instanceof FaultRuleError ? error.reason : String(error);
    return { problem: `The rule ${rule} ${reason}: change it and add it again.`, field: d.kind === 'latency' ? 'maxMs' : 'share' };
  }
}

/**
 * Faults on purpose (docs/devices.md#faults-on-purpose): rules that slow down, fail or drop the
 * API's requests, to test an app's error paths. A list to add to and remove from, saved with the
 * rest of the form by Apply; the listener applies them from its next request.
 */
export function FaultRules({ rules, onChange, error }: Props) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [problem, setProblem] = useState<{ text: string; field: 'minMs' | 'maxMs' | 'share' } | null>(null);
  const ids = { operation: useId(), kind: useId(), status: useId(), minMs: useId(), maxMs: useId(), share: useId(), hint: useId(), error: useId() };
  const shown = problem?.text ?? error;
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));

  const add = () => {
    const result = ruleOf(draft);
    if ('problem' in result) {
      setProblem({ text: result.problem, field: result.field });
      return;
    }
    if (rules.length >= MAX_FAULT_RULES && !rules.includes(result.rule)) {
      setProblem({ text: `At most ${MAX_FAULT_RULES} fault rules: remove one first.`, field: 'share' });
      return;
    }
    if (!rules.includes(result.rule)) onChange([...rules, result.rule]);
    setProblem(null);
  };
  // Enter in a box adds the rule; it does not submit the form.
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    add();
  };
  const invalid = (field: 'minMs' | 'maxMs' | 'share') => (problem?.field === field ? { 'aria-invalid': true, 'aria-describedby': ids.error } : {});

  return (
    <fieldset className="choices fault-rules" aria-describedby={ids.hint}>
      <legend>Faults on purpose</legend>
      <p className="hint" id={ids.hint}>
        Slow down, fail or drop some of the API's requests, to see how your app copes. Off when the list is empty. Apply saves the list; each reply a
        rule touched says so in its X-Fault-Injected header.
      </p>
      {rules.length === 0 ? (
        <p className="note">None: every request is answered normally.</p>
      ) : (
        <ul className="origins" aria-label="Fault rules">
          {rules.map((rule) => (
            <li key={rule}>
              <code>{rule}</code>
              <button type="button" aria-label={`Remove the fault rule ${rule}`} onClick={() => {
                  onChange(rules.filter((r) => r !== rule));
                  // The button goes with its line: focus stays in the group, on the next rule's first field.
                  document.getElementById(ids.operation)?.focus();
                }}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="fault-draft">
        <div className="field">
          <label htmlFor={ids.operation}>Operation</label>
          <select id={ids.operation} value={draft.operation} onChange={(e) => set({ operation: e.target.value })}>
            <option value={ALL_OPERATIONS}>All operations</option>
            {FAULT_OPERATIONS.map((op) => (
              <option key={op} value={op}>
                {op}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.kind}>What it does</label>
          <select id={ids.kind} value={draft.kind} onChange={(e) => set({ kind: KINDS.find((k) => k.kind === e.target.value)?.kind ?? 'status' })}>
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </div>
        {draft.kind === 'status' && (
          <div className="field">
            <label htmlFor={ids.status}>Status</label>
            <select id={ids.status} value={draft.status} onChange={(e) => set({ status: FAULT_STATUSES.find((s) => String(s) === e.target.value) ?? 503 })}>
              {FAULT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABELS[s]}
                </option>
              ))}
            </select>
          </div>
        )}
        {draft.kind === 'latency' && (
          <>
            <div className="field">
              <label htmlFor={ids.minMs}>Delay (ms)</label>
              <input id={ids.minMs} type="number" min="0" max={MAX_FAULT_LATENCY_MS} step="1" inputMode="numeric" value={draft.minMs} onChange={(e) => set({ minMs: e.target.value })} onKeyDown={onKey} {...invalid('minMs')} />
            </div>
            <div className="field">
              <label htmlFor={ids.maxMs}>Up to (ms, optional)</label>
              <input id={ids.maxMs} type="number" min="0" max={MAX_FAULT_LATENCY_MS} step="1" inputMode="numeric" value={draft.maxMs} onChange={(e) => set({ maxMs: e.target.value })} onKeyDown={onKey} {...invalid('maxMs')} />
            </div>
          </>
        )}
        <div className="field">
          <label htmlFor={ids.share}>Share of requests (%)</label>
          <input id={ids.share} type="number" min="1" max="100" step="any" inputMode="decimal" value={draft.share} onChange={(e) => set({ share: e.target.value })} onKeyDown={onKey} {...invalid('share')} />
        </div>
      </div>
      <div className="actions">
        <button type="button" onClick={add}>
          Add fault rule
        </button>
      </div>
      {shown && (
        <div className="field field-error">
          <div className="error" id={ids.error} role="alert">
            {shown}
          </div>
        </div>
      )}
    </fieldset>
  );
}
