/** Polls until the condition holds (the UI saves asynchronously); false after the timeout. */
export async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await Bun.sleep(100);
  }
  return condition();
}

/** The local date `days` from now as a date input takes it (YYYY-MM-DD). */
export function dayInFuture(days: number): string {
  const date = new Date(Date.now() + days * 86_400_000);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}
