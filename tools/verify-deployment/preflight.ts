import { parseChallenges } from '../http-auth/challenges';
import { basicAuthorization, TransportError } from './http';
import type { Credentials, HttpClient } from './types';

/**
 * Why the run cannot start: nothing answers, no API at the base URL, or the credentials are
 * refused. Said in one line, before any check sends anything else: a refused password is sent once
 * per run, never once per check, so repeated runs with a wrong password cannot lock the account.
 */
class PreflightError extends Error {
  override readonly name = 'PreflightError';
}

/** The command that lifts a lockout on `npm start` or with the stack's table (docs/operations.md). */
const unlockCommand = (username: string) => `npm run users -- unlock ${username}`;

export interface PreflightOptions {
  baseUrl: string;
  credentials: Credentials;
  /** Said after "cannot reach": why the base URL was chosen (an address file of npm start, say). */
  unreachableHint?: string;
}

/**
 * One authenticated `GET /api/books?limit=1`. A 200 lets the checks run; the rest stops the run
 * with what the answer means: 404 (or API Gateway's 403 for a path outside every stage) a base URL
 * without its stage path, 401 a refused credential, naming what can be wrong and the unlock command,
 * since the API tells a locked account from a wrong password to nobody (docs/security.md).
 */
export const preflight = async (http: HttpClient, { baseUrl, credentials, unreachableHint }: PreflightOptions) => {
  const target = '/api/books?limit=1';
  const response = await http
    .send({ target, headers: { authorization: basicAuthorization(credentials) } })
    .catch((error: Error) => {
      if (!(error instanceof TransportError)) throw error;
      throw new PreflightError(
        `cannot reach ${baseUrl}: ${error.message}${unreachableHint ? `; ${unreachableHint}` : ''}`,
        {
          cause: error,
        },
      );
    });
  const url = http.urlOf('/api/books');
  const stage = 'the base URL is the stack output ApiUrl without /api/books, its stage included (…/prod)';
  if (response.status === 404)
    throw new PreflightError(`${url} answered 404: no API there. Is the stage path missing? ${stage}`);
  if (response.status === 403)
    throw new PreflightError(
      `${url} answered 403 to a signed-in request: the base URL may lack the stage path (${stage}), or, under sam local, the credentials were refused`,
    );
  if (response.status === 401) {
    const realms = [
      ...new Set(parseChallenges(response.headers.get('www-authenticate')).flatMap((c) => c.params.realm ?? [])),
    ];
    const realm = realms.length > 0 ? `"${realms.join('", "')}"` : 'unknown (no challenge came back)';
    throw new PreflightError(
      `the API refused the credentials of "${credentials.username}" (401): no such user in the server's realm ${realm}, ` +
        `a wrong password, or the account is locked by earlier failed sign-ins (the API does not say which); ` +
        `a lockout is lifted by \`${unlockCommand(credentials.username)}\` (with the stack's table name on AWS, docs/operations.md). ` +
        'No check was run, so this run counted one failed sign-in, not one per check',
    );
  }
};
