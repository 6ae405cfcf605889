import { useDeferredValue, useId, useState, type FormEvent } from 'react';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { markdown_editor_hint } from '../../shared/i18n/paraglide/messages/markdown_editor_hint.js';
import { markdown_editor_images_hint } from '../../shared/i18n/paraglide/messages/markdown_editor_images_hint.js';
import { markdown_editor_images_pending } from '../../shared/i18n/paraglide/messages/markdown_editor_images_pending.js';
import { markdown_editor_label } from '../../shared/i18n/paraglide/messages/markdown_editor_label.js';
import { markdown_editor_preview } from '../../shared/i18n/paraglide/messages/markdown_editor_preview.js';
import { markdown_editor_preview_empty } from '../../shared/i18n/paraglide/messages/markdown_editor_preview_empty.js';
import { markdown_editor_save } from '../../shared/i18n/paraglide/messages/markdown_editor_save.js';
import { markdown_editor_too_long } from '../../shared/i18n/paraglide/messages/markdown_editor_too_long.js';
import { FormField } from '../components/form-field.tsx';
import { MarkdownView, type MarkdownImage } from '../components/markdown-view.tsx';
import { referencedImages } from '../lib/content-images.ts';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';
import { PastedImageList, useImageTextarea } from './pasted-images.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  dialog_error_message,
  markdown_editor_hint,
  markdown_editor_images_hint,
  markdown_editor_images_pending,
  markdown_editor_label,
  markdown_editor_preview,
  markdown_editor_preview_empty,
  markdown_editor_save,
  markdown_editor_too_long,
};

/** The server's limit for markdown content (descriptionSchema). */
const markdownMaxLength = 100_000;

/** The preview's ids: never the same as those of the page behind the dialog showing the same content. */
const previewIdPrefix = 'user-content-preview-';

export type MarkdownEditorDialogProps = {
  title: string;
  initial: string;
  /** Images the content already has, so the preview shows them as the page will. */
  images?: readonly MarkdownImage[];
  /**
   * The project the content belongs to: with it, images pasted or dropped into the text are uploaded
   * (spec §4 image paste flow, §5); without it, paste and drop are the browser's.
   */
  projectId?: string;
  /** The levels the page adds to the content's headings, so the preview is what the page shows (default 3). */
  headingOffset?: number;
  /**
   * Stores the text and the images it references (those it had and those pasted); a rejection keeps
   * the dialog open with the error shown in it.
   */
  onSave: (markdown: string, images: MarkdownImage[]) => Promise<void> | void;
  /** Called after a successful save (true) or on Cancel/Escape (false). */
  onClose: (saved: boolean) => void;
};

/** Spec §2 markdown editor: the text beside a live preview rendered exactly like the page renders it. */
export function MarkdownEditorDialog({ title, initial, images: initialImages, projectId, headingOffset = 3, onSave, onClose }: MarkdownEditorDialogProps) {
  const previewId = useId();
  const problemId = useId();
  const [markdown, setMarkdown] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const pasted = useImageTextarea({
    projectId,
    initial: initialImages ?? [],
    text: markdown,
    setText: (text) => {
      setMarkdown(text);
      setProblem(undefined);
    },
  });

  // Rendering a long text on every keystroke would make typing lag; the preview may trail a little.
  const previewed = useDeferredValue(markdown);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving) return;
    if (pasted.busy) {
      setProblem(m.markdown_editor_images_pending());
      return;
    }
    if (markdown.length > markdownMaxLength) {
      setProblem(m.markdown_editor_too_long({ max: String(markdownMaxLength) }));
      return;
    }
    setSaving(true);
    setProblem(undefined);
    try {
      await onSave(markdown, referencedImages(markdown, pasted.images));
      onClose(true);
    } catch (error) {
      setProblem(m.dialog_error_message({ text: errorText(toDisplayError(error)) }));
      setSaving(false);
    }
  };

  const hint = projectId ? `${m.markdown_editor_hint({ syntax: 'Markdown' })} ${m.markdown_editor_images_hint()}` : m.markdown_editor_hint({ syntax: 'Markdown' });
  return (
    <Modal title={title} onCancel={() => onClose(false)} className="markdown_editor_dialog">
      <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate aria-busy={saving || undefined}>
        <div className="markdown_editor_panes">
          <FormField className="markdown_editor_field" label={m.markdown_editor_label()} hint={hint} invalid={Boolean(problem)} describedBy={problem ? problemId : undefined}>
            {(control) => (
              <>
                <textarea
                  {...control}
                  {...pasted.textarea}
                  className="input markdown_editor_text"
                  data-autofocus
                  value={markdown}
                  rows={16}
                  maxLength={markdownMaxLength}
                  onChange={(event) => {
                    pasted.track(event);
                    setMarkdown(event.target.value);
                    setProblem(undefined);
                  }}
                />
                {projectId ? <PastedImageList pending={pasted.pending} dismiss={pasted.dismiss} /> : null}
              </>
            )}
          </FormField>
          <section className="markdown_editor_preview" aria-labelledby={previewId} tabIndex={0}>
            <h3 id={previewId} className="markdown_editor_preview_heading">
              {m.markdown_editor_preview()}
            </h3>
            {previewed.trim() === '' ? (
              <p className="field_hint">{m.markdown_editor_preview_empty()}</p>
            ) : (
              <MarkdownView markdown={previewed} images={pasted.images} localImages={pasted.localImages} headingOffset={headingOffset} idPrefix={previewIdPrefix} />
            )}
          </section>
        </div>
        <DialogFooter problem={problem} problemId={problemId} onCancel={() => onClose(false)} cancelDisabled={saving} submit={{ label: m.markdown_editor_save(), disabled: saving }} />
      </form>
    </Modal>
  );
}
