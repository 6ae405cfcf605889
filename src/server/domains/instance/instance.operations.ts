import { routes } from '../../../shared/api/routes.ts';
import { instanceInfoSchema } from '../../../shared/schemas/instance.ts';
import { bindOperations } from '../../operations/binding.ts';
import { getInstanceInfo } from './instance.service.ts';

export const instanceOperations = bindOperations('Instance', routes.instance, {
  info: { reply: instanceInfoSchema, summary: "The instance's name, footer links and API version", errors: [], actor: 'none', run: ({ deps }) => getInstanceInfo(deps) },
});
