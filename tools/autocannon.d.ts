/**
 * The part of autocannon's API that tools/load.ts uses. autocannon ships no types and @types/autocannon
 * is not a dependency (the branches share one lock file), so this declares just what is called.
 */
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Request, context: any) => Request;
      onResponse?: (status: number, body: string, context: any, headers: Record<string, string>) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      amount?: number;
      duration?: number;
      timeout?: number;
      requests?: Request[];
    }
    interface Histogram {
      average: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
      max: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      errors: number;
      timeouts: number;
      duration: number;
      non2xx: number;
    }
    interface Instance extends PromiseLike<Result> {
      stop(): void;
    }
    function track(instance: Instance, options?: { renderProgressBar?: boolean; renderResultsTable?: boolean }): void;
  }
  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
