/** The wire and storage schemas, by job: requests, results, the stored record. */
export { labelKey } from './shown-text.js';
export * from './request-schemas.js';
export * from './answer-schemas.js';
export * from './result-schemas.js';
export * from './record-schemas.js';
