import { Injectable } from '@nestjs/common';

/**
 * The time rules of money and holds are judged by (subscription periods, stock reservations):
 * one injectable source, so a test moves it with `jest.spyOn(app.get(Clock), 'now')` and the
 * rules see the same instant everywhere. Production reads the system clock.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
