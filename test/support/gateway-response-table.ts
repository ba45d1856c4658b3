import {
  AUTHENTICATION_UNAVAILABLE_MESSAGE,
  GATEWAY_BODY_TOO_LARGE_MESSAGE,
  GATEWAY_TIMEOUT_MESSAGE,
  INTERNAL_ERROR_MESSAGE,
} from '../../shared/http/responses';

/** What a configured gateway response answers: its status (none: API Gateway's own is kept), body and Retry-After. */
export interface Configured {
  status?: string;
  /** contract: `{status, message}`; message: `{message}` alone; none: an empty body. */
  body: { shape: 'contract'; message: string } | { shape: 'message'; message: string } | { shape: 'none' };
  retryAfter?: boolean;
}
/** A type left to API Gateway's default (it then falls to DEFAULT_4XX or DEFAULT_5XX), and why. */
export type Left = { default: string };

/**
 * Every gateway response type API Gateway has (its developer guide's list of GatewayResponse types),
 * each with what this API answers or why the default stands.
 */
export const GATEWAY_RESPONSE_TABLE: Record<string, Configured | Left> = {
  ACCESS_DENIED: { status: '401', body: { shape: 'none' } },
  API_CONFIGURATION_ERROR: { default: 'a broken deployment, not a client: DEFAULT_5XX’s 500 body is the contract’s' },
  AUTHORIZER_CONFIGURATION_ERROR: {
    status: '503',
    body: { shape: 'contract', message: AUTHENTICATION_UNAVAILABLE_MESSAGE },
    retryAfter: true,
  },
  AUTHORIZER_FAILURE: {
    status: '503',
    body: { shape: 'contract', message: AUTHENTICATION_UNAVAILABLE_MESSAGE },
    retryAfter: true,
  },
  BAD_REQUEST_BODY: { default: 'no body validator (validateRequestBody false): the handlers answer 400' },
  BAD_REQUEST_PARAMETERS: { default: 'the only required parameters are path segments, present on every matched route' },
  DEFAULT_4XX: { body: { shape: 'message', message: '$context.error.messageString' } },
  DEFAULT_5XX: { body: { shape: 'message', message: INTERNAL_ERROR_MESSAGE } },
  EXPIRED_TOKEN: { default: 'no IAM (SigV4) authorization on any method' },
  INTEGRATION_FAILURE: { default: 'a Lambda invoke that failed: DEFAULT_5XX’s 500 body' },
  INTEGRATION_TIMEOUT: { status: '504', body: { shape: 'contract', message: GATEWAY_TIMEOUT_MESSAGE } },
  INVALID_API_KEY: { default: 'no method requires an API key' },
  INVALID_SIGNATURE: { default: 'no IAM (SigV4) authorization on any method' },
  MISSING_AUTHENTICATION_TOKEN: { status: '404', body: { shape: 'none' } },
  QUOTA_EXCEEDED: { default: 'no usage plan' },
  REQUEST_TOO_LARGE: { status: '413', body: { shape: 'contract', message: GATEWAY_BODY_TOO_LARGE_MESSAGE } },
  RESOURCE_NOT_FOUND: { status: '404', body: { shape: 'none' } },
  THROTTLED: { default: 'the stage throttle’s 429 through DEFAULT_4XX, status kept, `{message}` body' },
  UNAUTHORIZED: { status: '401', body: { shape: 'none' } },
  UNSUPPORTED_MEDIA_TYPE: { default: 'proxy integrations pass every media type (binaryMediaTypes */*)' },
  WAF_FILTERED: { default: 'only with -c webAclArn, whose own custom responses take precedence' },
};
