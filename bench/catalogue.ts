import type { Book } from '../shared/books/types';

/** About the size of a real catalogue record, in JSON: a long title, a full author name. */
export const CATALOGUE_BOOK_JSON_BYTES = 700;

const TITLE = 'A Treatise on the Cataloguing of Very Large Libraries, with Notes on Shelving, Lending and Repair';
const AUTHOR = 'Professor Emerita Maria-Aleksandra Konstantinopoulou-Vanderbilt of the Royal Library';

/**
 * Book `id` of a catalogue whose JSON records are about CATALOGUE_BOOK_JSON_BYTES each: what the
 * streamed list is measured and tested with (a whole list of 25,000 of them is over 17 MB).
 */
export const catalogueBook = (id: number): Book => {
  const stamp = '2026-01-01T00:00:00.000Z';
  return {
    id,
    title: `${TITLE}, Volume ${id}: ${TITLE}; ${TITLE}; ${TITLE}`.slice(0, 500),
    author: `${AUTHOR}, with ${AUTHOR.slice(0, 40)} ${id % 101}`,
    isbn: `978-1-${String(id).padStart(9, '0')}`,
    publicationYear: 1800 + (id % 226),
    createdAt: stamp,
    updatedAt: stamp,
  };
};
