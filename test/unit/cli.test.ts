import { describe, expect, it, vi } from 'vitest';
import { integerOption, parseCommandLine, stackFrames, UsageError } from '../../tools/cli';

const spec = (args: string[]) => ({
  command: 'npm run example --',
  help: 'Usage: npm run example',
  options: { count: { type: 'string' }, json: { type: 'boolean', default: false } } as const,
  args,
});

describe('the tools’ command line', () => {
  it('parses the declared options', () => {
    expect(parseCommandLine(spec(['--count', '3', '--json']))?.values).toMatchObject({ count: '3', json: true });
  });

  it('answers -h and --help on every tool with its help text, and nothing to run', () => {
    const print = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(parseCommandLine(spec(['--help']))).toBeUndefined();
      expect(parseCommandLine(spec(['-h']))).toBeUndefined();
      expect(print).toHaveBeenCalledWith('Usage: npm run example');
    } finally {
      print.mockRestore();
    }
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--count'], /argument missing/],
    [['stray'], /Unexpected argument 'stray'/],
  ])('turns %j into a usage error', (args, message) => {
    expect(() => parseCommandLine(spec(args))).toThrow(UsageError);
    expect(() => parseCommandLine(spec(args))).toThrow(message);
  });

  it('reads whole numbers within bounds and names the option otherwise', () => {
    expect(integerOption('count', undefined, 7)).toBe(7);
    expect(integerOption('count', '12', 7, { max: 12 })).toBe(12);
    for (const text of ['0', '13', '1.5', '', ' ', 'x', '1e3']) {
      expect(() => integerOption('count', text, 7, { max: 12 })).toThrow(new UsageError('--count must be 1..12'));
    }
    expect(() => integerOption('runs', '-1', 7)).toThrow('--runs must be a positive integer');
    expect(() => integerOption('runs', '1e3', 7)).toThrow(UsageError);
  });
});

describe('DEBUG’s stack', () => {
  it('prints the frames only, escaped: never the message a server wrote, nor its escape sequences', () => {
    const error = new Error('server said \u001b]0;owned\u0007\nerror: fake line');
    const printed = stackFrames(error);
    expect(printed).toMatch(/^\s+at /);
    expect(printed).not.toContain('server said');
    expect(printed).not.toContain('fake line');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for the raw control characters.
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });
});
