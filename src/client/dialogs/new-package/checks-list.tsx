import { useId, useState } from 'react';
import type { PackageFix, PackageWarning } from '../../../shared/packages/checks.ts';
import { file_tree_start_file } from '../../../shared/i18n/paraglide/messages/file_tree_start_file.js';
import { new_package_checks_heading } from '../../../shared/i18n/paraglide/messages/new_package_checks_heading.js';
import { new_package_checks_ok } from '../../../shared/i18n/paraglide/messages/new_package_checks_ok.js';
import { package_check_blocks_create } from '../../../shared/i18n/paraglide/messages/package_check_blocks_create.js';
import { package_check_no_candidates } from '../../../shared/i18n/paraglide/messages/package_check_no_candidates.js';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { fixLabel, warningParts, warningText } from './warning-messages.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { file_tree_start_file, new_package_checks_heading, new_package_checks_ok, package_check_blocks_create, package_check_no_candidates };

/**
 * 'Choose start file': the likely files in a list, best first (the shared ranking: index.html of a web
 * build before its scripts), the chosen one applied. The choice is kept by path: the list reorders
 * when the tags change.
 */
function ChooseEntrypoint({ fix, onApply }: { fix: Extract<PackageFix, { kind: 'set_entrypoint' }>; onApply: (fix: PackageFix) => void }) {
  const selectId = useId();
  const [choice, setChoice] = useState<string | null>(null);
  if (fix.candidates.length === 0) return <p className="field_hint">{m.package_check_no_candidates()}</p>;
  const index = Math.max(0, fix.candidates.findIndex((parts) => parts.join('/') === choice));
  const chosen = fix.candidates[index]!;
  return (
    <div className="package_checks_choose">
      <label htmlFor={selectId} className="visually_hidden">
        {m.file_tree_start_file()}
      </label>
      <select id={selectId} className="select" value={index} onChange={(event) => setChoice(fix.candidates[Number(event.currentTarget.value)]?.join('/') ?? null)}>
        {fix.candidates.map((parts, i) => (
          <option key={parts.join('/')} value={i} dir="ltr">
            {parts.join('/')}
          </option>
        ))}
      </select>
      <button type="button" className="button" onClick={() => onApply({ ...fix, path: chosen })}>
        {fixLabel(fix)}
      </button>
    </div>
  );
}

/** A warning's sentence with its path, extension and tags isolated left to right ('.exe', not 'exe.', in Arabic). */
function WarningText({ warning }: { warning: PackageWarning }) {
  const parts = warningParts(warning);
  const ltr = (text: string) => (
    <bdi dir="ltr" className="package_checks_path">
      {text}
    </bdi>
  );
  return <>{rich(warningText(warning, { path: slot('path'), extension: slot('extension'), tags: slot('tags') }), { path: ltr(parts.path), extension: ltr(parts.extension), tags: ltr(parts.tags) })}</>;
}

/** Spec §5 package checks: each warning with its one-click fix. */
export function ChecksList({ warnings, onApply }: { warnings: readonly PackageWarning[]; onApply: (fix: PackageFix) => void }) {
  const headingId = useId();
  return (
    <section className="package_checks" aria-labelledby={headingId}>
      <h3 id={headingId} className="package_checks_heading">
        {m.new_package_checks_heading()}
      </h3>
      {warnings.length === 0 ? (
        <p className="package_checks_ok">{m.new_package_checks_ok()}</p>
      ) : (
        <ul className="package_checks_list">
          {warnings.map((warning, i) => (
            <li key={`${warning.code}-${i}`} className="package_checks_item" data-code={warning.code} data-blocks-create={warning.blocksCreate ? 'true' : undefined}>
              <p className="package_checks_text">
                <WarningText warning={warning} />
                {warning.blocksCreate ? <strong className="package_checks_blocks"> {m.package_check_blocks_create()}</strong> : null}
              </p>
              {warning.fix?.kind === 'set_entrypoint' ? (
                <ChooseEntrypoint fix={warning.fix} onApply={onApply} />
              ) : warning.fix ? (
                <button type="button" className="button" onClick={() => onApply(warning.fix!)}>
                  {fixLabel(warning.fix)}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
