import { z } from 'zod';

/**
 * The `notifications` section (docs/console.md "Notifications"). Placeholder owned by the
 * notifications work: channels, events, rate limit, retries.
 */
export const notificationsSection = z
  .strictObject({
    enabled: z.boolean().default(false),
  })
  .prefault({});

export type NotificationsConfig = z.infer<typeof notificationsSection>;
