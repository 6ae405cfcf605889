import { useState } from 'react';
import { dialog_confirm_title } from '../../../shared/i18n/paraglide/messages/dialog_confirm_title.js';
import { dialog_prompt_title } from '../../../shared/i18n/paraglide/messages/dialog_prompt_title.js';
import { experiment_count_label } from '../../../shared/i18n/paraglide/messages/experiment_count_label.js';
import { experiment_dialogs_heading } from '../../../shared/i18n/paraglide/messages/experiment_dialogs_heading.js';
import { experiment_formats_heading } from '../../../shared/i18n/paraglide/messages/experiment_formats_heading.js';
import { experiment_intro } from '../../../shared/i18n/paraglide/messages/experiment_intro.js';
import { experiment_item_one } from '../../../shared/i18n/paraglide/messages/experiment_item_one.js';
import { experiment_item_other } from '../../../shared/i18n/paraglide/messages/experiment_item_other.js';
import { experiment_last_result } from '../../../shared/i18n/paraglide/messages/experiment_last_result.js';
import { experiment_sample_message } from '../../../shared/i18n/paraglide/messages/experiment_sample_message.js';
import { experiment_sample_prompt } from '../../../shared/i18n/paraglide/messages/experiment_sample_prompt.js';
import { experiment_sample_question } from '../../../shared/i18n/paraglide/messages/experiment_sample_question.js';
import { experiment_show_confirm } from '../../../shared/i18n/paraglide/messages/experiment_show_confirm.js';
import { experiment_show_copy } from '../../../shared/i18n/paraglide/messages/experiment_show_copy.js';
import { experiment_show_danger } from '../../../shared/i18n/paraglide/messages/experiment_show_danger.js';
import { experiment_show_error } from '../../../shared/i18n/paraglide/messages/experiment_show_error.js';
import { experiment_show_ok } from '../../../shared/i18n/paraglide/messages/experiment_show_ok.js';
import { experiment_show_prompt } from '../../../shared/i18n/paraglide/messages/experiment_show_prompt.js';
import { experiment_show_unknown_error } from '../../../shared/i18n/paraglide/messages/experiment_show_unknown_error.js';
import { experiment_size_label } from '../../../shared/i18n/paraglide/messages/experiment_size_label.js';
import { experiment_states_heading } from '../../../shared/i18n/paraglide/messages/experiment_states_heading.js';
import { experiment_title } from '../../../shared/i18n/paraglide/messages/experiment_title.js';
import { me_token_delete } from '../../../shared/i18n/paraglide/messages/me_token_delete.js';
import { FormField } from '../../components/form-field.tsx';
import { homeCrumb, Page } from '../../components/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { ApiError } from '../../lib/api.ts';
import { Size } from '../../components/size.tsx';
import { plural } from '../../../shared/format/plural.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_confirm_title, dialog_prompt_title, experiment_count_label, experiment_dialogs_heading, experiment_formats_heading, experiment_intro, experiment_item_one, experiment_item_other, experiment_last_result, experiment_sample_message, experiment_sample_prompt, experiment_sample_question, experiment_show_confirm, experiment_show_copy, experiment_show_danger, experiment_show_error, experiment_show_ok, experiment_show_prompt, experiment_show_unknown_error, experiment_size_label, experiment_states_heading, experiment_title, me_token_delete };

/** Spec §2 'experiment': a test page that shows every shared dialog, state and format. */
export default function ExperimentPage() {
  const dialogs = useDialogs();
  const [result, setResult] = useState('');
  const [bytes, setBytes] = useState(1536);
  const [count, setCount] = useState(1);
  const show = (value: unknown) => setResult(JSON.stringify(value) ?? 'undefined');
  let failures = 0;

  return (
    <Page title={m.experiment_title()} breadcrumb={[homeCrumb(), { label: m.experiment_title() }]} pageClass="page_experiment">
      <h1>{m.experiment_title()}</h1>
      <p>{m.experiment_intro()}</p>

      <section className="section" aria-labelledby="experiment-dialogs">
        <h2 id="experiment-dialogs">{m.experiment_dialogs_heading()}</h2>
        <div className="actions actions_wrap">
          <button type="button" className="button" onClick={async () => show(await dialogs.ok({ title: m.experiment_title(), message: m.experiment_sample_message() }))}>
            {m.experiment_show_ok()}
          </button>
          <button
            type="button"
            className="button"
            onClick={async () => show(await dialogs.copyText({ title: m.experiment_title(), message: m.experiment_sample_message(), text: 'ct_example_token_0123456789' }))}
          >
            {m.experiment_show_copy()}
          </button>
          <button type="button" className="button" onClick={async () => show(await dialogs.confirm({ title: m.dialog_confirm_title(), message: m.experiment_sample_question() }))}>
            {m.experiment_show_confirm()}
          </button>
          <button
            type="button"
            className="button"
            onClick={async () =>
              show(await dialogs.confirm({ title: m.dialog_confirm_title(), message: m.experiment_sample_question(), danger: true, defaultFocus: 'cancel', confirmLabel: m.me_token_delete() }))
            }
          >
            {m.experiment_show_danger()}
          </button>
          <button type="button" className="button" onClick={async () => show(await dialogs.prompt({ title: m.dialog_prompt_title(), label: m.experiment_sample_prompt() }))}>
            {m.experiment_show_prompt()}
          </button>
          <button
            type="button"
            className="button"
            onClick={async () =>
              show(
                await dialogs.attempt(async () => {
                  failures += 1;
                  if (failures % 2 === 1) throw new ApiError('timeout');
                  return 'retried';
                }),
              )
            }
          >
            {m.experiment_show_error()}
          </button>
          <button type="button" className="button" onClick={async () => show(await dialogs.error(new ApiError('mystery_code')))}>
            {m.experiment_show_unknown_error()}
          </button>
        </div>
        <p role="status" data-testid="experiment-result">
          {result ? m.experiment_last_result({ result }) : ''}
        </p>
      </section>

      <section className="section" aria-labelledby="experiment-states">
        <h2 id="experiment-states">{m.experiment_states_heading()}</h2>
        <LoadingState />
        <EmptyState />
        <ErrorState error={new ApiError('not_found')} onRetry={() => undefined} />
      </section>

      <section className="section" aria-labelledby="experiment-formats">
        <h2 id="experiment-formats">{m.experiment_formats_heading()}</h2>
        <FormField label={m.experiment_size_label()}>
          {(control) => (
            <>
              <input {...control} className="input" type="number" min={0} value={bytes} onChange={(event) => setBytes(Number(event.target.value))} />
              <output htmlFor={control.id} data-testid="experiment-size">
                <Size bytes={bytes} />
              </output>
            </>
          )}
        </FormField>
        <FormField label={m.experiment_count_label()}>
          {(control) => (
            <>
              <input {...control} className="input" type="number" value={count} onChange={(event) => setCount(Number(event.target.value))} />
              <output htmlFor={control.id} data-testid="experiment-plural">
                {plural(count, m.experiment_item_one, m.experiment_item_other)}
              </output>
            </>
          )}
        </FormField>
      </section>
    </Page>
  );
}
