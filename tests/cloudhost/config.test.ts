import { describe, expect, test } from 'bun:test';
import { agentVersion, ConfigError, parseCommandLine, type AgentConfig } from '../../cloudhost/src/config.ts';
import { machineProvideInput } from '../../src/shared/schemas/cloud-play.ts';

const noFile = (path: string): string => {
  throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
};

function run(argv: string[], env: Record<string, string> = {}, readFile: (path: string) => string = noFile): AgentConfig {
  const parsed = parseCommandLine(argv, env, readFile);
  if (parsed.kind !== 'run') throw new Error(`not a run: ${parsed.kind}`);
  return parsed.config;
}

function refused(argv: string[], env: Record<string, string> = {}, readFile: (path: string) => string = noFile): string {
  try {
    parseCommandLine(argv, env, readFile);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('cloudhost command line', () => {
  test('the brief’s command line, with defaults for the rest', () => {
    const config = run(['--server', 'https://play.example.org/', '--token', 'mt_abc123', '--capacity', '3', '--work-dir', '/srv/cloudhost/']);
    expect(config.server).toBe('https://play.example.org');
    expect(config.token).toBe('mt_abc123');
    expect(config.capacity).toBe(3);
    expect(config.workDir).toBe('/srv/cloudhost');
    expect(config.codec).toBe('h264');
    expect(config.displayBase).toBe(100);
    expect(config.sandboxUidBase).toBe(61000);
    expect(config.gopSeconds).toBe(1);
    expect(config.memoryMb).toBe(8192);
    expect(config.programs.bwrap).toBe('bwrap');
  });

  test('--name=value, environment fallbacks, and the token from a file or CLOUDHOST_TOKEN', () => {
    const files: Record<string, string> = { '/etc/cloudhost/token': 'mt_from_file\n' };
    const fromFile = run(['--server=http://127.0.0.1:3000', '--token-file=/etc/cloudhost/token'], {}, (path) => files[path] ?? noFile(path));
    expect(fromFile.token).toBe('mt_from_file');
    const fromEnv = run([], { CLOUDHOST_SERVER: 'http://h', CLOUDHOST_TOKEN: 'mt_env', CLOUDHOST_CAPACITY: '2', CLOUDHOST_WORK_DIR: '/w', CLOUDHOST_LOG_LEVEL: 'debug' });
    expect(fromEnv).toMatchObject({ server: 'http://h', token: 'mt_env', capacity: 2, workDir: '/w', logLevel: 'debug' });
    const envFile = run(['--server', 'http://h'], { CLOUDHOST_TOKEN_FILE: '/etc/cloudhost/token', CLOUDHOST_TOKEN: 'ignored' }, (path) => files[path] ?? noFile(path));
    expect(envFile.token).toBe('mt_from_file');
    // The command line wins over the environment.
    expect(run(['--server', 'http://a', '--token', 't', '--capacity', '5'], { CLOUDHOST_CAPACITY: '2' }).capacity).toBe(5);
  });

  test('help and version', () => {
    expect(parseCommandLine(['--help'], {}, noFile)).toEqual({ kind: 'help' });
    expect(parseCommandLine(['--server', 'x', '-h'], {}, noFile)).toEqual({ kind: 'help' });
    expect(parseCommandLine(['--version'], {}, noFile)).toEqual({ kind: 'version' });
  });

  test('bad command lines are refused naming the option', () => {
    expect(refused([])).toContain('--server');
    expect(refused(['--server', 'http://h'])).toContain('no machine token');
    expect(refused(['--server', 'ftp://h', '--token', 't'])).toContain('http');
    expect(refused(['--server', 'http://user:pw@h', '--token', 't'])).toContain('credentials');
    expect(refused(['--server', 'not a url', '--token', 't'])).toContain('not a URL');
    expect(refused(['--server', 'http://h', '--token', 't', '--token-file', '/f'])).toContain('one way');
    expect(refused(['--server', 'http://h', '--token-file', '/missing'])).toContain('cannot read /missing (ENOENT)');
    expect(refused(['--server', 'http://h', '--token', 'has space'])).toContain('spaces');
    expect(refused(['--server', 'http://h', '--token', 't', '--capacity', '65'])).toContain('--capacity');
    expect(refused(['--server', 'http://h', '--token', 't', '--capacity', 'two'])).toContain('whole number');
    expect(refused(['--server', 'http://h', '--token', 't', '--codec', 'av1'])).toContain('--codec');
    expect(refused(['--server', 'http://h', '--token', 't', '--work-dir', 'relative'])).toContain('absolute');
    expect(refused(['--server', 'http://h', '--token', 't', '--gop-seconds', '9'])).toContain('--gop-seconds');
    expect(refused(['--server', 'http://h', '--token', 't', '--bogus', '1'])).toContain('unknown option --bogus');
    expect(refused(['--server', 'http://h', '--token', 't', '--capacity'])).toContain('needs a value');
    expect(refused(['--server', 'http://h', '--token', 't', '--capacity', '1', '--capacity', '2'])).toContain('twice');
    expect(refused(['stray'])).toContain("unexpected argument 'stray'");
  });

  test('a ConfigError never quotes the token', () => {
    const message = refused(['--server', 'http://h', '--token', 'mt_secret', '--capacity', '99']);
    expect(message).not.toContain('mt_secret');
  });

  test('--sandbox-uid-base none keeps the agent user; the version fits the provide schema', () => {
    expect(run(['--server', 'http://h', '--token', 't', '--sandbox-uid-base', 'none']).sandboxUidBase).toBeNull();
    expect(machineProvideInput.parse({ capacity: 1, agentVersion, sessions: [] }).agentVersion).toBe(agentVersion);
  });
});
