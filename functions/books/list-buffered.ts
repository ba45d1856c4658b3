import { readSetting } from '../../shared/config';
import { bufferedJsonArray } from '../../shared/http/buffered-json-array';
import { httpHandler } from '../../shared/http/http-handler';
import { listBooks } from '../../shared/http/list-books';
import { bookService } from './wiring';

/**
 * The list without response streaming, for hosts that cannot relay a stream (`sam local start-api`):
 * the route table's `bufferedEntry`, built only by the samLocal synth (docs/sam.md).
 */
export const handler = httpHandler(
  listBooks(bookService, (books) => bufferedJsonArray(books, { maxItems: readSetting('listMaxBooks') })),
);
