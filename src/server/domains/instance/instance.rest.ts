import { Elysia } from 'elysia';
import { instanceInfoSchema } from '../../../shared/schemas/instance.ts';
import type { Deps } from '../../deps.ts';
import { getInstanceInfo } from './instance.service.ts';

export function instanceRoutes(deps: Deps) {
  return new Elysia({ prefix: '/instance', tags: ['Instance'] }).get('', () => getInstanceInfo(deps), {
    response: instanceInfoSchema,
    detail: { summary: "The instance's name, footer links and API version" },
  });
}
