import { checklistShown, firstSteps } from '../../src/screens/agents/first-steps';

const empty = { sources: [], agent: null, questionsAsked: 0, people: 1 };

describe('first steps', () => {
  it('starts with nothing done, and only a data source to add', () => {
    const steps = firstSteps(empty);

    expect(steps.map((step) => [step.key, step.done])).toEqual([
      ['source', false],
      ['sync', false],
      ['agent', false],
      ['question', false],
      ['colleague', false],
    ]);
    expect(steps.find((step) => step.key === 'sync')?.action).toBeNull();
    expect(steps.find((step) => step.key === 'question')?.action).toBeNull();
  });

  it('ticks off each step from what exists', () => {
    const steps = firstSteps({
      sources: [
        { id: 'ds_1', chunks_indexed: 0 },
        { id: 'ds_2', chunks_indexed: 12 },
      ],
      agent: { id: 'agt_1' },
      questionsAsked: 3,
      people: 2,
    });

    expect(steps.every((step) => step.done)).toBe(true);
  });

  it('leaves the colleague out for whoever may not list people', () => {
    expect(firstSteps({ ...empty, people: null }).map((step) => step.key)).not.toContain(
      'colleague',
    );
  });

  it('is shown while a step is left, and once started until dismissed', () => {
    const open = firstSteps(empty);
    const done = firstSteps({
      sources: [{ id: 'ds_1', chunks_indexed: 1 }],
      agent: { id: 'agt_1' },
      questionsAsked: 1,
      people: 2,
    });

    expect(checklistShown(open, { started: false, dismissed: false })).toBe(true);
    expect(checklistShown(done, { started: true, dismissed: false })).toBe(true);
    expect(checklistShown(done, { started: true, dismissed: true })).toBe(false);
    // An organization set up before the list existed never sees it.
    expect(checklistShown(done, { started: false, dismissed: false })).toBe(false);
  });
});
