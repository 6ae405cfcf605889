/** The token of an `Authorization: Bearer …` header, if that is what it holds. */
export function bearerTokenOf(authorization: string | null | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}
