import { ManualClock } from '../../../src/core/clock';
import { InMemoryLeaseStore } from '../../../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../../../src/store/memory/in-memory-order-store';
import { orderStoreContract } from './order-store.contract';

orderStoreContract('in memory', async () => {
  const clock = new ManualClock(1_000);
  const leases = new InMemoryLeaseStore(clock);
  return {
    orders: new InMemoryOrderStore(leases, clock),
    leases,
    clock,
    passLeaseTime: async (ms: number) => clock.advanceMs(ms),
    close: async () => undefined,
  };
});
