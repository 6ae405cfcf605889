import { createContext, Fragment, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { createDialogApi, type Dialogs } from './dialog-api.tsx';

/** Renders a dialog; calling close settles the promise returned by open (once). */
export type DialogRender<T> = (close: (value: T) => void) => ReactNode;
export type OpenDialog = <T>(render: DialogRender<T>) => Promise<T>;

const DialogContext = createContext<Dialogs | null>(null);

type Entry = { id: number; node: ReactNode };

/** Holds the open dialogs (a stack: a dialog may open another, e.g. an error over a form). */
export function DialogProvider({ children }: { children: ReactNode }) {
  const [entries, setEntries] = useState<Entry[]>([]);
  const nextId = useRef(0);

  const open = useCallback<OpenDialog>(
    <T,>(render: DialogRender<T>) =>
      new Promise<T>((resolve) => {
        const id = ++nextId.current;
        let settled = false;
        const close = (value: T) => {
          if (settled) return;
          settled = true;
          setEntries((list) => list.filter((entry) => entry.id !== id));
          resolve(value);
        };
        setEntries((list) => [...list, { id, node: render(close) }]);
      }),
    [],
  );

  const dialogs = useMemo(() => createDialogApi(open), [open]);
  return (
    <DialogContext.Provider value={dialogs}>
      {children}
      {entries.map((entry) => (
        <Fragment key={entry.id}>{entry.node}</Fragment>
      ))}
    </DialogContext.Provider>
  );
}

export function useDialogs(): Dialogs {
  const dialogs = useContext(DialogContext);
  if (!dialogs) throw new Error('useDialogs outside DialogProvider');
  return dialogs;
}
