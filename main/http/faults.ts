/** The header each reply a fault rule touched carries, naming the rule. */
export const FAULT_HEADER = 'X-Fault-Injected';
