/**
 * A value given by a person (a flag, an action input, an environment variable) that is not of
 * the expected form. The message names the input, quotes the value and says what was expected.
 */
export class InputError extends Error {
  readonly code = 'invalid_input';
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}
