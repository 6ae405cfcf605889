import { defineAccessibilityTests } from './support/a11y.ts';

/** axe-core on every screen of issue 4 in the dark theme (a11y-light for the light one). */
defineAccessibilityTests('dark');
