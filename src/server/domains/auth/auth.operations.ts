import { routes } from '../../../shared/api/routes.ts';
import { externalAuthFinishQuery, externalAuthStartQuery, finishedExternalAuthSchema, startedExternalAuthSchema } from '../../../shared/schemas/external-auth.ts';
import { bindOperations, handwritten } from '../../operations/binding.ts';
import { finishExternalAuth, startExternalAuth } from './external/external-auth.service.ts';
import { sessionProcedures } from './session-doors.ts';

const cookie = 'sets or clears the session cookie, never for another site’s page (session-doors.ts)';

export const authOperations = bindOperations('Auth', routes.auth, {
  session: handwritten('reads the session cookie and clears a stale one (session-doors.ts)', sessionProcedures.session),
  password: handwritten(cookie, sessionProcedures.password),
  clear: handwritten(cookie, sessionProcedures.clear),
  externalStart: {
    query: externalAuthStartQuery,
    reply: startedExternalAuthSchema,
    summary: 'Start an external sign-in (intent login, register, or link for a signed-in browser session): where to send the browser',
    errors: ['wrong_auth', 'not_found', 'not_supported'],
    run: ({ deps, actor, query, appUrl }) => startExternalAuth(deps, actor, query, appUrl),
  },
  externalFinish: {
    query: externalAuthFinishQuery,
    reply: finishedExternalAuthSchema,
    summary: 'Finish an external sign-in: the provider confirms the code; answers a single-use token for the next step',
    errors: ['wrong_auth', 'not_found', 'wrong_credentials', 'wrong_provider', 'timeout'],
    // A stale bearer token must not stop a sign-in.
    actor: 'none',
    run: ({ deps, query }) => finishExternalAuth(deps, query),
  },
  signInExternal: handwritten(cookie, sessionProcedures.signInExternal),
  registerExternal: handwritten(cookie, sessionProcedures.registerExternal),
});
