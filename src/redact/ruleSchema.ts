// The shape of rules/redaction/*.json and rules/never-read.json, validated with
// zod when the redactor is created, so a bad rule fails the boot, not a request.

import { z } from 'zod';

export const VALIDATOR_NAMES = [
  /** The value is not a placeholder (`YOUR_API_KEY`, `xxxx`, `<token>`, `changeme`, `example` …). */
  'not-placeholder',
  /** The value is not a reference to a secret kept elsewhere (`${DB_PASSWORD}`, `process.env.X` …). */
  'not-reference',
  /** An unquoted value is not a code identifier, type name, path or plain word (`password: string`). */
  'not-code-or-word',
  /** The value decodes from base64 to something that is not empty and not a placeholder. */
  'base64-decoded-not-placeholder',
  /** The value is not base64 of printable text (a key of random bytes never decodes to a sentence). */
  'not-base64-text',
  /** Lower-case words made of random letters (`nzzh slzlmdk embkt`), not a sentence's words (validators.ts isGeneratedWords). */
  'generated-words',
] as const;

const validatorSchema = z.union([
  z.enum(VALIDATOR_NAMES),
  z
    .object({
      /** Shannon entropy in bits per character, at least. */
      entropy: z.number().min(0).max(8),
    })
    .strict(),
  z
    .object({
      /** The base64-decoded value contains at least one of these strings. */
      'base64-decoded-contains': z.array(z.string().min(1)).min(1),
    })
    .strict(),
  z
    .object({
      /** The value has at least this many characters. */
      'min-length': z.number().int().min(1).max(10_000),
    })
    .strict(),
  z
    .object({
      /** The value has characters from at least this many of: lower, upper, digit, other. */
      'char-classes': z.number().int().min(1).max(4),
    })
    .strict(),
]);
export type ValidatorSpec = z.infer<typeof validatorSchema>;

/** A text (a line or a few lines), or a text with the item path it is read under (for a rule with `paths`). */
const exampleSchema = z.union([
  z.string().min(1),
  z.object({ text: z.string().min(1), path: z.string().min(1) }).strict(),
]);
export type RuleExampleSpec = z.infer<typeof exampleSchema>;

const ruleIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes');

export const redactionRuleSchema = z
  .object({
    id: ruleIdSchema,
    description: z.string().min(1),
    /**
     * JavaScript regular-expression source; `{{name}}` expands a fragment from the file's `fragments`.
     * A list of strings is joined without separators at load: a long pattern laid out as lines.
     */
    pattern: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** Extra flags among `i`, `m`, `s`, `u`; `g` and `d` are always added. */
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'only i, m, s, u')
      .default(''),
    /**
     * The capture group(s) that hold the secret, by number or name; the first
     * one that took part in the match is masked. 0 masks the whole match.
     */
    valueGroup: z.union([z.number().int().min(0), z.string().min(1), z.array(z.string().min(1)).min(1)]).default(0),
    /**
     * Case-insensitive strings of which at least one must occur in the text
     * for the rule to run at all: the cheap pre-filter before the regex.
     */
    keywords: z.array(z.string().min(1)).min(1),
    /** Replacement text; default `[REDACTED:<id>]`. A `[REDACTED:x]` in it must name the rule itself (loadRules.ts). */
    placeholder: z.string().min(1).optional(),
    /** Only run when the item's path matches one of these globs (picomatch, basename match if no slash). */
    paths: z.array(z.string().min(1)).min(1).optional(),
    /** Every validator must accept the value, else the match is ignored. */
    validators: z.array(validatorSchema).default([]),
    /**
     * `pem-body`: the value is a block between BEGIN/END marker lines; mask
     * from the first line after BEGIN to the end of the line before END, so
     * the marker lines and any diff `+`, YAML indent or JSON `\n` stay.
     */
    shape: z.enum(['value', 'pem-body']).default('value'),
    /**
     * A keyword-style rule: when its finding overlaps one of a rule that knows
     * the secret's format (github-token inside GITHUB_TOKEN=…), the mask is
     * named after the specific rule.
     */
    generic: z.boolean().default(false),
    /**
     * The rule's proof, as gitleaks' tps/fps: `secret` texts it must mask under
     * its own id, `keep` look-alikes it must leave alone (obvious test values,
     * references, placeholders, encrypted values). Run by the tests
     * (test/redact/ruleExamples.test.ts), only shape-checked at start-up.
     */
    examples: z
      .object({ secret: z.array(exampleSchema).default([]), keep: z.array(exampleSchema).default([]) })
      .strict()
      .optional(),
  })
  .strict();
export type RedactionRuleSpec = z.infer<typeof redactionRuleSchema>;

export const redactionRuleFileSchema = z
  .object({
    description: z.string().optional(),
    /** Named regex pieces shared by the file's patterns, used as `{{name}}`. */
    fragments: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/), z.string()).default({}),
    rules: z.array(redactionRuleSchema).min(1),
  })
  .strict();

export const neverReadFileSchema = z
  .object({
    description: z.string().optional(),
    /** Globs matched against the workspace-relative path (picomatch, dot files included). */
    patterns: z.array(z.string().min(1)).min(1),
    /** Globs that win over `patterns` (`.env.example`). */
    exceptions: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type NeverReadSpec = z.infer<typeof neverReadFileSchema>;
