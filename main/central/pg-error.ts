/** The code of a PostgreSQL or socket error (`40001`, `ECONNREFUSED`...), or '' when it has none. */
export const errorCode = (error: unknown): string => (typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '');
