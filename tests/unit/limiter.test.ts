import { describe, expect, test } from 'bun:test';
import { createLimiter, eachLimited } from '../../src/shared/limiter.ts';

/** The one limiter (src/shared/limiter.ts): tasks at most `limit` at once, and eachLimited over it. */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('createLimiter', () => {
  test('runs at most `limit` tasks at once, the others in order', async () => {
    const limiter = createLimiter(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        limiter.run(async () => {
          started.push(n);
          most = Math.max(most, ++running);
          await tick();
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  test('free() resolves at once with room, else when a task ends', async () => {
    const limiter = createLimiter(1);
    await limiter.free();
    let finish!: () => void;
    const task = limiter.run(() => new Promise<void>((resolve) => (finish = resolve)));
    let freed = false;
    const free = limiter.free().then(() => (freed = true));
    await tick();
    expect(freed).toBe(false);
    finish();
    await task;
    await free;
    expect(freed).toBe(true);
  });
});

describe('eachLimited', () => {
  test('every item, at most `limit` in flight, and an async listing read no further ahead than that', async () => {
    let running = 0;
    let most = 0;
    let listed = 0;
    let done = 0;
    async function* items() {
      for (let n = 0; n < 10; n++) {
        listed++;
        expect(listed - done).toBeLessThanOrEqual(3);
        yield n;
      }
    }
    const seen: number[] = [];
    await eachLimited(items(), 3, async (n) => {
      most = Math.max(most, ++running);
      await tick();
      seen.push(n);
      running--;
      done++;
    });
    expect(most).toBe(3);
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('the first failure stops the loop and is thrown after the tasks in flight end', async () => {
    const started: number[] = [];
    let inFlight = 0;
    const run = eachLimited([0, 1, 2, 3, 4, 5, 6, 7], 2, async (n) => {
      started.push(n);
      inFlight++;
      await tick();
      inFlight--;
      if (n === 1) throw new Error('part 1 failed');
    });
    await expect(run).rejects.toThrow('part 1 failed');
    expect(inFlight).toBe(0);
    expect(started.length).toBeLessThan(8);
  });
});
