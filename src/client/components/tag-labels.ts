import { parseTag, tagGroups, type TagGroup } from '../../shared/packages/tags.ts';
import { edit_tags_group_arch } from '../../shared/i18n/paraglide/messages/edit_tags_group_arch.js';
import { edit_tags_group_bits } from '../../shared/i18n/paraglide/messages/edit_tags_group_bits.js';
import { edit_tags_group_component } from '../../shared/i18n/paraglide/messages/edit_tags_group_component.js';
import { edit_tags_group_distro } from '../../shared/i18n/paraglide/messages/edit_tags_group_distro.js';
import { edit_tags_group_os } from '../../shared/i18n/paraglide/messages/edit_tags_group_os.js';
import { edit_tags_group_packaging } from '../../shared/i18n/paraglide/messages/edit_tags_group_packaging.js';
import { edit_tags_group_runtime } from '../../shared/i18n/paraglide/messages/edit_tags_group_runtime.js';
import { edit_tags_value_bits } from '../../shared/i18n/paraglide/messages/edit_tags_value_bits.js';
import { edit_tags_value_client } from '../../shared/i18n/paraglide/messages/edit_tags_value_client.js';
import { edit_tags_value_installer } from '../../shared/i18n/paraglide/messages/edit_tags_value_installer.js';
import { edit_tags_value_server } from '../../shared/i18n/paraglide/messages/edit_tags_value_server.js';
import { edit_tags_value_web } from '../../shared/i18n/paraglide/messages/edit_tags_value_web.js';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  edit_tags_group_arch,
  edit_tags_group_bits,
  edit_tags_group_component,
  edit_tags_group_distro,
  edit_tags_group_os,
  edit_tags_group_packaging,
  edit_tags_group_runtime,
  edit_tags_value_bits,
  edit_tags_value_client,
  edit_tags_value_installer,
  edit_tags_value_server,
  edit_tags_value_web,
};

export const tagGroupLabels: Record<TagGroup, () => string> = {
  os: m.edit_tags_group_os,
  arch: m.edit_tags_group_arch,
  bits: m.edit_tags_group_bits,
  packaging: m.edit_tags_group_packaging,
  component: m.edit_tags_group_component,
  runtime: m.edit_tags_group_runtime,
  distro: m.edit_tags_group_distro,
};

/** Product names stay as they are in every language; only the generic words are translated. */
const productNames: Record<string, string> = {
  'os:windows': 'Windows',
  'os:linux': 'Linux',
  'os:macos': 'macOS',
  'os:android': 'Android',
  'os:ios': 'iOS',
  'arch:x86': 'x86',
  'arch:arm': 'ARM',
  'packaging:deb': 'DEB',
  'packaging:rpm': 'RPM',
  'packaging:flatpak': 'Flatpak',
  'runtime:nodejs': 'Node.js',
  'runtime:java': 'Java',
  'distro:ubuntu': 'Ubuntu',
  'distro:fedora': 'Fedora',
  'distro:arch': 'Arch',
  'distro:nixos': 'NixOS',
};

const translatedNames: Record<string, () => string> = {
  'os:web': m.edit_tags_value_web,
  'packaging:installer': m.edit_tags_value_installer,
  'component:client': m.edit_tags_value_client,
  'component:server': m.edit_tags_value_server,
  'bits:32': () => m.edit_tags_value_bits({ bits: '32' }),
  'bits:64': () => m.edit_tags_value_bits({ bits: '64' }),
};

/** The display name of a tag's value ('Linux', 'Web browser', '64-bit'); unknown tags show as they are. */
export function tagLabel(tag: string): string {
  const translated = translatedNames[tag];
  if (translated) return translated();
  return productNames[tag] ?? tag;
}

/** 'Operating system: Linux', for assistive text and tooltips. */
export function tagLongLabel(tag: string): string {
  const parsed = parseTag(tag);
  return parsed.ok ? `${tagGroupLabels[parsed.group]()}: ${tagLabel(tag)}` : tag;
}

/** Every value of a group as full tags, in the normalised order. */
export function groupTags(group: TagGroup): string[] {
  return tagGroups[group].map((value) => `${group}:${value}`);
}
