// A tiny given/when/then harness for deciders, in the style of Emmett's DeciderSpecification:
//
//   const spec = deciderSpec({ decide: decideToken, evolve: evolveToken, initialState: initialTokenState });
//   spec(t).given([...events]).when(command).then([...expectedEvents]);
//   spec(t).given([...events]).when(command).thenThrows(TokenIdTaken, (error) => { ... });
//
// given(events) folds the events with evolve from the initial state; when(command) calls decide
// on that state; then(expected) asserts a strict deep equality with decide's result (the events,
// or whatever decide returns); thenThrows asserts that decide throws an instance of the class.
import type { Test } from 'tap';

export interface Decider<State, Event, Command, Result> {
  decide: (state: State, command: Command) => Result;
  evolve: (state: State, event: Event) => State;
  initialState: () => State;
}

type ErrorClass<E extends Error> = abstract new (...args: any[]) => E;

export interface Then<State, Result> {
  /** The state decide was called with (the fold of the given events). */
  readonly state: State;
  /** decide's result equals `expected` (strict deep equality); returns the result. */
  then(expected: Result, message?: string): Result;
  /** decide's result, for assertions of your own (fails the test when decide throws). */
  result(): Result;
  /** decide throws an instance of `errorClass`; `check` may assert more about the error. */
  thenThrows<E extends Error>(errorClass: ErrorClass<E>, check?: (error: E) => void): void;
}

export interface When<State, Command, Result> {
  readonly state: State;
  when(command: Command): Then<State, Result>;
}

export function deciderSpec<State, Event, Command, Result>(decider: Decider<State, Event, Command, Result>) {
  return (t: Test) => ({
    given(events: readonly Event[]): When<State, Command, Result> {
      const state = events.reduce(decider.evolve, decider.initialState());
      return {
        state,
        when(command: Command): Then<State, Result> {
          const run = (): { ok: true; value: Result } | { ok: false; error: unknown } => {
            try {
              return { ok: true, value: decider.decide(state, command) };
            } catch (error) {
              return { ok: false, error };
            }
          };
          return {
            state,
            then(expected: Result, message = 'decide returns the expected result'): Result {
              const outcome = run();
              if (!outcome.ok) {
                t.fail(`decide threw instead of returning: ${String(outcome.error)}`);
                throw outcome.error;
              }
              t.strictSame(outcome.value, expected, message);
              return outcome.value;
            },
            result(): Result {
              const outcome = run();
              if (!outcome.ok) {
                t.fail(`decide threw instead of returning: ${String(outcome.error)}`);
                throw outcome.error;
              }
              return outcome.value;
            },
            thenThrows<E extends Error>(errorClass: ErrorClass<E>, check?: (error: E) => void): void {
              const outcome = run();
              if (outcome.ok) {
                t.fail(`decide returned instead of throwing ${errorClass.name}`, { found: outcome.value });
                return;
              }
              if (!(outcome.error instanceof errorClass)) {
                t.fail(`decide threw something other than ${errorClass.name}`, { found: outcome.error });
                return;
              }
              t.pass(`decide throws ${errorClass.name}`);
              check?.(outcome.error);
            },
          };
        },
      };
    },
  });
}
