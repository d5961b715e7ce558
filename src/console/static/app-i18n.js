/**
 * Browser module, part 0: the console's language. The words come from console/i18n (<tag>.ts):
 * the page loads its language's from `/console/i18n/<tag>.json` before it starts; the shipped tags
 * and names are in front of the script (`ASKGATE_I18N`, console/assets.ts). The language is the one
 * chosen with the switch (kept in this browser), else the first of the browser's languages
 * askgate ships (exact, then the same language: pt-PT reads pt-BR), else English. Times are
 * shown in the browser's own time zone.
 */

/** @typedef {Readonly<Record<string, string | Readonly<Record<string, string>>>>} ConsoleWords */

const LANG_KEY = 'askgate.lang';

/** The shipped locale for a tag, or null (the rule of core/i18n's shippedLocale). @param {string | null | undefined} tag */
function shipped(tag) {
  if (!tag) return null;
  let canonical = '';
  try {
    canonical = Intl.getCanonicalLocales(tag)[0] || '';
  } catch (e) {
    return null;
  }
  const tags = Object.keys(ASKGATE_I18N.names);
  if (tags.includes(canonical)) return canonical;
  const language = canonical.split('-')[0].toLowerCase();
  return tags.find((t) => t.split('-')[0] === language) || null;
}

function storedLang() {
  try {
    return localStorage.getItem(LANG_KEY);
  } catch (e) {
    return null;
  }
}

/** The language of this page. */
export const lang =
  [storedLang(), ...(navigator.languages || []), navigator.language].map(shipped).find(Boolean) || 'en';
/**
 * How times and dates are written: the browser's own regional tag when it is in the page's language
 * (en-GB writes 17:51, en-US 5:51 PM), else the page's language.
 */
export const timeLocale =
  [...(navigator.languages || []), navigator.language].find((tag) => shipped(tag) === lang) || lang;
/** @type {ConsoleWords} */
let words = {};
const plurals = new Intl.PluralRules(lang);

/** Loads the page's words (retrying while askgate is unreachable); the console starts once they are here. */
export async function loadWords() {
  for (;;) {
    try {
      const res = await fetch('/console/i18n/' + encodeURIComponent(lang) + '.json', { credentials: 'same-origin' });
      if (res.ok) {
        words = await res.json();
        return;
      }
    } catch (e) {
      /* unreachable: try again below */
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

/**
 * A console message, `{name}` placeholders filled in one pass (a value is never read again);
 * plural messages pick their form by `count`.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
export function t(key, params) {
  const values = params || {};
  const message = Object.hasOwn(words, key) ? words[key] : undefined;
  let text = '';
  if (typeof message === 'string') text = message;
  else if (message) {
    const form = plurals.select(Number(values.count || 0));
    text = Object.hasOwn(message, form) ? message[form] : message.other;
  } else text = key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}

/**
 * Puts the page's own words in its language: `data-i18n` elements get the message as text
 * (`{env}` becomes the variable's name in code), `data-i18n-title` the document title.
 */
export function translatePage() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) {
    const parts = t(/** @type {string} */ (node.getAttribute('data-i18n'))).split('{env}');
    const code = document.createElement('code');
    code.textContent = 'ASKGATE_API_TOKEN';
    node.replaceChildren(...parts.flatMap((part, i) => (i === 0 ? [part] : [code.cloneNode(true), part])));
  }
  document.title = t('title');
}

/** Fills the language switch; choosing a language keeps it in this browser and reloads the page in it. */
export function setupLanguageSwitch() {
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('lang'));
  const names = ASKGATE_I18N.names;
  select.replaceChildren(
    ...Object.keys(names).map((tag) => {
      const option = document.createElement('option');
      option.value = tag;
      option.textContent = Object.hasOwn(names, tag) ? names[tag] : tag;
      option.lang = tag;
      option.selected = tag === lang;
      return option;
    }),
  );
  select.addEventListener('change', () => {
    try {
      localStorage.setItem(LANG_KEY, select.value);
    } catch (e) {
      /* storage blocked: the page reloads in the browser language */
    }
    location.reload();
  });
}
