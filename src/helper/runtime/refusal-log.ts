/** At most this many refused origins are remembered (and logged once each): a page can make up many. */
const rememberedOrigins = 1000;

/**
 * The helper's log line for a page it refused (not trusted): once per origin per run. Trusting is
 * something the user starts (`cartridge-helper trust ORIGIN`), never a question a page can raise: the
 * line neither asks nor suggests trusting the origin that called, which may be any web site.
 */
export function createRefusalLog(log: (line: string) => void): (origin: string) => void {
  const seen = new Set<string>();
  return (origin) => {
    if (seen.has(origin) || seen.size >= rememberedOrigins) return;
    seen.add(origin);
    log(`Refused a page of ${origin}: not trusted. Only the sites you trust yourself can use the helper: run  cartridge-helper trust https://your-cartridge-server  for your Cartridge server's address.`);
  };
}
