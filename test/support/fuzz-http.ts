import fc from 'fast-check';

/**
 * Generators for the parts of a raw HTTP request that the request line leaves open: header values
 * as bytes (Host, Content-Type, Digest parameters), and bodies that are not UTF-8 or hold text
 * that UTF-8 cannot carry. Values never hold CR or LF, which would end the header line itself.
 */
const noLineBreaks = (text: string) => text.replace(/[\r\n]/g, '');

/** Text outside ASCII: Latin-1, the euro sign, astral characters, lone surrogates (sent as U+FFFD). */
const NON_ASCII = ['é', '€', '😀', 'ß', '\u00a0', '\u2028', '\ud800', '\ufeff', 'Ω', '\u0000', '\u0001', '\u007f'];

const oddText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({
    unit: fc.constantFrom(...NON_ASCII, 'a', ' ', '"', '\\', ',', '=', ':', '/', '@', '[', ']'),
    maxLength: 12,
  }),
);

/** A header value as bytes on the wire: UTF-8 text, or bytes that are not UTF-8 at all. */
export const headerBytes = (text: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 4, arbitrary: text.map((value) => Buffer.from(noLineBreaks(value), 'utf8')) },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 16 })
        .map((bytes) => Buffer.from(bytes.filter((byte) => byte !== 0x0d && byte !== 0x0a))),
    },
  );

/** Host values: the server's own, other names, ports, and anything else. */
export const hostValue = (port: number) =>
  fc.oneof(
    fc.constant(`127.0.0.1:${port}`),
    fc.domain(),
    fc.tuple(fc.domain(), fc.integer({ min: 0, max: 99_999 })).map(([name, p]) => `${name}:${p}`),
    fc.constantFrom('[::1]', '[::1', 'localhost:', 'evil.example/x', 'user@evil.example', '€', ''),
    oddText,
  );

const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join(''));

/** Content-Type values: JSON in any case, with charsets good and bad, +json types, garbage. */
export const contentTypeValue = fc.oneof(
  { weight: 3, arbitrary: fc.constant('application/json') },
  { weight: 2, arbitrary: randomCase('application/json') },
  fc
    .tuple(
      randomCase('application/json'),
      fc.constantFrom('utf-8', 'UTF-8', '"utf-8"', 'utf8', 'iso-8859-1', 'latin1', 'utf-16', 'us-ascii', '', '€'),
    )
    .map(([type, charset]) => `${type}; charset=${charset}`),
  fc.constantFrom('application/merge-patch+json', 'application/ld+json', 'text/plain', 'application/json;', 'json'),
  oddText,
);

/** Values a Digest parameter may carry here: plain tokens, and text outside what RFC 7616 allows. */
export const digestParamValue = fc.oneof(
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 1, maxLength: 16 }) },
  oddText,
);

/** A body: a book with odd text fields (lone surrogates escaped in JSON), bytes that are not UTF-8, any JSON. */
export const oddBody = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({
        title: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), oddText),
        author: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), oddText),
        isbn: fc.oneof(
          fc.uuid().map((uuid) => uuid.replace(/-/g, '')),
          oddText,
        ),
        publicationYear: fc.integer({ min: 1000, max: 2100 }),
      })
      .map((book) => Buffer.from(JSON.stringify(book), 'utf8')),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('title', 'author', 'isbn'),
        fc.constantFrom('\\ud800', '\\udc00x', 'a\\ud83d', '\\udfff\\ud800'),
      )
      .map(([field, escaped]) => {
        const book = { title: 'T', author: 'A', isbn: `lone-${field}`, publicationYear: 2000, [field]: '@' };
        return Buffer.from(JSON.stringify(book).replace('"@"', `"${escaped}"`), 'utf8');
      }),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.boolean())
      .map(([bytes, wrapped]) =>
        wrapped
          ? Buffer.concat([Buffer.from('{"title":"'), Buffer.from(bytes), Buffer.from('"}')])
          : Buffer.from(bytes),
      ),
  },
  { weight: 1, arbitrary: fc.json().map((text) => Buffer.from(text, 'utf8')) },
);
