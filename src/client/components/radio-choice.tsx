import type { ReactNode } from 'react';

/**
 * One radio button of a group with its label after it (`.choice`, form-field.css): checked while
 * `selected` is its value; choosing it hands the value to `onSelect`.
 */
export function RadioChoice<V extends string>(props: { name: string; value: V; selected: V | undefined; onSelect: (value: V) => void; autoFocus?: boolean; children: ReactNode }) {
  const { name, value, selected, onSelect, autoFocus, children } = props;
  return (
    <label className="choice">
      <input type="radio" name={name} value={value} checked={selected === value} data-autofocus={autoFocus || undefined} onChange={() => onSelect(value)} /> {children}
    </label>
  );
}
