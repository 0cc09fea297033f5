import { MemoryStore } from '@sluice/core';

/**
 * A MemoryStore that counts its `reserve` and `refund` calls, so a row can wait for the
 * store to have seen a booking or a give-back (bounded: 10 s) instead of sleeping.
 */
export class CallCountingStore extends MemoryStore {
  readonly calls = { reserve: 0, refund: 0 };

  // Both the store's own methods and its key spaces' views (MemoryStore#scope) end here.
  override reserveIn(...args: Parameters<MemoryStore['reserveIn']>) {
    this.calls.reserve++;
    return super.reserveIn(...args);
  }

  override refundIn(...args: Parameters<MemoryStore['refundIn']>) {
    this.calls.refund++;
    return super.refundIn(...args);
  }

  async until(call: 'reserve' | 'refund', count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (this.calls[call] < count) {
      if (Date.now() > deadline) throw new Error(`the store saw ${this.calls[call]} ${call} calls`);
      await new Promise<void>((resolve) => setTimeout(resolve, 2));
    }
  }
}
