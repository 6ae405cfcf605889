/*
 * Compiles a seccomp policy into the BPF program bubblewrap's --seccomp takes, with libseccomp (the
 * library container runtimes use). The policy comes on stdin, one rule a line (cloudhost/src/
 * seccomp-policy.ts writes it); the program goes to stdout (`--version`: libseccomp's). Built and run by
 * src/tools/build-seccomp-filter.ts; nothing here is policy.
 *
 *   arch NAME                          x86_64, x86, x32 (the first is the native one)
 *   default allow
 *   badarch kill_process
 *   errno ERRNO SYSCALL                refuse the call with ERRNO (a number)
 *   errno-arg ERRNO SYSCALL ARG OP MASK VALUE
 *                                      refuse it when argument ARG compares: OP masked_eq (arg & MASK) == VALUE,
 *                                      or eq (MASK ignored)
 */
#include <errno.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(int line, const char *what) {
  fprintf(stderr, "policy line %d: %s\n", line, what);
  exit(2);
}

static int syscall_number(int line, const char *name) {
  int number = seccomp_syscall_resolve_name(name);
  if (number == __NR_SCMP_ERROR) fail(line, "unknown system call");
  return number;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    const struct scmp_version *version = seccomp_version();
    printf("libseccomp %u.%u.%u\n", version->major, version->minor, version->micro);
    return 0;
  }
  scmp_filter_ctx filter = NULL;
  char text[512];
  int line = 0;
  while (fgets(text, sizeof text, stdin)) {
    line++;
    text[strcspn(text, "\n")] = 0;
    if (text[0] == 0 || text[0] == '#') continue;
    char word[32], name[64], op[32];
    unsigned long long errno_value, arg, mask, value;
    if (sscanf(text, "default %31s", word) == 1) {
      if (strcmp(word, "allow") != 0) fail(line, "only 'default allow'");
      if (filter) fail(line, "default given twice");
      filter = seccomp_init(SCMP_ACT_ALLOW);
      if (!filter) fail(line, "seccomp_init failed");
      continue;
    }
    if (!filter) fail(line, "'default' must come first");
    if (sscanf(text, "arch %31s", word) == 1) {
      uint32_t token = seccomp_arch_resolve_name(word);
      if (token == 0) fail(line, "unknown architecture");
      if (token == seccomp_arch_native()) continue;
      if (seccomp_arch_add(filter, token) != 0) fail(line, "seccomp_arch_add failed");
    } else if (sscanf(text, "badarch %31s", word) == 1) {
      if (strcmp(word, "kill_process") != 0) fail(line, "only 'badarch kill_process'");
      if (seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) fail(line, "badarch not set");
    } else if (sscanf(text, "errno-arg %llu %63s %llu %31s %llx %llx", &errno_value, name, &arg, op, &mask, &value) == 6) {
      if (arg > 5) fail(line, "argument index past 5");
      struct scmp_arg_cmp compare;
      if (strcmp(op, "masked_eq") == 0) compare = SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, mask, value);
      else if (strcmp(op, "eq") == 0) compare = SCMP_CMP64(arg, SCMP_CMP_EQ, value);
      else fail(line, "unknown comparison");
      int result = seccomp_rule_add_array(filter, SCMP_ACT_ERRNO(errno_value), syscall_number(line, name), 1, &compare);
      if (result != 0) fail(line, strerror(-result));
    } else if (sscanf(text, "errno %llu %63s", &errno_value, name) == 2) {
      int result = seccomp_rule_add(filter, SCMP_ACT_ERRNO(errno_value), syscall_number(line, name), 0);
      if (result != 0) fail(line, strerror(-result));
    } else {
      fail(line, "not a rule");
    }
  }
  if (!filter) fail(line, "empty policy");
  if (seccomp_export_bpf(filter, 1) != 0) fail(line, "seccomp_export_bpf failed");
  seccomp_release(filter);
  return 0;
}
