/**
 * Default cap of one answer's size (exchange.maxResponseBytes): 8 MiB, ten times the largest answer
 * the API documents (the markets list; 500 order-history rows). Larger answers are refused unread.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
