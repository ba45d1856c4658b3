import { readSetting } from '../../shared/config';
import { bufferedJsonArray } from '../../shared/http/buffered-json-array';
import { httpHandler } from '../../shared/http/http-handler';
import { listBooks } from '../../shared/http/list-books';
import { bookService } from './wiring';

/**
 * The list without response streaming, for hosts that cannot relay a stream (`sam local start-api`,
 * a region without Lambda response streaming): the route table's `bufferedEntry`, built by the
 * samLocal synth (docs/sam.md) and with the bufferedList option (docs/operations.md).
 */
export const handler = httpHandler(
  listBooks(bookService, (books) => bufferedJsonArray(books, { maxItems: readSetting('listMaxBooks') })),
);
