import { existsSync, readFileSync } from 'node:fs';
import type { MutationReport } from './mutation-score';

/** A mutant no test can tell from the code, with the reason why (mutation-equivalents.json). */
export interface EquivalentMutant {
  file: string;
  mutator: string;
  replacement: string;
  reason: string;
}

const EQUIVALENTS_FILE = new URL('../mutation-equivalents.json', import.meta.url);

export const loadEquivalents = (): EquivalentMutant[] =>
  existsSync(EQUIVALENTS_FILE) ? (JSON.parse(readFileSync(EQUIVALENTS_FILE, 'utf8')) as EquivalentMutant[]) : [];

/**
 * The survivors (and uncovered mutants) of a report that the equivalents list does not name, each as
 * `file:line mutator → replacement`. Matched by file, mutator and replacement, not by line, so an
 * entry outlives edits above it.
 */
export const survivorsOutsideEquivalents = (
  report: MutationReport,
  equivalents: readonly EquivalentMutant[] = loadEquivalents(),
): string[] => {
  const listed = new Set(equivalents.map(({ file, mutator, replacement }) => `${file}\0${mutator}\0${replacement}`));
  return Object.entries(report.files).flatMap(([path, { mutants }]) => {
    const file = path.replaceAll('\\', '/');
    return mutants
      .filter(({ status }) => status === 'Survived' || status === 'NoCoverage')
      .filter(({ mutatorName, replacement }) => !listed.has(`${file}\0${mutatorName}\0${replacement}`))
      .map(
        ({ mutatorName, replacement, location }) => `${file}:${location?.start.line} ${mutatorName} → ${replacement}`,
      );
  });
};
