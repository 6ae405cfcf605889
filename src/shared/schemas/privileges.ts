import { z } from 'zod';

/** Instance-wide privileges of spec §3 Session.userPrivileges. */
export const privilegeNames = ['create_project', 'store_publish', 'cloud_play'] as const;
export type PrivilegeName = (typeof privilegeNames)[number];
export const privilegeSchema = z.enum(privilegeNames);
