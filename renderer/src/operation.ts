import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { Input, OpName, Output } from '../../shared/contract';
import { call } from './transport';
import { formErrors } from './ui/formErrors';

/**
 * The one way the UI changes data: each console operation that writes is run by exactly one hook
 * of its feature's mutations.ts, built on this, which says what the operation makes stale and
 * which fields of its form a refusal may name (test/renderer-operations.test.ts checks that no
 * operation is declared twice). What is stale is read again once the operation is answered,
 * refused included: a refusal such as "no POI 12" often means that what is shown is out of date.
 * A refusal naming one of `fields` goes under that field (`errors.field`), any other above the
 * form or next to the action (`errors.form`).
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
  return { ...mutation, errors: formErrors(mutation.error, fields) };
}
