import type { ViewProps } from '../../routes.ts';
import InDevelopmentPage from '../../../components/in-development.tsx';

/** Placeholder: being built (issue 7). */
export default function Placeholder(_props: ViewProps) {
  return <InDevelopmentPage />;
}
