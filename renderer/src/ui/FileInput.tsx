import type { Ref } from 'react';

/**
 * A file input opened by a button of its own (`ref.current.click()`), named for assistive
 * technology; it forgets the choice at once, so the same file can be chosen again after a refusal.
 */
export function FileInput({ ref, accept, label, onFile }: { ref: Ref<HTMLInputElement>; accept: string; label: string; onFile: (file: File) => void }) {
  return (
    <input
      ref={ref}
      type="file"
      accept={accept}
      hidden
      aria-label={label}
      onChange={(e) => {
        const file = e.target.files?.[0];
        e.target.value = '';
        if (file) onFile(file);
      }}
    />
  );
}
