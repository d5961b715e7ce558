// The one HTML escaper of askgate's server-rendered pages and mails (the console's page, the answer
// page, email's HTML part): text made safe inside an element or a quoted attribute.

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe inside an HTML element or a single- or double-quoted attribute. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
