import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { manage_tags_add } from '../../../../shared/i18n/paraglide/messages/manage_tags_add.js';
import { manage_tags_add_suggestion } from '../../../../shared/i18n/paraglide/messages/manage_tags_add_suggestion.js';
import { manage_tags_heading } from '../../../../shared/i18n/paraglide/messages/manage_tags_heading.js';
import { manage_tags_input_hint } from '../../../../shared/i18n/paraglide/messages/manage_tags_input_hint.js';
import { manage_tags_input_label } from '../../../../shared/i18n/paraglide/messages/manage_tags_input_label.js';
import { manage_tags_intro } from '../../../../shared/i18n/paraglide/messages/manage_tags_intro.js';
import { manage_tags_list_label } from '../../../../shared/i18n/paraglide/messages/manage_tags_list_label.js';
import { manage_tags_none } from '../../../../shared/i18n/paraglide/messages/manage_tags_none.js';
import { manage_tags_not_saved } from '../../../../shared/i18n/paraglide/messages/manage_tags_not_saved.js';
import { manage_tags_problem_characters } from '../../../../shared/i18n/paraglide/messages/manage_tags_problem_characters.js';
import { manage_tags_problem_control } from '../../../../shared/i18n/paraglide/messages/manage_tags_problem_control.js';
import { manage_tags_problem_duplicate } from '../../../../shared/i18n/paraglide/messages/manage_tags_problem_duplicate.js';
import { manage_tags_problem_empty } from '../../../../shared/i18n/paraglide/messages/manage_tags_problem_empty.js';
import { manage_tags_problem_too_long } from '../../../../shared/i18n/paraglide/messages/manage_tags_problem_too_long.js';
import { manage_tags_problem_too_many } from '../../../../shared/i18n/paraglide/messages/manage_tags_problem_too_many.js';
import { manage_tags_remove } from '../../../../shared/i18n/paraglide/messages/manage_tags_remove.js';
import { manage_tags_save } from '../../../../shared/i18n/paraglide/messages/manage_tags_save.js';
import { manage_tags_saved } from '../../../../shared/i18n/paraglide/messages/manage_tags_saved.js';
import { manage_tags_suggestions } from '../../../../shared/i18n/paraglide/messages/manage_tags_suggestions.js';
import { FormField } from '../../../components/form-field.tsx';
import { errorText, toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { maxStoreTagLength, maxStoreTags, storeTagSuggestions } from '../../../../shared/schemas/store-tags.ts';
import { addStoreTag, sameTags, type AddTagProblem } from './store-tags-draft.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  manage_tags_add,
  manage_tags_add_suggestion,
  manage_tags_heading,
  manage_tags_input_hint,
  manage_tags_input_label,
  manage_tags_intro,
  manage_tags_list_label,
  manage_tags_none,
  manage_tags_not_saved,
  manage_tags_problem_characters,
  manage_tags_problem_control,
  manage_tags_problem_duplicate,
  manage_tags_problem_empty,
  manage_tags_problem_too_long,
  manage_tags_problem_too_many,
  manage_tags_remove,
  manage_tags_save,
  manage_tags_saved,
  manage_tags_suggestions,
};

function problemText(problem: AddTagProblem): string {
  switch (problem.kind) {
    case 'control':
      return m.manage_tags_problem_control();
    case 'empty':
      return m.manage_tags_problem_empty();
    case 'too_long':
      return m.manage_tags_problem_too_long({ length: String(maxStoreTagLength) });
    case 'characters':
      return m.manage_tags_problem_characters();
    case 'duplicate':
      return m.manage_tags_problem_duplicate({ tag: problem.tag });
    case 'too_many':
      return m.manage_tags_problem_too_many({ max: String(maxStoreTags) });
  }
}

/**
 * The project's store tags (patchProject; issue 29): chips with a remove button each, a field that
 * adds what is typed on Enter (or a comma) and suggestions to pick; the shared rule is checked on every
 * addition, its problem shown under the field. Nothing is sent until Save; a refused save says why and
 * keeps the draft.
 */
