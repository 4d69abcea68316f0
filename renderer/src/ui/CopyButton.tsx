import { useState } from 'react';

/** A button that copies a value to the clipboard and says (politely) whether that worked. */
export function CopyButton({ label, value, describedBy }: { label: string; value: string; describedBy?: string }) {
  const [result, setResult] = useState<'copied' | 'failed' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setResult('copied');
    } catch {
      setResult('failed');
    }
  };
  return (
    <span className="copy">
      <button type="button" aria-describedby={describedBy} onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className={result === 'failed' ? 'copy-result copy-failed' : 'copy-result'}>
        {result === 'copied' ? 'Copied' : result === 'failed' ? 'Could not copy: select the text and copy it by hand' : ''}
      </span>
    </span>
  );
}
