import { signingPurposes, type SigningPurpose } from './purposes.ts';
import { createSealer, type Sealer } from './sealing.ts';
import { createSigner, type Signer } from './signer.ts';

/**
 * Every key the server derives from SECRET_KEY, made once at boot (deps.keys). It holds the derived keys
 * in closures only, so logging deps shows none of them.
 */
export type Keyring = Sealer & {
  /** The signer of one purpose (purposes.ts); signatures always use the current SECRET_KEY. */
  signer(purpose: SigningPurpose): Signer;
};

export type KeyringSecrets = { secretKey: string; previousSecretKey?: string | undefined };

export function createKeyring(secrets: KeyringSecrets): Keyring {
  const signers = new Map(Object.values(signingPurposes).map((purpose) => [purpose, createSigner(secrets.secretKey, purpose)]));
  return {
    ...createSealer(secrets.secretKey, secrets.previousSecretKey),
    signer(purpose) {
      const signer = signers.get(purpose);
      if (!signer) throw new Error(`not a signing purpose: ${String(purpose)}`);
      return signer;
    },
  };
}
