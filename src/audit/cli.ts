// `askgate audit verify | public-key | export`: checks an export offline, prints the public key to
// publish, fetches a range. Returns exit codes: 0 intact / done, 1 not intact / failed, 2 usage.
import { readFileSync, existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyAuditLines } from '../core/audit/verify.js';
import {
  checkpointSignatureValid,
  entryHash,
  loadPublicKey,
  loadSigningKey,
  publicKeyPem,
  SIGNING_KEY_VARIABLE,
} from './crypto.js';

/** Exit codes of `askgate audit`. */
export const AUDIT_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const USAGE = `Usage:
  askgate audit verify <file> [--public-key <PEM or file>] [--anchor <sha256:...>]
      checks an export of GET /v1/audit offline: exit 0 when intact, 1 naming the first entry changed,
      removed, inserted or reordered (or a checkpoint that does not match or whose signature fails)
  askgate audit public-key        prints the public key (SPKI PEM) of ASKGATE_AUDIT_SIGNING_KEY, to publish
  askgate audit export --from <ISO time> [--to <ISO time>] [--limit <n>] [--url <askgate url>]
      writes GET /v1/audit to stdout (ASKGATE_URL, ASKGATE_API_TOKEN)`;

/** Runs `askgate audit <subcommand>`; returns the exit code. */
export async function runAudit(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if (sub === 'verify') return verify(rest);
    if (sub === 'public-key') return publicKey();
    if (sub === 'export') return await exportRange(rest);
    console.error(sub === undefined ? USAGE : `askgate audit: unknown subcommand "${sub.slice(0, 40)}"\n\n${USAGE}`);
    return AUDIT_EXIT.usage;
  } catch (error) {
    console.error(`askgate audit: ${(error as Error).message}`);
    return (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? AUDIT_EXIT.usage : AUDIT_EXIT.failed;
  }
}

function verify(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: { 'public-key': { type: 'string' }, anchor: { type: 'string' } },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) {
    console.error(`askgate audit verify: give one export file\n\n${USAGE}`);
    return AUDIT_EXIT.usage;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    console.error(`askgate audit verify: cannot read ${file}: ${(error as Error).message}`);
    return AUDIT_EXIT.usage;
  }
  const keyText = values['public-key'];
  let key;
  try {
    key =
      keyText === undefined ? undefined : loadPublicKey(existsSync(keyText) ? readFileSync(keyText, 'utf8') : keyText);
  } catch {
    console.error('askgate audit verify: --public-key is not an Ed25519 public key (PEM text or a file holding it)');
    return AUDIT_EXIT.usage;
  }
  const verdict = verifyAuditLines(text.split('\n'), {
    hashOf: entryHash,
    ...(key && { checkSignature: (unsigned, signature) => checkpointSignatureValid(unsigned, signature, key) }),
    ...(values.anchor !== undefined && { anchor: values.anchor }),
  });
  if (!verdict.ok) {
    console.error(`askgate audit verify: NOT INTACT (${verdict.problem}): ${verdict.message}`);
    return AUDIT_EXIT.failed;
  }
  const cp = verdict.checkpoint;
  const signature =
    verdict.signature === 'valid'
      ? `signature valid (key ${cp.keyId ?? '?'})`
      : verdict.signature === 'unsigned'
        ? 'UNSIGNED checkpoint (askgate had no signing key): the chain is consistent, nobody vouches for it'
        : 'signature NOT checked (give --public-key)';
  console.log(
    `intact: ${verdict.count} entries from ${cp.from} to ${cp.to}${cp.complete ? '' : ' (more follow: next ' + String(cp.next) + ')'}, anchor ${cp.anchor}, last hash ${verdict.lastHash}; ${signature}`,
  );
  return AUDIT_EXIT.ok;
}

function publicKey(): number {
  const value = process.env[SIGNING_KEY_VARIABLE];
  if (!value?.trim()) {
    console.error(`askgate audit public-key: ${SIGNING_KEY_VARIABLE} is not set`);
    return AUDIT_EXIT.usage;
  }
  process.stdout.write(publicKeyPem(loadSigningKey(value)));
  return AUDIT_EXIT.ok;
}

async function exportRange(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { from: { type: 'string' }, to: { type: 'string' }, limit: { type: 'string' }, url: { type: 'string' } },
  });
  if (!values.from) {
    console.error(`askgate audit export: --from is required\n\n${USAGE}`);
    return AUDIT_EXIT.usage;
  }
  const base = (values.url ?? process.env.ASKGATE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 7420}`).replace(
    /\/+$/,
    '',
  );
  const query = new URLSearchParams({ from: values.from });
  if (values.to) query.set('to', values.to);
  if (values.limit) query.set('limit', values.limit);
  const token = process.env.ASKGATE_API_TOKEN;
  const res = await fetch(`${base}/v1/audit?${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!res.ok || !res.body) {
    console.error(`askgate audit export: ${res.status} ${(await res.text()).slice(0, 500)}`);
    return res.status === 400 ? AUDIT_EXIT.usage : AUDIT_EXIT.failed;
  }
  for await (const chunk of res.body) {
    if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  return AUDIT_EXIT.ok;
}
