// C0 and C1 controls, DEL, and the bidirectional overrides and isolates that reorder what a terminal shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text that came from a server, made safe to print: every control character (ESC, CR, BEL, newline
 * …) written as a visible escape, so an answer cannot colour, retitle, rewrite or add report lines.
 */
export const escapeControl = (text: string) =>
  text.replace(UNPRINTABLE, (character) => {
    const code = character.codePointAt(0) as number;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
