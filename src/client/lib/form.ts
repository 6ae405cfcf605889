/** The value of a named control of a form (read from the element, so it also works under happy-dom). */
export function fieldValue(form: HTMLFormElement, name: string): string {
  const control = form.elements.namedItem(name);
  if (control && 'value' in control && typeof control.value === 'string') return control.value;
  return '';
}
