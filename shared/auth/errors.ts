/**
 * The credentials could not be checked: the account store throttled a call or failed. Thrown by
 * the authorizer, so the gateway answers 503 with Retry-After (its authorizer-failure response).
 */
export class AuthenticationUnavailableError extends Error {
  override readonly name = 'AuthenticationUnavailableError';
}

/** The Authorization header cannot be read (syntax, size, duplicate parameters). */
export class MalformedAuthorizationError extends Error {
  override readonly name = 'MalformedAuthorizationError';
}
