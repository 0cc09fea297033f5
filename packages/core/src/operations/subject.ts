import ipaddr from 'ipaddr.js';
import { SluiceConfigError } from '../common/errors.js';
import { ipSubject } from '../http/request/keys.js';
import { canonicalCidr, isIpText } from './cidr.js';
import type { OperationKind, OperationSubject } from './entry.js';
import { patternProblem } from './patterns.js';

const SUBJECT_FORMS =
  "a subject { ip: '203.0.113.7' }, { cidr: '10.0.0.0/8' }, { user: 'id' } or { key: 'text' }";

/** Ids, values and CIDRs are kept short: an entry is an operator's, not a request's, text. */
const MAX_TEXT = 512;

/**
 * `input` as a normalised {@link OperationSubject}: an IP as a whole address in the form
 * request keys print it (IPv4-mapped folded, IPv6 canonical; each request matches
 * it by its own group, see ip-groups.ts), a CIDR in canonical form, a user id as text, a key as
 * given. A string is a CIDR (a bare address is its /32 or /128) when `cidrText` allows it.
 * A user or key may be a wildcard pattern (`'premium_*'`; `\*` a literal star, see
 * patterns.ts), kept as written.
 *
 * @throws {@link SluiceConfigError} naming `option` for anything else, and
 *   `<option>.user` / `<option>.key` for a bad pattern (two stars in a row, or no literal
 *   character).
 */
export function normaliseSubject(
  input: unknown,
  option = 'subject',
  cidrText = false,
): OperationSubject {
  if (typeof input === 'string' && cidrText) return { cidr: canonicalCidr(input, option) };
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new SluiceConfigError(option, input, SUBJECT_FORMS);
  }
  const keys = Object.keys(input);
  if (keys.length !== 1) throw new SluiceConfigError(option, input, SUBJECT_FORMS);
  const value = (input as Record<string, unknown>)[keys[0]!];
  switch (keys[0]) {
    case 'ip':
      if (typeof value !== 'string' || value.length > 64 || !isIpText(value)) {
        throw new SluiceConfigError(option, value, "an IP address such as { ip: '203.0.113.7' }");
      }
      return { ip: ipText(value) };
    case 'cidr':
      return { cidr: canonicalCidr(value, option) };
    case 'user':
      if (typeof value === 'number' && Number.isFinite(value)) return { user: String(value) };
      if (typeof value === 'string' && value !== '' && value.length <= MAX_TEXT) {
        checkPattern(value, `${option}.user`);
        return { user: value };
      }
      throw new SluiceConfigError(
        option,
        value,
        'a user id: a non-empty string or a finite number',
      );
    case 'key':
      if (typeof value === 'string' && value !== '' && value.length <= MAX_TEXT) {
        checkPattern(value, `${option}.key`);
        return { key: value };
      }
      throw new SluiceConfigError(option, value, 'a key: a non-empty string');
    default:
      throw new SluiceConfigError(option, input, SUBJECT_FORMS);
  }
}

/** An `{ ip }` subject's text: the address as a /128 request key names it, IPv4 as is. */
function ipText(value: string): string {
  return ipSubject(ipaddr.parse(value).toString(), 128);
}

/** The id an `{ ip }` entry had before entries kept the whole address (IPv6: its /64). */
export function earlierIpId(kind: OperationKind, subject: OperationSubject): string | undefined {
  if (!('ip' in subject) || !subject.ip.includes(':')) return undefined;
  return entryId(kind, { ip: ipSubject(subject.ip, 64) });
}

/** Refuses a bad wildcard pattern, naming `field`; the value is never printed. */
function checkPattern(value: string, field: string): void {
  const problem = patternProblem(value);
  if (problem === undefined) return;
  throw new SluiceConfigError(field, value, problem, {
    message: `sluice: invalid option "${field}": expected ${problem}, got a pattern of ${value.length} characters`,
  });
}

/** `'ip:<group>'`, `'cidr:<network>'`, `'user:<id>'` or `'key:<text>'`. */
export function subjectId(subject: OperationSubject): string {
  if ('ip' in subject) return `ip:${subject.ip}`;
  if ('cidr' in subject) return `cidr:${subject.cidr}`;
  if ('user' in subject) return `user:${subject.user}`;
  return `key:${subject.key}`;
}

/** The id of an entry: `<kind>:<subject id>` (`:<name>` for an override narrowed to one limit). */
export function entryId(kind: OperationKind, subject: OperationSubject, name?: string): string {
  const base = `${kind}:${subjectId(subject)}`;
  return name === undefined ? base : `${base}:${name}`;
}
