export { createKeyring, type Keyring } from './keyring.ts';
export { signingPurposes } from './purposes.ts';
export { createSealer, SealedSecretError, secretKeyId } from './sealing.ts';
export { createSigner } from './signer.ts';
export { generateToken, hashToken } from './tokens.ts';
