/**
 * What an assistant can read besides calling tools: the service's OpenAPI description and the
 * classifier lists (codes and labels of roles, legal forms, statuses…), and prompts for the questions
 * people ask most: is this company safe to deal with, and who is behind it.
 */
import type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { CoreClient } from '@company-data/core/client';
import { ValidationError } from '@company-data/core/errors';
import { operationGroups } from '@company-data/core/operations';
import { registryCodeProblem } from '@company-data/core/validation';
import { classifierTypes, classifierTypeSchema } from '@company-data/core/vocabulary';
import { DUE_DILIGENCE_TOOL } from './due-diligence';
import { toolName } from './tools';

const OPENAPI_URI = 'company-data://openapi.json';
const CLASSIFIER_PREFIX = 'company-data://classifiers/';

const classifierOptions = operationGroups.reference.classifiers.params.type.options ?? [];
/** The classifier template's URI, as completion/complete names it. */
export const classifierTemplateUri = `${CLASSIFIER_PREFIX}{type}`;

export const resourceList: Resource[] = [
  {
    uri: OPENAPI_URI,
    name: 'openapi',
    title: 'OpenAPI description of the Company Data service',
    description: 'Every operation of the service: paths, parameters with their rules, answers and errors (OpenAPI 3.1, JSON).',
    mimeType: 'application/json',
  },
  ...classifierOptions.map((o) => ({
    uri: `${CLASSIFIER_PREFIX}${o.value}`,
    name: `classifier ${o.value}`,
    title: `Classifier: ${o.label}`,
    description: `Codes and labels of ${o.label.toLowerCase()}, as the service uses them in its answers.`,
    mimeType: 'application/json',
  })),
];

export const resourceTemplates: ResourceTemplate[] = [
  {
    uriTemplate: classifierTemplateUri,
    name: 'classifier',
    title: 'A classifier of the service',
    description: `Codes and labels of one classifier; type is one of ${classifierTypes.join(', ')}.`,
    mimeType: 'application/json',
  },
];

export async function readResource(client: CoreClient, uri: string): Promise<ReadResourceResult> {
  const json = (value: unknown): ReadResourceResult => ({
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 1) }],
  });
  if (uri === OPENAPI_URI) return json((await client.reference.openapi()).data);
  if (uri.startsWith(CLASSIFIER_PREFIX)) {
    const type = classifierTypeSchema.safeParse(uri.slice(CLASSIFIER_PREFIX.length));
    if (!type.success)
      throw new ValidationError({ field: 'uri', rule: `names no classifier; type is one of ${classifierTypes.join(', ')}` });
    return json((await client.reference.classifiers({ type: type.data })).data);
  }
  throw new ValidationError({
    field: 'uri',
    rule: `is not a resource of this server; known: ${OPENAPI_URI} and ${CLASSIFIER_PREFIX}{type}`,
  });
}

const ops = operationGroups;
const t = toolName;

interface PromptSpec {
  prompt: Prompt;
  text(args: Record<string, string>): string;
}

const registryCodeArgument = { name: 'registry_code', description: "The company's 8-digit registry code, or its name", required: true };

const prompts: PromptSpec[] = [
  {
    prompt: {
      name: 'company_due_diligence',
      title: 'Company due diligence',
      description: 'Is it safe to do business with this company? Status, credit score, tax debt, court and enforcement records, owners.',
      arguments: [registryCodeArgument],
    },
    text: ({ registry_code: code = '' }) =>
      [
        `Do a due-diligence check of the Estonian company ${code}.`,
        `1. Call ${DUE_DILIGENCE_TOOL} with company set to ${JSON.stringify(code)}: one call reads the profile, representatives, beneficial owners, credit score, tax debt and declarations, court cases, enforcements, payment orders and annual reports, and ranks the red flags.`,
        registryCodeProblem(code) === null
          ? ''
          : 'If it answers that several companies match, ask which one is meant (or pick the one the user clearly means and say so), then call it again with that registry code.',
        '2. If not_checked lists sections, say which ones could not be checked and why; retry one with the tool named in its source when it matters.',
        `3. Where a red flag needs detail (all enforcement proceedings, the court decisions), call the tool named in its source, e.g. ${t(ops.risk.enforcements)}.`,
        'Then answer in a short report: a verdict (low, medium or high risk) with the three facts that decide it (with their dates and sources), then the details. Quote the registry code, and say plainly what the data does not show.',
      ]
        .filter(Boolean)
        .join('\n'),
  },
  {
    prompt: {
      name: 'who_is_behind',
      title: 'Who is behind a company',
      description: 'Board members, shareholders and beneficial owners of a company, and what else those people are involved in.',
      arguments: [registryCodeArgument],
    },
    text: ({ registry_code: code = '' }) =>
      [
        `Find out who is behind the Estonian company ${code}.`,
        registryCodeProblem(code) === null
          ? ''
          : `First find its registry code with ${t(ops.companies.search)}, and say which company you chose.`,
        `1. ${t(ops.people.representatives)}, ${t(ops.people.shareholders)} and ${t(ops.people.beneficialOwners)}.`,
        `2. For each person that matters, ${t(ops.people.getPerson)} (ids are in the rows above) to see their other current roles.`,
        'Answer with who controls the company (ownership shares), who runs it, and their other companies; say when a list is empty rather than guessing.',
      ]
        .filter(Boolean)
        .join('\n'),
  },
];

export const promptList: Prompt[] = prompts.map((p) => p.prompt);

export function getPrompt(name: string, args: Record<string, string> | undefined): GetPromptResult {
  const spec = prompts.find((p) => p.prompt.name === name);
  if (!spec)
    throw new ValidationError({
      field: 'name',
      rule: `is not a prompt of this server; known: ${promptList.map((p) => p.name).join(', ')}`,
    });
  for (const a of spec.prompt.arguments ?? []) {
    if (a.required && !args?.[a.name]?.trim()) throw new ValidationError({ field: a.name, rule: 'is required' });
  }
  return {
    description: spec.prompt.description,
    messages: [
      {
        role: 'user',
        content: { type: 'text', text: spec.text(Object.fromEntries(Object.entries(args ?? {}).map(([k, v]) => [k, v.trim()]))) },
      },
    ],
  };
}
