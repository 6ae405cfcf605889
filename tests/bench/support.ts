/** A positive number from the environment variable `name`, `fallback` when unset; anything else throws. */
export function positiveNumber(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

/** Two decimals, two significant digits below 0.1 so small ratios stay comparable. */
export function formatRatio(value: number): string {
  return `${value < 0.1 ? value.toPrecision(2) : value.toFixed(2)}x`;
}

/** Measurements that could not be made: `fail` prints one, `hasFailed` tells the exit code. A missed goal is not one. */
export function trackFailures() {
  let failed = false;
  return {
    fail(message: string): void {
      failed = true;
      console.error(`bench: ${message}`);
    },
    hasFailed: (): boolean => failed,
  };
}
