import { beforeAll, describe, expect, test } from 'bun:test';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { seccompFilter } from '../../cloudhost/src/seccomp-filter.ts';
import { refusedCalls, seccompPolicyText } from '../../cloudhost/src/seccomp-policy.ts';
import { generateSeccompModule } from '../../src/tools/build-seccomp-filter.ts';
import { requireHostPrograms } from '../support/cloudhost-tools.ts';

beforeAll(() => requireHostPrograms());

/**
 * The committed filter is exactly what libseccomp makes of the policy (so nobody edits the BPF by
 * hand, and a policy change without a rebuild fails here); what it refuses in a real sandbox is
 * hostile-game.test.ts's.
 */
describe('the seccomp filter', () => {
  test('is what libseccomp compiles the policy to, byte for byte', () => {
    const committed = readFileSync(new URL('../../cloudhost/src/seccomp-filter.ts', import.meta.url), 'utf8');
    expect(generateSeccompModule()).toBe(committed);
    expect(seccompFilter.policySha256).toBe(createHash('sha256').update(seccompPolicyText()).digest('hex'));
  });

  test('names only system calls libseccomp knows, once each', () => {
    expect(new Set(refusedCalls).size).toBe(refusedCalls.length);
    // scmp_sys_resolver (Debian's seccomp package) resolves each for x86-64 or x86 (some exist on one only).
    const unknown = refusedCalls.filter((call) => {
      const onArch = (arch: string) => execFileSync('scmp_sys_resolver', ['-a', arch, call], { encoding: 'utf8' }).trim();
      return Number(onArch('x86_64')) < 0 && Number(onArch('x86')) < 0;
    });
    expect(unknown).toEqual([]);
  });

  test('is a whole BPF program that kills calls of other architectures', () => {
    const program = Buffer.from(seccompFilter.base64, 'base64');
    expect(program.length).toBe(seccompFilter.instructions * 8);
    // The first instruction loads the architecture (offset 4 of seccomp_data).
    expect(program.readUInt16LE(0)).toBe(0x20);
    expect(program.readUInt32LE(4)).toBe(4);
    // SECCOMP_RET_KILL_PROCESS is returned somewhere (the bad-architecture branch).
    const returns = [];
    for (let offset = 0; offset < program.length; offset += 8) if (program.readUInt16LE(offset) === 0x06) returns.push(program.readUInt32LE(offset + 4));
    expect(returns).toContain(0x80000000);
    expect(returns).toContain(0x7fff0000);
    expect(returns).toContain(0x00050001);
  });
});
