/** The TanStack Query key of GET /users/me/credentials (REST, src/shared/api), shared by the /me parts that change it. */
export const credentialsKey = ['me', 'credentials'] as const;
