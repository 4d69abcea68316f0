import { useEffect, useId, useRef, type ReactNode } from 'react';

interface FieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  type?: 'text' | 'number' | 'password' | 'email' | 'datetime-local';
  /** Shows a button that deletes the value (sent as empty, which deletes it). */
  onClear?: (() => void) | undefined;
  required?: boolean;
  multiline?: boolean;
  hint?: ReactNode;
  step?: string;
  name?: string;
  autoFocus?: boolean;
  /** A fixed id (an error summary links to it); otherwise one is made. */
  id?: string;
}

/** A labelled input: the label names the field in plain words; the server's error sits under it. */
export function Field(props: FieldProps) {
  const made = useId();
  const id = props.id ?? made;
  const errorId = `${id}-error`;
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    autoFocus: props.autoFocus,
    'aria-invalid': props.error ? true : undefined,
    'aria-describedby': props.error ? errorId : undefined,
  };
  return (
    <div className={props.error ? 'field field-error' : 'field'}>
      <label htmlFor={id}>{props.label}</label>
      <div className="field-row">
        {props.multiline ? (
          <textarea {...common} rows={3} onChange={(e) => props.onChange(e.target.value)} />
        ) : (
          <input {...common} type={props.type ?? 'text'} step={props.step} onChange={(e) => props.onChange(e.target.value)} />
        )}
        {props.onClear && (
          <button type="button" className="clear" aria-label={`Clear ${props.label}`} title={`Clear ${props.label}`} onClick={props.onClear}>
            ×
          </button>
        )}
      </div>
      {props.hint && <div className="hint">{props.hint}</div>}
      {props.error && (
        <div className="error" id={errorId} role="alert">
          {props.error}
        </div>
      )}
    </div>
  );
}

/**
 * A refusal of a whole form or action. `reveal`: scrolled into view when it appears (beside a
 * button at the foot of a long form, which it must not push out of view).
 */
export function FormError({ error, reveal = false }: { error: string | undefined; reveal?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (reveal && error) box.current?.scrollIntoView({ block: 'nearest' });
  }, [reveal, error]);
  return error ? (
    <div ref={box} className="form-error" role="alert">
      {error}
    </div>
  ) : null;
}
