import { Link } from 'wouter';
import { store_card_platforms } from '../../../shared/i18n/paraglide/messages/store_card_platforms.js';
import { store_info_heading } from '../../../shared/i18n/paraglide/messages/store_info_heading.js';
import { store_info_size } from '../../../shared/i18n/paraglide/messages/store_info_size.js';
import { store_info_size_range } from '../../../shared/i18n/paraglide/messages/store_info_size_range.js';
import { store_info_tags } from '../../../shared/i18n/paraglide/messages/store_info_tags.js';
import { store_info_updated } from '../../../shared/i18n/paraglide/messages/store_info_updated.js';
import { store_info_version } from '../../../shared/i18n/paraglide/messages/store_info_version.js';
import { store_owner_heading } from '../../../shared/i18n/paraglide/messages/store_owner_heading.js';
import { Size } from '../../components/size.tsx';
import { tagLabel } from '../../components/tag-labels.ts';
import { useLanguage } from '../../lib/i18n/react.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { formatDate } from '../../../shared/format/date.ts';
import { formatSize } from '../../../shared/format/size.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { storeFacts } from './store-facts.ts';
import { StoreOwner } from './store-owner.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_card_platforms, store_info_heading, store_info_size, store_info_size_range, store_info_tags, store_info_updated, store_info_version, store_owner_heading };

/** A store search for a tag: the index matches tags too. */
const tagSearchHref = (tag: string) => `/store?q=${encodeURIComponent(tag)}`;

/**
 * "More information" (issue 29, as itch.io's): platforms, the latest version and when it came out, the
 * size, the developer with their public accounts, and the project's tags when it sets any. A row
 * without a value is left out.
 */
export function StoreInfo({ project }: { project: StoreProject }) {
  const { language } = useLanguage();
  const facts = storeFacts(project);
  return (
    <section className="store_info" aria-labelledby="store-info">
      <h2 id="store-info" className="store_info_heading">
        {m.store_info_heading()}
      </h2>
      <table className="store_info_table">
        <tbody>
          {facts.platforms.length > 0 ? (
            <tr data-row="platforms">
              <th scope="row">{m.store_card_platforms()}</th>
              <td>
                <ul className="store_info_list">
                  {facts.platforms.map((tag) => (
                    <li key={tag} className="badge" data-platform={tag.slice('os:'.length)}>
                      {tagLabel(tag)}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ) : null}
          {facts.latest ? (
            <>
              <tr data-row="version">
                <th scope="row">{m.store_info_version()}</th>
                <td>
                  <bdi>{facts.latest.versionTitle}</bdi>
                </td>
              </tr>
              <tr data-row="updated">
                <th scope="row">{m.store_info_updated()}</th>
                <td>
                  <time dateTime={facts.latest.published}>{formatDate(facts.latest.published, language)}</time>
                </td>
              </tr>
            </>
          ) : null}
          {facts.sizes ? (
            <tr data-row="size">
              <th scope="row">{m.store_info_size()}</th>
              <td>
                {formatSize(facts.sizes.min, language) === formatSize(facts.sizes.max, language) ? (
                  <Size bytes={facts.sizes.max} />
                ) : (
                  rich(m.store_info_size_range({ min: slot('min'), max: slot('max') }), { min: <Size bytes={facts.sizes.min} />, max: <Size bytes={facts.sizes.max} /> })
                )}
              </td>
            </tr>
          ) : null}
          <tr data-row="developer">
            <th scope="row" id="store-owner">
              {m.store_owner_heading()}
            </th>
            <td>
              <StoreOwner owner={project.owner} />
            </td>
          </tr>
          {facts.tags.length > 0 ? (
            <tr data-row="tags">
              <th scope="row">{m.store_info_tags()}</th>
              <td>
                <ul className="store_info_list store_info_tags">
                  {facts.tags.map((tag) => (
                    <li key={tag}>
                      <Link href={tagSearchHref(tag)} className="badge store_tag">
                        <bdi>{tag}</bdi>
                      </Link>
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </section>
  );
}
