/**
 * Every key derived from SECRET_KEY, by name. A feature signs under its own purpose only, so a signature
 * made for one (a download URL) can never be replayed as another (a play path, a job token). Add a
 * purpose here for a new feature rather than reusing one.
 */
export const signingPurposes = {
  downloadUrl: 'download-url',
  playPath: 'play-path',
  jobToken: 'job-token',
} as const;
export type SigningPurpose = (typeof signingPurposes)[keyof typeof signingPurposes];

/** The AES key of sealed secrets: derived the same way, under a label that is not a signing purpose. */
export const sealingPurpose = 'secret-sealing';

export type KeyPurpose = SigningPurpose | typeof sealingPurpose;

export function isSigningPurpose(value: string): value is SigningPurpose {
  return (Object.values(signingPurposes) as string[]).includes(value);
}
