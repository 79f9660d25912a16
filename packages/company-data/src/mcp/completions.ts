/**
 * completion/complete: suggestions while a person fills in a prompt's or a resource template's argument.
 * A prompt's registry_code: the service's company search (a registry code prefix of 3+ digits gives codes,
 * words of a name give registered names, which the prompt takes too); the classifier template's type: the
 * classifier types of the operation table. Anything else gets an empty list, as the protocol allows.
 */
import type { CompleteRequest, CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import type { CoreClient } from '@company-data/core/client';
import { operationGroups } from '@company-data/core/operations';
import { classifierTemplateUri } from './resources';

/** The protocol allows up to 100 values; a picker shows a handful. */
const MAX_VALUES = 10;

const none: CompleteResult = { completion: { values: [], hasMore: false } };

const classifierTypes = (operationGroups.reference.classifiers.params.type.options ?? []).map((o) => String(o.value));

async function companies(client: CoreClient, value: string, signal?: AbortSignal): Promise<CompleteResult> {
  const typed = value.trim();
  const digits = /^\d+$/.test(typed);
  // The service searches a code from 3 digits and a name from a word of 3 letters; a full code has nothing to add.
  if (digits ? typed.length < 3 || typed.length > 8 : !/\p{L}{3}/u.test(typed)) return none;
  const res = await client.call(
    operationGroups.companies.search,
    { q: typed, limit: MAX_VALUES },
    signal ? { shouldStart: () => !signal.aborted } : {},
  );
  const values = [...new Set(res.data.map((c) => (digits ? c.registry_code : c.name)))].filter((v) =>
    digits ? v.startsWith(typed) : true,
  );
  const total = res.meta.pagination?.total;
  return {
    completion: {
      values,
      ...(total !== undefined ? { total } : {}),
      hasMore: total !== undefined ? total > values.length : false,
    },
  };
}

/** Prompts whose arguments name a company (resources.ts): their registry_code argument is completed. */
export async function complete(
  client: CoreClient,
  params: CompleteRequest['params'],
  promptNames: readonly string[],
  signal?: AbortSignal,
): Promise<CompleteResult> {
  const { ref, argument } = params;
  if (ref.type === 'ref/prompt' && promptNames.includes(ref.name) && argument.name === 'registry_code')
    return companies(client, argument.value, signal);
  if (ref.type === 'ref/resource' && ref.uri === classifierTemplateUri && argument.name === 'type') {
    const typed = argument.value.trim().toLowerCase();
    const values = classifierTypes.filter((t) => t.toLowerCase().startsWith(typed));
    return { completion: { values, total: values.length, hasMore: false } };
  }
  return none;
}
