export * from './accounts.ts';
export * from './projects.ts';
export * from './jobs.ts';
export * from './packages.ts';
export * from './external-auth.ts';
export * from './cloud-play.ts';
export * from './deploys.ts';
export * from './content-images.ts';
