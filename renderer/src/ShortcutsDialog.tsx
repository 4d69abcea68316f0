import * as Dialog from '@radix-ui/react-dialog';
import { useRef } from 'react';
import { CONTROL_KEYS, SHORTCUTS } from './shortcuts';
import './ui/dialogs.css';

interface Props {
  open: boolean;
  onOpen: (open: boolean) => void;
}

const Keys = ({ keys }: { keys: readonly string[] }) => (
  <>
    {keys.map((k, i) => (
      <span key={k}>
        {i > 0 && ' '}
        <kbd>{k}</kbd>
      </span>
    ))}
  </>
);

const KeyTable = ({ rows }: { rows: readonly { keys: readonly string[]; does: string }[] }) => (
  <table className="shortcuts">
    <tbody>
      {rows.map((row) => (
        <tr key={row.does}>
          <th scope="row">
            <Keys keys={row.keys} />
          </th>
          <td>{row.does}</td>
        </tr>
      ))}
    </tbody>
  </table>
);

/** The keyboard shortcuts (`?`): a dialog that takes focus, gives it back, and closes on Escape. */
export function ShortcutsDialog({ open, onOpen }: Props) {
  // Opened by a key, not by a Radix trigger: focus goes back where it was (Radix would go to the trigger).
  const returnTo = useRef<Element | null>(null);
  return (
    <Dialog.Root open={open} onOpenChange={onOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-backdrop" />
        <Dialog.Content
          className="dialog shortcuts-dialog"
          onOpenAutoFocus={() => {
            returnTo.current = document.activeElement;
          }}
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            if (returnTo.current instanceof HTMLElement) returnTo.current.focus();
          }}
        >
          <Dialog.Title>Keyboard shortcuts</Dialog.Title>
          <Dialog.Description className="hint">Anywhere but in a text field:</Dialog.Description>
          <KeyTable rows={SHORTCUTS} />
          <h3>On what has the focus</h3>
          <KeyTable rows={CONTROL_KEYS} />
          <div className="actions">
            <Dialog.Close asChild>
              <button type="button">Close</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