export function StoreTagsSection({ project }: { project: Project }) {
  const utils = trpc.useUtils();
  const refresh = useProjectRefresh(project.id);
  const patch = trpc.projects.patch.useMutation();
  const input = useRef<HTMLInputElement>(null);
  const ids = { heading: useId(), list: useId(), saveProblem: useId() };
  // undefined: no edit yet, the project's own tags show (and follow it when it changes).
  const [draft, setDraft] = useState<string[] | undefined>();
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [saveProblem, setSaveProblem] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const tags = draft ?? project.storeTags;
  const changed = !sameTags(tags, project.storeTags);
  const suggestions = storeTagSuggestions.filter((tag) => !tags.includes(tag));

  const edit = (next: string[]) => {
    setDraft(next);
    setSaved(false);
    setSaveProblem(undefined);
  };

  /** Adds a tag; false (with the problem under the field) when the rule refuses it. */
  const add = (text: string): string[] | undefined => {
    const result = addStoreTag(tags, text);
    if ('problem' in result) {
      setProblem(problemText(result.problem));
      return undefined;
    }
    edit(result.tags);
    setTyped('');
    setProblem(undefined);
    return result.tags;
  };

  const remove = (tag: string) => {
    edit(tags.filter((item) => item !== tag));
    setProblem(undefined);
    // The removed chip's button is gone: focus goes to the field rather than to the page.
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add(typed);
    } else if (event.key === 'Backspace' && typed === '' && tags.length > 0) {
      event.preventDefault();
      remove(tags[tags.length - 1]!);
    }
  };

  const save = async () => {
    let next = tags;
    // Text still in the field is part of what the owner means to save.
    if (typed.trim() !== '') {
      const added = add(typed);
      if (!added) return;
      next = added;
    }
    setSaving(true);
    setSaveProblem(undefined);
    try {
      const updated = await patch.mutateAsync({ project: project.id, storeTags: next });
      utils.projects.get.setData({ project: project.id }, updated);
      setDraft(undefined);
      setSaved(true);
      await refresh.project();
    } catch (failure) {
      setSaveProblem(m.manage_tags_not_saved({ reason: errorText(toDisplayError(failure)) }));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="section manage_tags" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>{m.manage_tags_heading()}</h2>
      <p className="section_intro">{m.manage_tags_intro()}</p>
      {tags.length > 0 ? (
        <ul className="manage_tags_list" id={ids.list} aria-label={m.manage_tags_list_label()}>
          {tags.map((tag) => (
            <li key={tag} className="manage_tag" data-store-tag={tag}>
              <bdi>{tag}</bdi>
              <button type="button" className="manage_tag_remove" aria-label={m.manage_tags_remove({ tag })} onClick={() => remove(tag)}>
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="manage_tags_none">{m.manage_tags_none()}</p>
      )}
      <FormField label={m.manage_tags_input_label()} hint={m.manage_tags_input_hint({ max: String(maxStoreTags), length: String(maxStoreTagLength) })} error={problem}>
        {(control) => (
          <div className="manage_tags_entry">
            <input
              {...control}
              ref={input}
              className="input"
              type="text"
              dir="auto"
              value={typed}
              autoComplete="off"
              enterKeyHint="enter"
              spellCheck={false}
              onChange={(event) => {
                setTyped(event.currentTarget.value);
                setProblem(undefined);
              }}
              onKeyDown={onKeyDown}
            />
            <button type="button" className="button" onClick={() => add(typed)}>
              {m.manage_tags_add()}
            </button>
          </div>
        )}
      </FormField>
      {suggestions.length > 0 ? (
        <div className="manage_tags_suggestions" role="group" aria-label={m.manage_tags_suggestions()}>
          <span className="manage_tags_suggestions_label" aria-hidden="true">
            {m.manage_tags_suggestions()}
          </span>
          {suggestions.map((tag) => (
            <button key={tag} type="button" className="manage_tag_suggestion" aria-label={m.manage_tags_add_suggestion({ tag })} onClick={() => add(tag)}>
              <span lang="en">{tag}</span>
            </button>
          ))}
        </div>
      ) : null}
      {saveProblem ? (
        <p id={ids.saveProblem} className="field_problem" role="alert">
          {saveProblem}
        </p>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="button button_primary"
          disabled={saving || (!changed && typed.trim() === '')}
          aria-busy={saving ? true : undefined}
          aria-describedby={saveProblem ? ids.saveProblem : undefined}
          onClick={() => void save()}
        >
          {m.manage_tags_save()}
        </button>
        <span className="manage_tags_status" role="status">
          {saved && !changed ? m.manage_tags_saved() : ''}
        </span>
      </div>
    </section>
  );
}
