// Reading typed answers (numbers, dates, times, date-times, email addresses, links) and showing them: pure, Intl only.
export type { ParseContext, Parsed } from './types.js';
export { isIsoDate, isIsoTime } from './calendar.js';
export { isIsoDateTime, instantOf, zonedIso } from './zones.js';
export { parseNumber } from './numbers.js';
export { parseDate } from './dates.js';
export { parseTime } from './times.js';
export { parseDateTime } from './datetimes.js';
export { parseEmail, parseUrl } from './addresses.js';
export { compilePattern, type CompiledPattern } from './pattern.js';
export { formatNumber, formatDate, formatTime, formatDateTime } from './format.js';
