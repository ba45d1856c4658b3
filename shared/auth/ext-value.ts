/**
 * RFC 8187 ext-value (`UTF-8''j%C3%B6rg`), as Digest's `username*` carries it (RFC 7616 §3.4.4).
 * Written here because it is four lines of grammar: the libraries that parse it (content-disposition)
 * do so only inside their own header. Only UTF-8 is accepted; anything else is undefined.
 */
export const decodeExtValue = (value: string): string | undefined => {
  const match = /^UTF-8'[A-Za-z0-9-]*'((?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-Fa-f]{2})*)$/i.exec(value);
  if (!match) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from((match[1] as string).match(/%[0-9A-Fa-f]{2}|[^%]/g) ?? [], (part) =>
        part.length === 3 ? Number.parseInt(part.slice(1), 16) : part.charCodeAt(0),
      ),
    );
  } catch {
    return undefined;
  }
};
