import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { operations, type Input, type OpName, type Output } from '../../shared/contract';
import { call } from './transport';
import { checkedErrors, formErrors, type FormErrors } from './ui/formErrors';

/**
 * The one way the UI changes data: each console operation that writes is run by exactly one hook
 * of its feature's mutations.ts, built on this, which says what the operation makes stale and
 * which fields of its form a refusal may name (test/renderer-operations.test.ts checks that no
 * operation is declared twice). What is stale is read again once the operation is answered,
 * refused included: a refusal such as "no POI 12" often means that what is shown is out of date.
 * A refusal naming one of `fields` goes under that field (`errors.field`), any other above the
 * form or next to the action (`errors.form`).
 *
 * `submit` checks the input with the operation's own schema (the one the console checks it with)
 * before sending it: every problem of the form at once, not one per try. `errors.attempt` counts
 * Saves and refusals, for an error summary to take focus each time.
 */
export function useOperation<K extends OpName, F extends string = never>(
  op: K,
  stale: (input: Input<K>) => readonly QueryKey[],
  fields: readonly F[] = [],
) {
  const queryClient = useQueryClient();
  const mutation = useMutation<Output<K>, Error, Input<K>>({
    mutationKey: [op],
    mutationFn: (input) => call(op, input),
    onSettled: (_output, _error, input) => Promise.all(stale(input).map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
  const [checked, setChecked] = useState<FormErrors<F> | undefined>();
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (mutation.error) setAttempt((n) => n + 1);
  }, [mutation.error]);

  const submit = (input: Input<K>, options?: Parameters<typeof mutation.mutate>[1]): void => {
    const result = operations[op].safeParse(input);
    setAttempt((n) => n + 1);
    if (!result.success) {
      setChecked(checkedErrors(result.error.issues, fields));
      return;
    }
    setChecked(undefined);
    mutation.mutate(input, options);
  };
  const errors: FormErrors<F> & { attempt: number } = { ...(checked ?? formErrors(mutation.error, fields)), attempt };
  return { ...mutation, submit, errors };
}
