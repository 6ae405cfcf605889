import { useDom } from './setup.ts';
import { beforeEach, expect, test } from 'bun:test';

useDom();
const { reportMailto } = await import('../../src/client/dialogs/report-content-dialog.tsx');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

beforeEach(() => {
  setLanguage('en');
});

const target = { projectTitle: 'Rock & Roll? 100%', url: 'https://games.example.com/store/p1' };

function parse(href: string) {
  const [address, query] = [href.slice(0, href.indexOf('?')), href.slice(href.indexOf('?') + 1)];
  const params = new URLSearchParams(query);
  return { address, subject: params.get('subject'), body: params.get('body'), raw: query };
}

test('with a recipient: subject names the project, body holds address, reason and details', () => {
  const href = reportMailto('abuse@example.com', target, 'copyright', '  Copied art.\nFrom my game.  ');
  const mail = parse(href);
  expect(mail.address).toBe('mailto:abuse@example.com');
  expect(mail.subject).toBe('Content report: Rock & Roll? 100%');
  expect(mail.body).toBe(
    ['Project: Rock & Roll? 100%', 'Address: https://games.example.com/store/p1', 'Reason: Copyright infringement', '', 'Details:', 'Copied art.', 'From my game.'].join('\r\n'),
  );
  // Every special character is encoded; spaces as %20, never '+'.
  expect(mail.raw).not.toContain('+');
  expect(mail.raw).not.toContain(' ');
  expect(mail.raw.split('&')).toHaveLength(2);
});

test('without a recipient (no REPORT_EMAIL) and without details', () => {
  const mail = parse(reportMailto(null, target, 'other', '   '));
  expect(mail.address).toBe('mailto:');
  expect(mail.body?.split('\r\n')).toEqual(['Project: Rock & Roll? 100%', 'Address: https://games.example.com/store/p1', 'Reason: Something else']);
});

test('in the interface language', () => {
  setLanguage('de');
  expect(parse(reportMailto(null, target, 'malware', '')).subject).toBe('Inhaltsmeldung: Rock & Roll? 100%');
});
