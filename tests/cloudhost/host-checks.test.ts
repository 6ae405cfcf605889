import { describe, expect, test } from 'bun:test';
import { displayInUse } from '../../cloudhost/src/display.ts';
import { agentCapabilities, effectiveCapabilities, missingCapabilities } from '../../cloudhost/src/privileges.ts';
import { extractedBytes, mountsBelow } from '../../cloudhost/src/session-disk.ts';
import type { ArchiveDirectory, ArchiveIndex } from '../../src/shared/archive/types.ts';

describe('what the agent reads off its host', () => {
  test('capabilities from /proc/self/status: the missing ones by name', () => {
    const status = (capEff: string) => `Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t${capEff}\nCapBnd:\t000001ffffffffff\n`;
    expect(effectiveCapabilities(status('000001ffffffffff'))).toBe(0x1ffffffffffn);
    expect(missingCapabilities(['setuid', 'sys_admin'], effectiveCapabilities(status('000001ffffffffff')))).toEqual([]);
    // setuid, setgid, chown, dac_override, kill only (bits 7, 6, 0, 1, 5): sys_admin (21) is missing.
    const bounded = (1n << 7n) | (1n << 6n) | 1n | 2n | (1n << 5n);
    expect(missingCapabilities(['setuid', 'sys_admin', 'kill'], bounded)).toEqual(['sys_admin']);
    expect(missingCapabilities(Object.keys(agentCapabilities) as (keyof typeof agentCapabilities)[], 0n)).toHaveLength(6);
    expect(effectiveCapabilities('Name:\tx\n')).toBe(0n);
  });

  test('mounts below a folder, octal escapes read back, deepest paths kept whole', () => {
    const mountinfo = [
      '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
      '90 22 0:50 / /var/lib/agent/sessions/abc rw,nosuid,nodev - tmpfs cartridge-session rw,size=1024k',
      '91 22 0:51 / /var/lib/agent/sessions/with\\040space rw - tmpfs cartridge-session rw',
      '92 22 0:52 / /var/lib/agent/sessions-other/x rw - tmpfs other rw',
      '93 22 0:53 / /var/lib/agent/sessions rw - tmpfs other rw',
    ].join('\n');
    expect(mountsBelow('/var/lib/agent/sessions', mountinfo)).toEqual(['/var/lib/agent/sessions/abc', '/var/lib/agent/sessions/with space']);
    expect(mountsBelow('/var/lib/agent/sessions/', mountinfo)).toHaveLength(2);
  });

  test('a display number is taken when an X server of the host listens on its abstract socket', () => {
    const netUnix = [
      'Num       RefCount Protocol Flags    Type St Inode Path',
      '0000000000000000: 00000002 00000000 00010000 0001 01 24150 @/tmp/.X11-unix/X101',
      '0000000000000000: 00000002 00000000 00010000 0001 01 24151 /tmp/.X11-unix/X102',
      '',
    ].join('\n');
    expect(displayInUse(101, netUnix)).toBe(true);
    expect(displayInUse(10, netUnix)).toBe(false);
    expect(displayInUse(1010, netUnix)).toBe(false);
    // A socket file alone leads nowhere for the jailed encoders (their /tmp is their own).
    expect(displayInUse(102, netUnix)).toBe(false);
  });

  test('a package takes whole pages on the tmpfs: a page per file beyond its content, one per folder', () => {
    const file = (name: string, size: number) => ({ kind: 'file' as const, name, size, mode: 0o644 });
    const sub: ArchiveDirectory = { kind: 'directory', name: 'data', size: 5000, mode: 0o755, entries: new Map([['big', file('big', 5000)]]) };
    const root: ArchiveDirectory = { kind: 'directory', name: '', size: 5001, mode: 0o755, entries: new Map<string, ArchiveDirectory | ReturnType<typeof file>>([['a', file('a', 1)], ['data', sub]]) };
    const index: ArchiveIndex = { chunking: 1, compression: 0, root };
    // a: 4096 + 4096; data/: 4096; data/big: 8192 + 4096.
    expect(extractedBytes(index)).toBe(8192 + 4096 + 12_288);
  });
});
