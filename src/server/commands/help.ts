import { formatConfigHelp } from '../config.ts';

const serverUsage = `Usage:
  cartridge                                    start the server (settings below)
  cartridge admin grant|revoke USER PRIVILEGE  change a user's privileges on the database (see \`cartridge admin\`)
  cartridge admin set-password USER            set a user's password from stdin; their sessions end (see \`cartridge admin\`)
  cartridge admin machine add|list|revoke      cloud-play host machines and their tokens (see \`cartridge admin\`)
  cartridge admin backup DIR                   back up the database, every blob and the secret key into DIR
  cartridge admin restore DIR [--force]        restore such a backup into an empty instance (docs/en/backup.md)
  cartridge admin adopt-secret-key             make this SECRET_KEY the instance's key (see \`cartridge admin\`)
  cartridge --help                             this help`;

/** `cartridge --help` of the server executable: its commands, then every setting. */
export function formatServerHelp(appName = 'Cartridge'): string {
  return `${appName} server\n\n${serverUsage}\n\n${formatConfigHelp()}`;
}
