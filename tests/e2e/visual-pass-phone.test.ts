import { useVisualPass, visualPassTests } from './support/visual-pass.ts';

/** The visual pass at 375 px (support/visual-pass.ts): every screen fits a phone without sideways scrolling. */
visualPassTests(useVisualPass(), 375);
