import { Problem } from '../../common/errors/problems';
import { assertSeriesMove, canMoveSeries, nextStep } from './series-status';

describe('series moves', () => {
  it('pauses an active series and resumes a paused one', () => {
    expect(canMoveSeries('active', 'paused')).toBe(true);
    expect(canMoveSeries('paused', 'active')).toBe(true);
  });

  it('refuses a move to the state it is in with a 409 transition_forbidden', () => {
    expect(canMoveSeries('active', 'active')).toBe(false);
    expect(canMoveSeries('paused', 'paused')).toBe(false);
    let thrown: unknown;
    try {
      assertSeriesMove('paused', 'paused');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Problem);
    expect((thrown as Problem).getStatus()).toBe(409);
  });
});

describe('nextStep', () => {
  const steps = [{ position: 3 }, { position: 1 }, { position: 2 }];

  it('is the first step after a position, whatever the order of the array', () => {
    expect(nextStep(steps, 0)).toEqual({ position: 1 });
    expect(nextStep(steps, 1)).toEqual({ position: 2 });
    expect(nextStep(steps, 3)).toBeNull();
  });
});
