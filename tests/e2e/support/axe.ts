import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

type AxeNode = { target: string[]; html?: string; failureSummary?: string };
export type AxeViolation = { id: string; impact: string | null; help: string; helpUrl?: string; nodes: AxeNode[] };

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as unknown as { axe?: unknown }).axe === 'object');
  // Evaluated through the DevTools protocol: the app's CSP (no inline scripts) refuses a script tag.
  if (!loaded) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: Document, options?: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      helpUrl: violation.helpUrl,
      nodes: violation.nodes.map((node) => ({ target: node.target, html: node.html, failureSummary: node.failureSummary })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** A readable report: one block per rule, each offending element with its selector, markup and why. */
export function formatViolations(violations: AxeViolation[], where = ''): string {
  if (violations.length === 0) return `${where}: no serious or critical violations`;
  const lines = [`${where}: ${violations.length} serious/critical axe violation(s)`];
  for (const violation of violations) {
    lines.push(`  [${violation.impact}] ${violation.id}: ${violation.help}${violation.helpUrl ? ` (${violation.helpUrl})` : ''}`);
    for (const node of violation.nodes.slice(0, 8)) {
      lines.push(`    - ${node.target.join(' ')}`);
      if (node.html) lines.push(`      ${node.html.replace(/\s+/g, ' ').slice(0, 200)}`);
      if (node.failureSummary) lines.push(`      ${node.failureSummary.replace(/\s*\n\s*/g, ' | ').slice(0, 400)}`);
    }
    if (violation.nodes.length > 8) lines.push(`    … and ${violation.nodes.length - 8} more`);
  }
  return lines.join('\n');
}

/**
 * Gathers the serious axe violations of several checks (`where (suffix)` each) into one list, expected
 * empty at the end: every state is checked and reported, not only the first that fails.
 */
export function axeProblems(suffix: string): { problems: string[]; check(page: Page, where: string): Promise<void> } {
  const problems: string[] = [];
  return {
    problems,
    async check(page, where) {
      const violations = await seriousAccessibilityViolations(page);
      if (violations.length > 0) problems.push(formatViolations(violations, `${where} (${suffix})`));
    },
  };
}
