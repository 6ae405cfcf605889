import { store_cover_alt } from '../../../shared/i18n/paraglide/messages/store_cover_alt.js';
import { store_meta_fallback_description } from '../../../shared/i18n/paraglide/messages/store_meta_fallback_description.js';
import type { StoreMetaTexts } from '../../../shared/store/store-meta.ts';

/** The words of store pages' meta in the language on screen (the server passes the same messages with its locale). */
export function storeMetaTexts(): StoreMetaTexts {
  return {
    coverAlt: (title) => store_cover_alt({ title }),
    fallbackDescription: (input) => store_meta_fallback_description(input),
  };
}
