/** The Authorization header cannot be read (syntax, size, duplicate parameters). */
export class MalformedAuthorizationError extends Error {
  override readonly name = 'MalformedAuthorizationError';
}
