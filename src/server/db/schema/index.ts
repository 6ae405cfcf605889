export * from './accounts.ts';
export * from './projects.ts';
