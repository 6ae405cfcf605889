import { version } from '../../package.json';

/** The client's version: the project's, bundled into the compiled CLI at build time. */
export const cliVersion: string = version;
