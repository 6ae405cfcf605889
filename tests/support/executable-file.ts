/**
 * Writes an executable that a test runs. The bytes are written by a short child process, never
 * through a descriptor of this process: Linux refuses to exec a file (ETXTBSY) while any process holds
 * it open for writing, and a child forked elsewhere in this process at the moment of a write here
 * would hold that descriptor until its own exec, so the program could fail to start now and then.
 */
export function writeExecutable(path: string, text: string): string {
  const result = Bun.spawnSync(['sh', '-c', 'cat > "$1" && chmod 755 "$1"', 'sh', path], { stdin: new TextEncoder().encode(text), stdout: 'ignore', stderr: 'pipe' });
  if (result.exitCode !== 0) throw new Error(`could not write ${path}: ${result.stderr.toString().trim()}`);
  return path;
}
