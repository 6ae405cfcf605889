import './lib/zod-config.ts';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { initLanguage } from './lib/i18n/index.ts';
import { applyTheme, watchSystemTheme } from './lib/theme/theme.ts';

applyTheme();
initLanguage();
watchSystemTheme();
const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
