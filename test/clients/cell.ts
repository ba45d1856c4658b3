/**
 * One cell of the client matrix: a client asked to authenticate with a scheme in a mode, as one user,
 * on a GET with a query and a POST. `any` is a client that picks the scheme itself from the challenge.
 */
export type Scheme = 'basic' | 'digest' | 'any';
export type Mode = 'challenge' | 'preemptive';

export interface Cell {
  base: string;
  path: string;
  body: string;
  scheme: Scheme;
  mode: Mode;
  user: string;
  password: string;
}

/** What a client's driver prints: the final status of each request, or why it could not make them. */
export interface Answer {
  get?: number;
  post?: number;
  error?: string;
}
