/** One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1). */
export interface Challenge {
  /** Lower-cased: schemes compare case-insensitively. */
  scheme: string;
  /** Parameter names lower-cased (they compare case-insensitively); quoted values unescaped. */
  params: Record<string, string>;
  token68?: string;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const PARAM = new RegExp(`^(${TOKEN})\\s*=\\s*(.*)$`, 's');
const SCHEME_AND_REST = new RegExp(`^(${TOKEN})\\s+([^=\\s].*)$`, 's');
const SCHEME_ALONE = new RegExp(`^(${TOKEN})$`);

/** The field split at the commas that stand outside quoted strings, each element trimmed. */
const listElements = (field: string): string[] => {
  const elements: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < field.length; i++) {
    const char = field[i] as string;
    if (quoted && char === '\\') {
      current += char + (field[i + 1] ?? '');
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === ',' && !quoted) {
      elements.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  elements.push(current.trim());
  return elements.filter((element) => element !== '');
};

const paramValue = (text: string): string => {
  const trimmed = text.trim();
  if (!trimmed.startsWith('"')) return trimmed;
  return trimmed.replace(/^"|"$/g, '').replace(/\\(.)/gs, '$1');
};

/**
 * Every challenge of a field, in order. A challenge's own parameters are comma-separated like the
 * challenges themselves, so an element decides: `name=value` belongs to the challenge before it;
 * `scheme`, or `scheme` and a space before a parameter or a token68, starts a new one. A parameter
 * before any scheme, a repeated parameter (the first counts) and empty elements are ignored, as a
 * lenient client does; the checks then say what was missing.
 */
export const parseChallenges = (field: string | null | undefined): Challenge[] => {
  const challenges: Challenge[] = [];
  const addParam = (challenge: Challenge | undefined, element: string) => {
    const match = PARAM.exec(element);
    if (!challenge || !match) return;
    const name = (match[1] as string).toLowerCase();
    if (!(name in challenge.params)) challenge.params[name] = paramValue(match[2] as string);
  };
  for (const element of listElements(field ?? '')) {
    const opening = SCHEME_AND_REST.exec(element);
    if (opening) {
      const challenge: Challenge = { scheme: (opening[1] as string).toLowerCase(), params: {} };
      const rest = opening[2] as string;
      if (PARAM.test(rest) && !/^[A-Za-z0-9._~+/-]+=+$/.test(rest)) addParam(challenge, rest);
      else challenge.token68 = rest;
      challenges.push(challenge);
    } else if (SCHEME_ALONE.test(element)) {
      challenges.push({ scheme: element.toLowerCase(), params: {} });
    } else {
      addParam(challenges.at(-1), element);
    }
  }
  return challenges;
};

export const challengesOf = (challenges: Challenge[], scheme: string) =>
  challenges.filter((challenge) => challenge.scheme === scheme);

/** Every Digest nonce of a field. */
export const noncesOf = (challenges: Challenge[]) =>
  challengesOf(challenges, 'digest').flatMap((challenge) => challenge.params.nonce ?? []);

/** A field that is a list of parameters only, as `Authentication-Info` (RFC 9110 §11.6.3). */
export const parseAuthParams = (field: string | null | undefined): Record<string, string> => {
  const params: Record<string, string> = {};
  for (const element of listElements(field ?? '')) {
    const match = PARAM.exec(element);
    const name = match?.[1]?.toLowerCase();
    if (match && name && !(name in params)) params[name] = paramValue(match[2] as string);
  }
  return params;
};
