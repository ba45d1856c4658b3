import { readFileSync } from 'node:fs';

/** Each area's goal, shared with stryker.config.mjs. */
export const MUTATION_GOALS: Record<string, number> = JSON.parse(
  readFileSync(new URL('../mutation-goals.json', import.meta.url), 'utf8'),
);

/** The part of Stryker's JSON report (mutation-testing-elements schema) the scores are made of. */
/**
 * Where an area's code lives: `functions` is the functions folder, `config` the one settings module,
 * any other area a folder of shared/.
 */
export const areaPath = (area: string): string =>
  area === 'functions' ? 'functions/' : area === 'config' ? 'shared/config.ts' : `shared/${area}/`;

export interface MutationReport {
  files: Record<string, { mutants: ReportedMutant[] }>;
}

export interface ReportedMutant {
  status: string;
  mutatorName?: string;
  replacement?: string;
  location?: { start: { line: number; column: number } };
}

export interface AreaScore {
  area: string;
  goal: number;
  /** Killed ÷ (killed + survived + no coverage), in percent; timeouts count as killed, as Stryker counts them. */
  score: number;
  detected: number;
  undetected: number;
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/**
 * The score of each area in a report. Stryker can break a run on its overall
 * score only, so an area below its goal would pass hidden behind a stronger one.
 */
export const areaScores = (report: MutationReport, areas: readonly string[]): AreaScore[] =>
  areas.map((area) => {
    let detected = 0;
    let undetected = 0;
    for (const [path, file] of Object.entries(report.files)) {
      if (!path.replaceAll('\\', '/').includes(areaPath(area))) continue;
      for (const { status } of file.mutants) {
        if (DETECTED.has(status)) detected++;
        else if (UNDETECTED.has(status)) undetected++;
      }
    }
    const total = detected + undetected;
    const score = total === 0 ? 100 : (100 * detected) / total;
    return { area, goal: MUTATION_GOALS[area] ?? 100, score, detected, undetected };
  });
