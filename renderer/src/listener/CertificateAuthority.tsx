import { useId } from 'react';
import { useConfirm } from '../ui/Confirm';
import { FormError } from '../ui/Field';
import { useRotateAuthority } from './mutations';

const QUESTION = {
  title: 'Replace the certificate authority',
  text: "Make a new certificate authority for this data folder? Every phone that trusts the old one must download and install the new certificate from the listener's page; until then its HTTPS calls fail.",
  yes: 'Replace the authority',
  no: 'Keep the current one',
  destructive: true,
} as const;

/**
 * The data folder's certificate authority (docs/devices.md#connect-a-phone): phones trust HTTPS
 * through it, so replacing it is for a key that may have leaked, and asks first.
 */
export function CertificateAuthority({ fingerprint }: { fingerprint: string | undefined }) {
  const rotate = useRotateAuthority();
  const confirm = useConfirm();
  const noteId = useId();
  return (
    <div className="panel-block">
      <h3>Certificate authority</h3>
      <p className="note" id={noteId}>
        Phones trust the HTTPS port through this data folder's own certificate authority, whose certificate the listener's page offers. Its key never
        leaves this computer. If it may have leaked, replace it.
      </p>
      {fingerprint && (
        <p>
          Its SHA-256 fingerprint, to compare with what a phone shows when it installs it: <code className="fingerprint">{fingerprint}</code>
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          aria-describedby={noteId}
          // Not disabled while it works: a disabled button drops the focus the confirmation gave back to it.
          aria-disabled={rotate.isPending}
          onClick={() => {
            if (!rotate.isPending) void confirm(QUESTION).then((yes) => yes && rotate.mutate({}));
          }}
        >
          {rotate.isPending ? 'Replacing…' : 'Replace the authority…'}
        </button>
      </div>
      {rotate.isSuccess && (
        <p role="status">A new certificate authority is in place: install its certificate on each phone again.</p>
      )}
      {rotate.isError && <FormError error={`The authority was not replaced: ${rotate.error.message}`} />}
    </div>
  );
}
