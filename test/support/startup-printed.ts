import { loadConfigs } from '../../src/config/configs';
import { describeStartupError, StartupError } from '../../src/startup-errors';

/** What main prints for these settings, or null when they load (the settings specs' one view of boot). */
export function printed(env: Record<string, string>): string | null {
  try {
    loadConfigs(env);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(StartupError);
    return describeStartupError(err);
  }
}
