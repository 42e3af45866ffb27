/**
 * The API key of the embedded paper account. Fixed (it is not a secret, and the paper exchange lives
 * only inside the daemon), so the store account id derived from it is stable across runs and
 * `tradebot orders` / `tradebot pause` find a paper daemon's Redis keys. The secret is generated at
 * every start and never leaves the process. Its own file, so the CLI derives a paper deployment's keys
 * without loading the simulator.
 */
export const PAPER_API_KEY = 'tradebot-paper-account';
