/**
 * The system calls every sandboxed process of a session (the game, its X and sound servers, the
 * encoders) is refused: what container runtimes refuse by default (Docker's and Podman's profile),
 * which an unprivileged game never needs and the kernel's riskiest parts sit behind. Everything else
 * is allowed. libseccomp compiles it (cloudhost/seccomp/export-filter.c, through
 * `bun src/tools/build-seccomp-filter.ts`) into seccomp-filter.ts, which the agent hands to bubblewrap.
 *
 * Architectures: x86-64, and 32-bit x86 for i386 games (the same rules); x32 and any other
 * architecture's calls kill the process. clone3 is refused as unknown (ENOSYS) because its flags sit in
 * memory a filter cannot read: libc then falls back to clone, whose flags the filter does read.
 */
const EPERM = 1;
const ENOSYS = 38;

/** Refused outright with EPERM. */
export const refusedCalls = [
  // Mounts, namespaces, a new root: the sandbox's own shape stays as the agent made it.
  'mount',
  'umount',
  'umount2',
  'mount_setattr',
  'move_mount',
  'open_tree',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'pivot_root',
  'chroot',
  'unshare',
  'setns',
  // Kernel keyrings, BPF, performance counters, userfaultfd and io_uring: kernel attack surface.
  'add_key',
  'keyctl',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  // Other processes' memory and state.
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'pidfd_getfd',
  'move_pages',
  'migrate_pages',
  // Kernel modules, a new kernel, the machine itself.
  'init_module',
  'finit_module',
  'delete_module',
  'create_module',
  'query_module',
  'get_kernel_syms',
  'kexec_load',
  'kexec_file_load',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'quotactl',
  'quotactl_fd',
  'lookup_dcookie',
  'nfsservctl',
  'sysfs',
  '_sysctl',
  'uselib',
  'ustat',
  // Clocks of the whole machine.
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'stime',
  // Files by handle (past a bind mount's edge), raw ports, old modes.
  'name_to_handle_at',
  'open_by_handle_at',
  'iopl',
  'ioperm',
  'vm86',
  'vm86old',
] as const;

/** clone with any of these flags (a new namespace of any kind) is refused with EPERM. */
const refusedCloneFlags = {
  CLONE_NEWTIME: 0x00000080,
  CLONE_NEWNS: 0x00020000,
  CLONE_NEWCGROUP: 0x02000000,
  CLONE_NEWUTS: 0x04000000,
  CLONE_NEWIPC: 0x08000000,
  CLONE_NEWUSER: 0x10000000,
  CLONE_NEWPID: 0x20000000,
  CLONE_NEWNET: 0x40000000,
} as const;

/**
 * Socket families refused with EPERM: vsock reaches the hypervisor's services whatever the network
 * namespace; the kernel's crypto sockets are attack surface no game needs.
 */
const refusedSocketFamilies = { AF_ALG: 38, AF_VSOCK: 40 } as const;

/** ioctls refused with EPERM: pushing input into a terminal (TIOCSTI), the console's (TIOCLINUX). */
const refusedIoctls = { TIOCSTI: 0x5412, TIOCLINUX: 0x541c } as const;

/** The policy as export-filter.c reads it; the generated filter records this text's SHA-256. */
export function seccompPolicyText(): string {
  const hex = (value: number) => value.toString(16);
  const lines = ['default allow', 'arch x86_64', 'arch x86', 'badarch kill_process'];
  for (const call of refusedCalls) lines.push(`errno ${EPERM} ${call}`);
  lines.push(`errno ${ENOSYS} clone3`);
  for (const flag of Object.values(refusedCloneFlags)) lines.push(`errno-arg ${EPERM} clone 0 masked_eq ${hex(flag)} ${hex(flag)}`);
  for (const family of Object.values(refusedSocketFamilies)) lines.push(`errno-arg ${EPERM} socket 0 eq 0 ${hex(family)}`);
  for (const request of Object.values(refusedIoctls)) lines.push(`errno-arg ${EPERM} ioctl 1 masked_eq ffffffff ${hex(request)}`);
  return `${lines.join('\n')}\n`;
}
