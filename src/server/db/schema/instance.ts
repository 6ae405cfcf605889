import { check, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

/**
 * The instance's one row of facts every process must agree on. `secretKeyId`: which SECRET_KEY the
 * processes sharing this database use, as its key id (crypto/sealing.ts secretKeyId: 6 bytes of a
 * hash of a key derived from it; never the key). A process started with another key refuses to start
 * (crypto/instance-key.ts) instead of failing signatures and sealed secrets at random behind a load balancer.
 *
 * `aliveAt` and `servingSince` (domains/cloud-play/serving-clock.ts): every serving process records,
 * every few seconds, that it is alive (aliveAt, by the database clock); when one finds aliveAt older than
 * the allowed gap, no process was serving meanwhile and servingSince moves to now. The cloud-play sweep
 * judges machines and sessions silent only from greatest(their last call, servingSince): the time the
 * whole server was down (a restart, an upgrade) is not held against them.
 */
export const instanceFacts = pgTable(
  'instance_facts',
  {
    id: smallint('id').primaryKey().default(1),
    secretKeyId: text('secret_key_id').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    aliveAt: timestamp('alive_at', { withTimezone: true, mode: 'date' }),
    servingSince: timestamp('serving_since', { withTimezone: true, mode: 'date' }),
  },
  (table) => [check('instance_facts_one_row', sql`${table.id} = 1`)],
);
