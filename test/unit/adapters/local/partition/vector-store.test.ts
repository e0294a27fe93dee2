import { VectorStore } from '../../../../../layers/core/adapters/local/partition/vector-store';

const EMBEDDER = 'test/8';

function vector(seed: number): number[] {
  return Array.from({ length: 8 }, (_, i) => Math.sin(seed * 7.1 + i * 1.3) + 0.01);
}

describe('VectorStore graph', () => {
  it('grows with the inserts, a batch at a time, rather than at the first search', () => {
    // Prepare
    const store = new VectorStore({ minVectors: 50, pendingLimit: 16, overFetch: 1.5 });
    const slab = store.slabFor(EMBEDDER, 8);

    // Act and assess: no graph below minVectors, the whole slab once it is reached, then batches.
    for (let doc = 0; doc < 49; doc += 1) store.add(doc, slab, vector(doc));
    expect(store.graphSize(EMBEDDER)).toBe(0);
    store.add(49, slab, vector(49));
    expect(store.graphSize(EMBEDDER)).toBe(50);
    for (let doc = 50; doc < 65; doc += 1) store.add(doc, slab, vector(doc));
    expect(store.graphSize(EMBEDDER)).toBe(50);
    store.add(65, slab, vector(65));
    expect(store.graphSize(EMBEDDER)).toBe(66);
  });

  it('leaves a vector removed before its batch out of the graph', () => {
    // Prepare
    const store = new VectorStore({ minVectors: 10, pendingLimit: 4, overFetch: 1.5 });
    const slab = store.slabFor(EMBEDDER, 8);
    for (let doc = 0; doc < 12; doc += 1) store.add(doc, slab, vector(doc));

    // Act
    store.remove(11);
    for (let doc = 12; doc < 14; doc += 1) store.add(doc, slab, vector(doc));

    // Assess: documents 0–9 at the threshold, then the batch of 10–13 less the removed 11.
    expect(store.graphSize(EMBEDDER)).toBe(13);
  });
});
