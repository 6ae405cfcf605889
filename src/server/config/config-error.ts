/** A setting the server cannot start with: one line naming the variable at fault (main.ts exits 2). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
