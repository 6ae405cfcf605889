import { version_delete_refused_text } from '../../../../shared/i18n/paraglide/messages/version_delete_refused_text.js';
import type { VersionInBranch } from '../../../../shared/schemas/versions.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { version_delete_refused_text };

/** Why a version cannot be deleted (not_empty): the branches where it is current. */
export function InUseMessage({ versionTitle, branches }: { versionTitle: string; branches: VersionInBranch[] }) {
  return (
    <div data-error-code="not_empty">
      <p>{m.version_delete_refused_text({ title: versionTitle })}</p>
      {branches.length > 0 ? (
        <ul className="version_in_use" data-testid="version-in-use">
          {branches.map((branch) => (
            <li key={branch.branchId}>{branch.branchTitle}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
