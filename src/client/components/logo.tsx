/**
 * The logo's mark: a game cartridge (grip ridges, a label with a play sign). Drawn inline so it takes the
 * theme's colours (--logo-body, --logo-label: components/logo.css) and costs no request; icons/favicon.svg
 * is the same drawing as a file. A logo is not mirrored in right-to-left pages. Decorative: the wordmark
 * beside it (the instance's name) is the link's text.
 */
function LogoMark({ className }: { className?: string }) {
  return (
    <svg className={className ? `logo_mark ${className}` : 'logo_mark'} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <path className="logo_body" d="M7 2h14.6a1.4 1.4 0 0 1 1 .4l4 4a1.4 1.4 0 0 1 .4 1V28a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2z" />
      <path className="logo_label" d="M8.5 5h10v1.4h-10zm0 2.8h10v1.4h-10z" />
      <rect className="logo_label" x="8.5" y="12" width="15" height="14.5" rx="1.5" />
      <path className="logo_body" d="M13.6 15.2v8l6.6-4z" />
    </svg>
  );
}

/** The mark and the wordmark (the instance's name, APP_NAME), as the header shows them. */
export function Logo({ name }: { name: string }) {
  return (
    <span className="logo">
      <LogoMark />
      <span className="logo_wordmark">{name}</span>
    </span>
  );
}
