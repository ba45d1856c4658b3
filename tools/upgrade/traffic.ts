import { randomInt } from 'node:crypto';

/**
 * Continuous book traffic for the upgrade drill: each worker creates its own books and gets, patches,
 * lists and deletes them through whichever servers are current, so every outcome is known, and
 * records every 5xx (or refused connection) with the drill step it happened in.
 */
export interface Fault {
  step: string;
  request: string;
  status: number | string;
  body: string;
}

/** A book's last acknowledged state: its title, or deleted. */
type Acknowledged = { title: string } | 'deleted';

const AUTHORIZATION = `Basic ${Buffer.from('demo:demo').toString('base64')}`;

/** A valid ISBN-13 (978 prefix, its check digit), random enough that workers never collide. */
const isbn13 = () => {
  const digits = `978${String(randomInt(0, 1e9)).padStart(9, '0')}`;
  const sum = [...digits].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return `${digits}${(10 - (sum % 10)) % 10}`;
};

export class Traffic {
  readonly faults: Fault[] = [];
  readonly books = new Map<number, Acknowledged>();
  requests = 0;
  private targets: string[] = [];
  private step = '';
  private running = false;
  private workers: Promise<void>[] = [];

  /** The servers the traffic goes to from now on, round robin, and the drill step it counts under. */
  route(step: string, targets: string[]) {
    this.step = step;
    this.targets = targets;
  }

  start(workers: number) {
    this.running = true;
    this.workers = Array.from({ length: workers }, (_, n) => this.work(n));
  }

  async stop() {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** One request to the next current server; a 5xx or a refused connection is a fault. */
  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const base = this.targets[this.requests++ % this.targets.length];
    const step = this.step;
    const request = `${method} ${base}${path}`;
    try {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: AUTHORIZATION,
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status >= 500) this.faults.push({ step, request, status: response.status, body: text });
      return { status: response.status, text };
    } catch (error) {
      this.faults.push({ step, request, status: 'no answer', body: String((error as Error).cause ?? error) });
      return { status: 0, text: '' };
    }
  }

  private async work(worker: number) {
    let round = 0;
    while (this.running) {
      round++;
      const title = `Drill ${worker}.${round}`;
      const created = await this.send('POST', '/api/books', {
        title,
        author: `Worker ${worker}`,
        isbn: isbn13(),
        publicationYear: 2001,
      });
      if (created.status !== 201) continue;
      const { id } = JSON.parse(created.text) as { id: number };
      this.books.set(id, { title });
      await this.send('GET', `/api/books/${id}`);
      const patched = await this.send(
        'PATCH',
        `/api/books/${id}`,
        { title: `${title} patched` },
        {
          'content-type': 'application/merge-patch+json',
        },
      );
      if (patched.status === 200) this.books.set(id, { title: `${title} patched` });
      await this.send('GET', `/api/books?author=${encodeURIComponent(`Worker ${worker}`)}`);
      if (round % 3 === 0) {
        const deleted = await this.send('DELETE', `/api/books/${id}`);
        if (deleted.status === 204) this.books.set(id, 'deleted');
      }
    }
  }
}

/** Every acknowledged write as `base` reads it back: the mismatches, as lines for the report. */
export const unreadableWrites = async (traffic: Traffic, base: string): Promise<string[]> => {
  const wrong: string[] = [];
  for (const [id, expected] of traffic.books) {
    const response = await fetch(`${base}/api/books/${id}`, { headers: { authorization: AUTHORIZATION } });
    const text = await response.text();
    if (expected === 'deleted') {
      if (response.status !== 404) wrong.push(`book ${id}: deleted, but ${base} answers ${response.status}`);
    } else if (response.status !== 200 || (JSON.parse(text) as { title: string }).title !== expected.title) {
      wrong.push(
        `book ${id}: "${expected.title}" acknowledged, ${base} answers ${response.status} ${text.slice(0, 120)}`,
      );
    }
  }
  return wrong;
};
