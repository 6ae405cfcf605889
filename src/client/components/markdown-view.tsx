import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { useMemo } from 'react';
import type { Description } from '../../shared/schemas/projects.ts';

export type MarkdownImage = Description['images'][number];

export type RenderOptions = {
  /** The content's uploaded images: a matching <img> gets its size and a density srcset. */
  images?: readonly MarkdownImage[];
  /**
   * Levels added to every heading, so a '# Title' written by a user sits below the page's own
   * headings (1 turns it into an h2); capped at h6.
   */
  headingOffset?: number;
};

const parsers = new Map<number, Marked>();

function parserFor(headingOffset: number): Marked {
  let parser = parsers.get(headingOffset);
  if (!parser) {
    parser = new Marked({
      gfm: true,
      renderer: {
        heading({ tokens, depth }) {
          const level = Math.min(6, depth + headingOffset);
          return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
        },
      },
    });
    parsers.set(headingOffset, parser);
  }
  return parser;
}

/**
 * User-written markdown (descriptions, version notes) → sanitised HTML. Spec §9: links are marked
 * rel 'ugc nofollow' and open in a new tab without access to this page (noopener); images load lazily
 * and, when they are uploaded content images, carry their size and a srcset for their scale.
 */
export function renderUserMarkdown(markdown: string, options: RenderOptions = {}): string {
  const raw = parserFor(options.headingOffset ?? 0).parse(markdown, { async: false });
  const imagesByUrl = new Map((options.images ?? []).map((image) => [image.url, image]));
  // A purifier per call: bound to the current window (see docs/markdown.ts), and its hooks stay its own.
  const purifier = DOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A' && node.hasAttribute('href')) {
      if ((node.getAttribute('href') ?? '').startsWith('#')) return;
      node.setAttribute('rel', 'ugc nofollow noopener noreferrer');
      node.setAttribute('target', '_blank');
    } else if (node.nodeName === 'IMG') {
      node.setAttribute('loading', 'lazy');
      node.setAttribute('decoding', 'async');
      const image = imagesByUrl.get(node.getAttribute('src') ?? '');
      if (image) {
        // scale is the percentage of device pixels per CSS pixel the image was made for (spec §9).
        const density = image.scale / 100;
        node.setAttribute('width', String(Math.round(image.width / density)));
        node.setAttribute('height', String(Math.round(image.height / density)));
        node.setAttribute('srcset', `${image.url} ${density}x`);
      }
    }
  });
  // The leading newline is for happy-dom (component tests), whose parser drops the first element of
  // markup that starts with a tag; browsers ignore it. Style attributes go: the app's CSP would refuse
  // them anyway, and users' markup has no business restyling the page.
  return purifier.sanitize(`\n${raw}`, { USE_PROFILES: { html: true }, FORBID_ATTR: ['style'] }).trim();
}

export type MarkdownViewProps = RenderOptions & {
  markdown: string;
  /** The content's language (BCP 47), when its author gave one. */
  lang?: string | null;
  className?: string;
};

/** Shows user-written markdown, sanitised (see renderUserMarkdown), in the direction of its own text. */
export function MarkdownView({ markdown, images, headingOffset, lang, className }: MarkdownViewProps) {
  const html = useMemo(() => renderUserMarkdown(markdown, { images, headingOffset }), [markdown, images, headingOffset]);
  return <div className={`markdown markdown_view ${className ?? ''}`.trim()} lang={lang ?? undefined} dir="auto" dangerouslySetInnerHTML={{ __html: html }} />;
}
