import { version as packageVersion } from '../../../package.json';
import { LOCAL_HELPER_PROTOCOL, type VersionReply } from '../../shared/schemas/local-helper.ts';

export const helperVersion: string = packageVersion;

export function version(): VersionReply {
  return { name: 'cartridge-helper', version: helperVersion, protocol: LOCAL_HELPER_PROTOCOL, platform: process.platform, arch: process.arch };
}
