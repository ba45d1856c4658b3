import { ValidationError } from '../../shared/books/errors';

/** The field errors a parse rejects its input with; fails the test when it accepts the input or throws anything else. */
export const errorsOf = (parse: () => unknown) => {
  try {
    parse();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
};
