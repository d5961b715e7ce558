// The readers' memo for Intl objects and per-locale tables: core's one bounded memo (keys may come
// from people, so it stops growing).
export { memo } from '../../locale-tags.js';
