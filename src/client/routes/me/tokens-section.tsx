import { useId, useState, type FormEvent } from 'react';
import { me_token_count_one } from '../../../shared/i18n/paraglide/messages/me_token_count_one.js';
import { me_token_count_other } from '../../../shared/i18n/paraglide/messages/me_token_count_other.js';
import { me_token_create } from '../../../shared/i18n/paraglide/messages/me_token_create.js';
import { me_token_created_text } from '../../../shared/i18n/paraglide/messages/me_token_created_text.js';
import { me_token_created_title } from '../../../shared/i18n/paraglide/messages/me_token_created_title.js';
import { me_token_delete } from '../../../shared/i18n/paraglide/messages/me_token_delete.js';
import { me_token_delete_text } from '../../../shared/i18n/paraglide/messages/me_token_delete_text.js';
import { me_token_delete_title } from '../../../shared/i18n/paraglide/messages/me_token_delete_title.js';
import { me_token_expiry } from '../../../shared/i18n/paraglide/messages/me_token_expiry.js';
import { me_token_expiry_date } from '../../../shared/i18n/paraglide/messages/me_token_expiry_date.js';
import { me_token_expiry_never } from '../../../shared/i18n/paraglide/messages/me_token_expiry_never.js';
import { me_token_expiry_on_date } from '../../../shared/i18n/paraglide/messages/me_token_expiry_on_date.js';
import { me_token_expiry_past } from '../../../shared/i18n/paraglide/messages/me_token_expiry_past.js';
import { me_token_form_heading } from '../../../shared/i18n/paraglide/messages/me_token_form_heading.js';
import { me_token_name } from '../../../shared/i18n/paraglide/messages/me_token_name.js';
import { me_token_name_default } from '../../../shared/i18n/paraglide/messages/me_token_name_default.js';
import { me_tokens_empty } from '../../../shared/i18n/paraglide/messages/me_tokens_empty.js';
import { me_tokens_heading } from '../../../shared/i18n/paraglide/messages/me_tokens_heading.js';
import { me_tokens_intro } from '../../../shared/i18n/paraglide/messages/me_tokens_intro.js';
import { FormField } from '../../components/form-field.tsx';
import { RadioChoices } from '../../components/radio-choices.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useLanguage } from '../../lib/i18n/index.ts';
import { fieldValue } from '../../lib/form.ts';
import { trpc } from '../../lib/trpc.ts';
import { plural } from '../../../shared/format/plural.ts';
import type { SessionItem } from '../../../shared/schemas/users.ts';
import { SessionDates } from './sessions-section.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_token_count_one, me_token_count_other, me_token_create, me_token_created_text, me_token_created_title, me_token_delete, me_token_delete_text, me_token_delete_title, me_token_expiry, me_token_expiry_date, me_token_expiry_never, me_token_expiry_on_date, me_token_expiry_past, me_token_form_heading, me_token_name, me_token_name_default, me_tokens_empty, me_tokens_heading, me_tokens_intro };

/** API tokens: sessions with requireSession false. Created with an expiry date or never; shown once. */
export function TokensSection() {
  const sessions = trpc.users.sessions.list.useQuery();
  const tokens = sessions.data?.filter((session) => !session.requireSession) ?? [];
  return (
    <section className="section" aria-labelledby="me-tokens">
      <h2 id="me-tokens">{m.me_tokens_heading()}</h2>
      <p className="section_intro">
        {m.me_tokens_intro()} {sessions.data ? <span className="count">{plural(tokens.length, m.me_token_count_one, m.me_token_count_other)}</span> : null}
      </p>
      {sessions.isPending ? <LoadingState /> : null}
      {sessions.error ? <ErrorState error={sessions.error} onRetry={() => void sessions.refetch()} /> : null}
      {sessions.data && tokens.length === 0 ? <EmptyState icon="keys">{m.me_tokens_empty()}</EmptyState> : null}
      {tokens.length > 0 ? (
        <ul className="item_list" aria-labelledby="me-tokens">
          {tokens.map((token) => (
            <TokenRow key={token.id} token={token} />
          ))}
        </ul>
      ) : null}
      <CreateTokenForm />
    </section>
  );
}

function TokenRow({ token }: { token: SessionItem }) {
  const dialogs = useDialogs();
  const { language } = useLanguage();
  const utils = trpc.useUtils();
  const revoke = trpc.users.sessions.revoke.useMutation();
  const name = token.title ?? m.me_token_name_default();
  const startDelete = async () => {
    const confirmed = await dialogs.confirm({
      title: m.me_token_delete_title(),
      message: m.me_token_delete_text({ name }),
      confirmLabel: m.me_token_delete(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    await dialogs.attempt(() => revoke.mutateAsync({ session: token.id }));
    await utils.users.sessions.list.invalidate();
  };
  return (
    <li className="item" data-token-id={token.id}>
      <div className="item_main">
        <span className="item_title">{name}</span>
        <SessionDates session={token} language={language} />
      </div>
      <button type="button" className="button button_quiet button_danger_text" onClick={() => void startDelete()} aria-label={`${m.me_token_delete()}: ${name}`}>
        {m.me_token_delete()}
      </button>
    </li>
  );
}

/** The date input's value (local day) → the end of that day as an ISO time. */
function expiryOfDate(day: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const end = new Date(`${day}T23:59:59`);
  return Number.isNaN(end.getTime()) ? undefined : end;
}

function todayIso(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

function CreateTokenForm() {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const create = trpc.users.sessions.create.useMutation();
  const ids = { name: useId(), problem: useId() };
  const [expiry, setExpiry] = useState<'never' | 'date'>('never');
  const [problem, setProblem] = useState<string | undefined>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const title = fieldValue(formElement, 'title').trim() || m.me_token_name_default();
    let expires: string | null = null;
    if (expiry === 'date') {
      const end = expiryOfDate(fieldValue(formElement, 'expires'));
      if (!end || end.getTime() <= Date.now()) {
        setProblem(m.me_token_expiry_past());
        return;
      }
      expires = end.toISOString();
    }
    setProblem(undefined);
    const created = await dialogs.attempt(() => create.mutateAsync({ title, expires }));
    if (!created) return;
    formElement.reset();
    setExpiry('never');
    await utils.users.sessions.list.invalidate();
    await dialogs.copyText({ title: m.me_token_created_title(), message: m.me_token_created_text(), text: created.token });
  };

  return (
    <form className="form token_form" onSubmit={submit} aria-labelledby={`${ids.name}-heading`}>
      <h3 id={`${ids.name}-heading`}>{m.me_token_form_heading()}</h3>
      <FormField id={ids.name} label={m.me_token_name()}>
        {(control) => <input {...control} name="title" className="input" maxLength={64} placeholder={m.me_token_name_default()} />}
      </FormField>
      <fieldset className="field">
        <legend>{m.me_token_expiry()}</legend>
        <RadioChoices name="expiry" options={[{ value: 'never', label: m.me_token_expiry_never() }, { value: 'date', label: m.me_token_expiry_on_date() }]} selected={expiry} onSelect={setExpiry} />
        {expiry === 'date' ? (
          <FormField label={m.me_token_expiry_date()} invalid={Boolean(problem)} describedBy={problem ? ids.problem : undefined}>
            {(control) => <input {...control} name="expires" type="date" className="input" min={todayIso()} required />}
          </FormField>
        ) : null}
      </fieldset>
      {problem ? (
        <p id={ids.problem} className="form_problem" role="alert">
          {problem}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="button button_primary" aria-disabled={create.isPending ? true : undefined}>
          {m.me_token_create()}
        </button>
      </div>
    </form>
  );
}
