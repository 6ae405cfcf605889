import { useDom } from './setup.ts';
import { afterEach, expect, test } from 'bun:test';

useDom();
const { cleanup, render, screen } = await import('@testing-library/react');
const { FormField } = await import('../../src/client/components/form-field.tsx');

afterEach(() => cleanup());

/** The texts an element's aria-describedby points at, in order. */
function descriptions(element: HTMLElement): string[] {
  const ids = element.getAttribute('aria-describedby')?.split(' ') ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? `missing #${id}`);
}

test('a bare field: label bound to the input, nothing described, not invalid', () => {
  const { container } = render(<FormField label="Title">{(control) => <input {...control} className="input" />}</FormField>);
  const input = screen.getByLabelText('Title');
  expect(input.tagName).toBe('INPUT');
  expect(input.hasAttribute('aria-describedby')).toBe(false);
  expect(input.hasAttribute('aria-invalid')).toBe(false);
  // The markup the stylesheet dresses: div.field > label + control.
  const field = container.firstElementChild as HTMLElement;
  expect(field.className).toBe('field');
  expect([...field.children].map((child) => child.tagName)).toEqual(['LABEL', 'INPUT']);
});

test('hint and error follow the control, describe it (hint first) and the error marks it invalid', () => {
  const { container } = render(
    <FormField label="Days" hint="Leave empty for the default" error="Not a number" describedBy="form-problem" className="extra">
      {(control) => <input {...control} />}
    </FormField>,
  );
  const input = screen.getByLabelText('Days');
  expect(input.getAttribute('aria-invalid')).toBe('true');
  const field = container.firstElementChild as HTMLElement;
  expect(field.className).toBe('field extra');
  expect([...field.children].map((child) => `${child.tagName}.${child.className}`)).toEqual(['LABEL.', 'INPUT.', 'P.field_hint', 'P.field_problem']);
  expect(field.querySelector('.field_problem')?.getAttribute('role')).toBe('alert');
  expect(input.getAttribute('aria-describedby')?.split(' ').at(-1)).toBe('form-problem');
  expect(descriptions(input).slice(0, 2)).toEqual(['Leave empty for the default', 'Not a number']);
});

test('invalid without an error of its own; a given id; select and textarea controls', () => {
  render(
    <>
      <FormField label="Password" invalid>
        {(control) => <input {...control} type="password" />}
      </FormField>
      <FormField id="move-into" label="Move into">
        {(control) => (
          <select {...control}>
            <option>top</option>
          </select>
        )}
      </FormField>
      <FormField label="Description" hint="Markdown">
        {(control) => <textarea {...control} />}
      </FormField>
    </>,
  );
  const password = screen.getByLabelText('Password');
  expect(password.getAttribute('aria-invalid')).toBe('true');
  expect(password.hasAttribute('aria-describedby')).toBe(false);
  expect(screen.getByLabelText('Move into').id).toBe('move-into');
  const description = screen.getByLabelText('Description');
  expect(description.tagName).toBe('TEXTAREA');
  expect(descriptions(description)).toEqual(['Markdown']);
});

test('an empty or absent hint and error render nothing', () => {
  const { container } = render(
    <FormField label="Name" hint={undefined} error="">
      {(control) => <input {...control} />}
    </FormField>,
  );
  expect(container.querySelectorAll('p')).toHaveLength(0);
  expect(screen.getByLabelText('Name').hasAttribute('aria-invalid')).toBe(false);
});

test('a length limit: below it an empty live region out of the description; at it a note that describes the control (issue 29)', () => {
  const { rerender, container } = render(<FormField label="Title" limit={{ length: 3, max: 5 }}>{(control) => <input {...control} maxLength={5} />}</FormField>);
  const input = screen.getByLabelText('Title');
  const note = container.querySelector('p.field_limit')!;
  expect(note.getAttribute('role')).toBe('status');
  expect(note.textContent).toBe('');
  expect(input.hasAttribute('aria-describedby')).toBe(false);
  rerender(<FormField label="Title" hint="Shown on the store page" limit={{ length: 5, max: 5 }}>{(control) => <input {...control} maxLength={5} />}</FormField>);
  expect(container.querySelector('p.field_limit')?.textContent).toBe('Limit reached: at most 5 characters, the rest is cut off.');
  expect(container.querySelector('p.field_limit')?.className).toBe('field_hint field_limit');
  expect(descriptions(screen.getByLabelText('Title'))).toEqual(['Shown on the store page', 'Limit reached: at most 5 characters, the rest is cut off.']);
});
