export { createKeyring, type Keyring, type KeyringSecrets } from './keyring.ts';
export { signingPurposes, type SigningPurpose } from './purposes.ts';
export { createSealer, SealedSecretError, secretKeyId, type Sealer } from './sealing.ts';
export { createSigner, type Signer } from './signer.ts';
export { generateToken, hashToken } from './tokens.ts';
