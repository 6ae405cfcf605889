import type { ReactNode } from 'react';

type RadioOption<V extends string> = { value: V; label: ReactNode };

/**
 * A group's radio buttons, each with its label after it (`.choice`, form-field.css): the one whose
 * value is `selected` is checked; choosing one hands its value to `onSelect`. `autoFocus`: the first
 * takes the dialog's first focus. The legend and any field shown for a choice stay the caller's.
 */
export function RadioChoices<V extends string>(props: { name: string; options: readonly RadioOption<V>[]; selected: V | undefined; onSelect: (value: V) => void; autoFocus?: boolean }) {
  const { name, options, selected, onSelect, autoFocus } = props;
  return options.map(({ value, label }, index) => (
    <label key={value} className="choice">
      <input type="radio" name={name} value={value} checked={selected === value} data-autofocus={(autoFocus && index === 0) || undefined} onChange={() => onSelect(value)} /> {label}
    </label>
  ));
}
