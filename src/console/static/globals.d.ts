/** The shipped locales (tag -> the language's own name), put in front of the joined script by console/assets.ts. */
declare const ASKGATE_I18N: {
  readonly names: Readonly<Record<string, string>>;
};
