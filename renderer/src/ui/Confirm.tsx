import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { createContext, useCallback, useContext, useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import './dialogs.css';

/**
 * One question put to the person before something is done. Each caller declares its words once,
 * where it asks: the buttons say what they do, never OK / Cancel.
 */
export interface Question {
  /** The dialog's title, short: what is about to happen ("Delete a member"). */
  title: string;
  /** The sentence: what it does and what follows from it. */
  text: string;
  /** The button that does it ("Delete member"). */
  yes: string;
  /** The button that leaves things as they are ("Keep"). */
  no: string;
  /**
   * It deletes, replaces or throws away: the safe choice has focus at first (Enter does not
   * destroy), and the button that does it looks dangerous.
   */
  destructive: boolean;
}

/** Asks, and answers true once the person chose `yes`; false for `no`, Escape, or a newer question. */
export type Confirm = (question: Question) => Promise<boolean>;

/**
 * What a page-wide key (App's Escape) leaves alone while it is open: a native dialog, or a Radix one
 * (this confirmation, the console token's dialog), which are open while they are in the page.
 */
export const OPEN_DIALOG = 'dialog[open], [role="alertdialog"], [role="dialog"]';

const ConfirmContext = createContext<Confirm | undefined>(undefined);

export function useConfirm(): Confirm {
  const confirm = useContext(ConfirmContext);
  if (!confirm) throw new Error('useConfirm needs a ConfirmProvider above it (renderer/src/main.tsx)');
  return confirm;
}

interface Asked {
  question: Question;
  /** What had focus when it was asked, and where focus goes back to. */
  opener: HTMLElement | undefined;
  /** The opener's ancestors, nearest first: where focus goes when the opener is gone. */
  around: HTMLElement[];
}

/** The nearest of the opener's former ancestors still on the page that can take focus. */
const fallback = (around: HTMLElement[]): HTMLElement | undefined => around.find((el) => el.isConnected && el.matches('[tabindex]'));

/** A modal's backdrop: a click on it leaves focus in the dialog (the browser would drop it to the page). */
export const keepFocus = (e: MouseEvent): void => e.preventDefault();

const focusLost = (): boolean => document.activeElement === null || document.activeElement === document.body;

/**
 * The confirmation dialog (an alert dialog), mounted once for the page; `useConfirm()` asks it.
 * Escape answers no. Focus goes back to the control that asked; when that control then goes (the
 * member it deleted leaves the list), to the nearest place around it that takes focus.
 */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [asked, setAsked] = useState<Asked | undefined>();
  const [open, setOpen] = useState(false);
  const answer = useRef<((yes: boolean) => void) | undefined>(undefined);
  const yesButton = useRef<HTMLButtonElement>(null);
  const stopWatching = useRef<() => void>(() => undefined);

  const settle = useCallback((yes: boolean): void => {
    answer.current?.(yes);
    answer.current = undefined;
    setOpen(false);
  }, []);

  const confirm = useCallback<Confirm>((question) => {
    stopWatching.current();
    // One question at a time: a newer one answers the older no.
    answer.current?.(false);
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : undefined;
    const around: HTMLElement[] = [];
    for (let el = opener?.parentElement; el; el = el.parentElement) around.push(el);
    setAsked({ question, opener, around });
    setOpen(true);
    return new Promise<boolean>((resolve) => {
      answer.current = resolve;
    });
  }, []);

  useEffect(() => () => stopWatching.current(), []);

  /** After the dialog closed: focus back to the opener, and after it should the opener go. */
  const giveFocusBack = ({ opener, around }: Asked): void => {
    // The caller moved focus itself (App's Escape gives it to the map): leave it there.
    if (!focusLost()) return;
    if (!opener?.isConnected) {
      fallback(around)?.focus();
      return;
    }
    opener.focus();
    // What was confirmed often removes the opener a moment later (the delete's answer), and the
    // browser then drops focus to the page's top: catch that once, until focus moves on.
    const watch = new MutationObserver(() => {
      if (opener.isConnected) return;
      stop();
      if (focusLost()) fallback(around)?.focus();
    });
    const moved = (e: FocusEvent): void => {
      if (e.target !== opener) stop();
    };
    const stop = (): void => {
      watch.disconnect();
      document.removeEventListener('focusin', moved);
      stopWatching.current = () => undefined;
    };
    watch.observe(document.body, { childList: true, subtree: true });
    document.addEventListener('focusin', moved);
    stopWatching.current = stop;
  };

  const q = asked?.question;
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <AlertDialog.Root open={open} onOpenChange={(o) => (o ? undefined : settle(false))}>
        {q && (
          <AlertDialog.Portal>
            <AlertDialog.Overlay className="dialog-backdrop" onMouseDown={keepFocus} />
            <AlertDialog.Content
              className="dialog confirm-dialog"
              onOpenAutoFocus={(e) => {
                // Radix focuses the safe choice (Cancel); what destroys nothing starts on its action.
                if (q.destructive) return;
                e.preventDefault();
                yesButton.current?.focus();
              }}
              onCloseAutoFocus={(e) => {
                e.preventDefault();
                if (asked) giveFocusBack(asked);
              }}
            >
              <AlertDialog.Title>{q.title}</AlertDialog.Title>
              <AlertDialog.Description>{q.text}</AlertDialog.Description>
              <div className="dialog-actions">
                <AlertDialog.Cancel onClick={() => settle(false)}>{q.no}</AlertDialog.Cancel>
                <AlertDialog.Action ref={yesButton} className={q.destructive ? 'danger' : undefined} onClick={() => settle(true)}>
                  {q.yes}
                </AlertDialog.Action>
              </div>
            </AlertDialog.Content>
          </AlertDialog.Portal>
        )}
      </AlertDialog.Root>
    </ConfirmContext.Provider>
  );
}
