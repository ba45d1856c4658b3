/**
 * Bytes of JSON text gathered into one write to the response stream: each write is a chunk on the
 * wire (and a call into Lambda's runtime), so a few hundred books go together rather than one each.
 */
export const STREAM_CHUNK_BYTES = 32 * 1024;

/**
 * The JSON text of an array, serialised item by item as the items arrive and handed on in chunks of
 * about `chunkBytes` characters, the first as soon as the first item is there. If the items fail,
 * the error passes through and the closing bracket is never produced: what was handed on is an
 * unfinished array. Written by hand because it is a loop over an async iterator, and the JSON
 * streaming libraries parse rather than write, or buffer the whole value.
 */
export async function* jsonArrayChunks(
  items: AsyncIterable<unknown>,
  chunkBytes: number = STREAM_CHUNK_BYTES,
): AsyncGenerator<string, void, undefined> {
  // Parts joined once per chunk: the socket needs flat text, and `+=` would build a rope that the
  // write then copies again.
  let parts: string[] = [];
  let length = 0;
  let first = true;
  for await (const item of items) {
    const text = JSON.stringify(item);
    parts.push(text);
    length += text.length + 1;
    if (first || length >= chunkBytes) {
      yield first ? `[${text}` : `,${parts.join(',')}`;
      parts = [];
      length = 0;
      first = false;
    }
  }
  if (first) yield '[]';
  else yield parts.length > 0 ? `,${parts.join(',')}]` : ']';
}
