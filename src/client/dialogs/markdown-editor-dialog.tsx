import { useDeferredValue, useId, useState, type FormEvent } from 'react';
import { dialog_cancel } from '../paraglide/messages/dialog_cancel.js';
import { dialog_error_message } from '../paraglide/messages/dialog_error_message.js';
import { markdown_editor_hint } from '../paraglide/messages/markdown_editor_hint.js';
import { markdown_editor_label } from '../paraglide/messages/markdown_editor_label.js';
import { markdown_editor_preview } from '../paraglide/messages/markdown_editor_preview.js';
import { markdown_editor_preview_empty } from '../paraglide/messages/markdown_editor_preview_empty.js';
import { markdown_editor_save } from '../paraglide/messages/markdown_editor_save.js';
import { markdown_editor_too_long } from '../paraglide/messages/markdown_editor_too_long.js';
import { FormField } from '../components/form-field.tsx';
import { MarkdownView, type MarkdownImage } from '../components/markdown-view.tsx';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { Modal } from './modal.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_cancel, dialog_error_message, markdown_editor_hint, markdown_editor_label, markdown_editor_preview, markdown_editor_preview_empty, markdown_editor_save, markdown_editor_too_long };

/** The server's limit for markdown content (descriptionSchema). */
export const markdownMaxLength = 100_000;

export type MarkdownEditorDialogProps = {
  title: string;
  initial: string;
  /** Images the content already has, so the preview shows them as the page will. */
  images?: readonly MarkdownImage[];
  /** Stores the text; a rejection keeps the dialog open with the error shown in it. */
  onSave: (markdown: string) => Promise<void> | void;
  /** Called after a successful save (true) or on Cancel/Escape (false). */
  onClose: (saved: boolean) => void;
};

/** Spec §2 markdown editor: the text beside a live preview rendered exactly like the page renders it. */
export function MarkdownEditorDialog({ title, initial, images, onSave, onClose }: MarkdownEditorDialogProps) {
  const previewId = useId();
  const problemId = useId();
  const [markdown, setMarkdown] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  // Rendering a long text on every keystroke would make typing lag; the preview may trail a little.
  const previewed = useDeferredValue(markdown);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving) return;
    if (markdown.length > markdownMaxLength) {
      setProblem(m.markdown_editor_too_long({ max: String(markdownMaxLength) }));
      return;
    }
    setSaving(true);
    setProblem(undefined);
    try {
      await onSave(markdown);
      onClose(true);
    } catch (error) {
      setProblem(m.dialog_error_message({ text: errorText(toDisplayError(error)) }));
      setSaving(false);
    }
  };

  return (
    <Modal title={title} onCancel={() => onClose(false)} className="markdown_editor_dialog">
      <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate aria-busy={saving || undefined}>
        <div className="markdown_editor_panes">
          <FormField
            className="markdown_editor_field"
            label={m.markdown_editor_label()}
            hint={m.markdown_editor_hint({ syntax: 'Markdown' })}
            invalid={Boolean(problem)}
            describedBy={problem ? problemId : undefined}
          >
            {(control) => (
              <textarea
                {...control}
                className="input markdown_editor_text"
                data-autofocus
                value={markdown}
                rows={16}
                maxLength={markdownMaxLength}
                onChange={(event) => {
                  setMarkdown(event.target.value);
                  setProblem(undefined);
                }}
              />
            )}
          </FormField>
          <section className="markdown_editor_preview" aria-labelledby={previewId} tabIndex={0}>
            <h3 id={previewId} className="markdown_editor_preview_heading">
              {m.markdown_editor_preview()}
            </h3>
            {previewed.trim() === '' ? <p className="field_hint">{m.markdown_editor_preview_empty()}</p> : <MarkdownView markdown={previewed} images={images} headingOffset={3} />}
          </section>
        </div>
        {problem ? (
          <p id={problemId} className="form_problem" role="alert">
            {problem}
          </p>
        ) : null}
        <div className="dialog_actions">
          <button type="button" className="button" onClick={() => onClose(false)} disabled={saving}>
            {m.dialog_cancel()}
          </button>
          <button type="submit" className="button button_primary" disabled={saving}>
            {m.markdown_editor_save()}
          </button>
        </div>
      </form>
    </Modal>
  );
}
