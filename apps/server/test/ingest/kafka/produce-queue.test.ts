import { describe, expect, it } from 'vitest';
import { ProduceQueue } from '../../../src/ingest/kafka/produce-queue.ts';

/** A send the test finishes by hand, so it decides what arrives while one is out. */
function gatedSender() {
  const calls: string[][] = [];
  const gates: Array<{ open: () => void; fail: (e: Error) => void }> = [];
  let running = 0;
  let most = 0;
  const sendAll = (messages: string[]) => {
    calls.push(messages);
    running++;
    most = Math.max(most, running);
    return new Promise<void>((resolve, reject) => {
      gates.push({
        open: () => {
          running--;
          resolve();
        },
        fail: (e) => {
          running--;
          reject(e);
        },
      });
    });
  };
  return { calls, gates, sendAll, most: () => most };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ProduceQueue', () => {
  it('sends one at a time, and what arrived meanwhile together in the next send', async () => {
    const s = gatedSender();
    const queue = new ProduceQueue<string>(s.sendAll, 100, (m) => m.length);
    const first = queue.send(['a']);
    const second = queue.send(['b', 'c']);
    const third = queue.send(['d']);
    await settle();
    expect(s.calls).toEqual([['a']]);
    s.gates[0]?.open();
    await first;
    await settle();
    expect(s.calls).toEqual([['a'], ['b', 'c', 'd']]);
    s.gates[1]?.open();
    await Promise.all([second, third]);
    expect(s.most()).toBe(1);
  });

  it('rejects every batch of a failed send, and goes on with the next', async () => {
    const s = gatedSender();
    const queue = new ProduceQueue<string>(s.sendAll, 100, (m) => m.length);
    const first = queue.send(['a']);
    const second = queue.send(['b']);
    const third = queue.send(['c']);
    await settle();
    s.gates[0]?.fail(new Error('broker gone'));
    await expect(first).rejects.toThrow('broker gone');
    await settle();
    s.gates[1]?.fail(new Error('still gone'));
    await expect(second).rejects.toThrow('still gone');
    await expect(third).rejects.toThrow('still gone');
    const fourth = queue.send(['d']);
    await settle();
    s.gates[2]?.open();
    await fourth;
    expect(s.calls).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('stops adding batches to a send at the weight bound; a heavier batch goes alone', async () => {
    const s = gatedSender();
    const queue = new ProduceQueue<string>(s.sendAll, 5, (m) => m.length);
    const sends = [
      queue.send(['x']),
      queue.send(['aaaaaaa']),
      queue.send(['bb', 'cc']),
      queue.send(['ddd']),
    ];
    for (let i = 0; i < 4; i++) {
      await settle();
      s.gates[i]?.open();
    }
    await Promise.all(sends);
    expect(s.calls).toEqual([['x'], ['aaaaaaa'], ['bb', 'cc'], ['ddd']]);
  });
});
