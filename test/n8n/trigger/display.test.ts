import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { describe, expect, test } from 'vitest';
import { CompanyDataPollTrigger } from '../../../nodes/CompanyDataPollTrigger/CompanyDataPollTrigger.node';
import { CompanyDataTrigger } from '../../../nodes/CompanyDataTrigger/CompanyDataTrigger.node';

/*
 * Which trigger fields the editor shows for the chosen events, and what n8n keeps when it saves the
 * node: NodeHelpers.getNodeParameters is the function the editor and the server both use (it drops
 * values of hidden fields and values equal to their default).
 */

const triggers = { webhook: new CompanyDataTrigger().description, poll: new CompanyDataPollTrigger().description };
const ALL = { webhook: ['monitoring.change', 'search.matches', 'webhook.test'], poll: ['monitoring.change', 'search.matches'] } as const;

/** The parameters n8n saves for a node of this version holding these values. */
const saved = (props: INodeProperties[], version: number, values: INodeParameters) =>
  NodeHelpers.getNodeParameters(props, values, false, false, { typeVersion: version } as never, null) as INodeParameters;

/** Top-level fields the editor shows, with the defaults filled in as n8n does before deciding. */
function shown(props: INodeProperties[], version: number, values: INodeParameters): string[] {
  const full = NodeHelpers.getNodeParameters(props, values, true, false, { typeVersion: version } as never, null) as INodeParameters;
  return props
    .filter((p) => p.type !== 'notice' && NodeHelpers.displayParameter(full, p, { typeVersion: version } as never, null))
    .map((p) => p.name);
}

/** Options of the Options collection the editor offers ('/events' read from the node's own fields). */
function offeredOptions(props: INodeProperties[], version: number, values: INodeParameters): string[] {
  const full = NodeHelpers.getNodeParameters(props, values, true, false, { typeVersion: version } as never, null) as INodeParameters;
  const options = props.find(
    (p) => p.name === 'options' && NodeHelpers.displayParameter(full, p, { typeVersion: version } as never, null),
  )!;
  return (options.options as INodeProperties[])
    .filter((o) => NodeHelpers.displayParameter({}, o, { typeVersion: version } as never, null, full))
    .map((o) => o.name);
}

describe.each(Object.keys(triggers) as (keyof typeof triggers)[])('%s trigger: fields shown only when they apply', (key) => {
  const props = triggers[key].properties;

  test.each([1, 2])('version %i: Change Filters only with Monitoring Change, Saved Searches only with Saved Search Matches', (version) => {
    expect(shown(props, version, { events: ['monitoring.change'] })).toContain('filters');
    expect(shown(props, version, { events: ['search.matches'] })).not.toContain('filters');
    // The tester's case: only Monitoring Change chosen, so no saved-search field.
    const changeOnly = shown(props, version, { events: ['monitoring.change'] });
    const matchesOnly = shown(props, version, { events: ['search.matches'] });
    const hasSearchIds = key === 'poll' || version === 2;
    expect(changeOnly).not.toContain('searchIds');
    expect(matchesOnly.includes('searchIds')).toBe(hasSearchIds);
    // Both kinds chosen, and Events left at its default (all events): both fields.
    for (const values of [{ events: ['monitoring.change', 'search.matches'] }, {}]) {
      expect(shown(props, version, values)).toEqual(expect.arrayContaining(hasSearchIds ? ['filters', 'searchIds'] : ['filters']));
    }
    // An expression in Events shows every field: its value is known only when the trigger runs.
    expect(shown(props, version, { events: '={{ ["search.matches"] }}' })).toEqual(
      expect.arrayContaining(['filters', 'events', 'language']),
    );
  });

  test.each([1, 2])('version %i: One Item per Company is offered only with Saved Search Matches', (version) => {
    expect(offeredOptions(props, version, { events: ['monitoring.change'] })).not.toContain('onePerCompany');
    expect(offeredOptions(props, version, { events: ['search.matches'] })).toContain('onePerCompany');
    expect(offeredOptions(props, version, {})).toContain('onePerCompany');
    const own = key === 'webhook' ? 'takeOver' : 'startFrom';
    expect(offeredOptions(props, version, { events: ['monitoring.change'] })).toContain(own);
  });

  test.each([1, 2])('version %i: One Digest per Poll is offered by the version 2 Poll Trigger, with Monitoring Change', (version) => {
    const offered = version === 2 && key === 'poll';
    expect(offeredOptions(props, version, { events: ['monitoring.change'] }).includes('digest')).toBe(offered);
    expect(offeredOptions(props, version, { events: ['monitoring.change'] }).includes('digestLines')).toBe(offered);
    expect(offeredOptions(props, version, { events: ['search.matches'] })).not.toContain('digest');
  });

  test('version 2: filters set while Events is at its default are kept when n8n saves the node; dropped once Monitoring Change is unticked', () => {
    const filters = { tones: ['bad'], kinds: ['tax_debt'] };
    // n8n leaves Events out of the saved parameters when it equals its default, and still keeps the filters.
    expect(saved(props, 2, { events: [...ALL[key]], filters })).toEqual({ filters });
    expect(saved(props, 2, { filters })).toEqual({ filters });
    expect(saved(props, 2, { events: ['search.matches'], filters })).toEqual({ events: ['search.matches'] });
    const searchIds = ['srch_a'];
    expect(saved(props, 2, { events: ['monitoring.change'], searchIds })).toEqual({ events: ['monitoring.change'] });
    expect(saved(props, 2, { events: ['search.matches'], searchIds })).toEqual({ events: ['search.matches'], searchIds });
  });
});

describe('trigger labels in plain words', () => {
  const filterLabels = (version: number) =>
    triggers.webhook.properties
      .filter(
        (p) =>
          p.name === 'filters' &&
          NodeHelpers.displayParameter({ events: ['monitoring.change'] }, p, { typeVersion: version } as never, null),
      )
      .flatMap((p) => (p.options as INodeProperties[]).map((o) => o.displayName));

  test.each([1, 2])('version %i: the change filters say "Good or Bad News" and "Types of Change", not Tones and Kinds', (version) => {
    const labels = filterLabels(version);
    expect(labels).toEqual(expect.arrayContaining(['Categories', 'Types of Change', 'Good or Bad News']));
    expect(labels).not.toContain('Tones');
    expect(labels).not.toContain('Kinds');
  });

  test('version 2 names the types of change in Title Case with VAT spelt as such', () => {
    const kinds = triggers.webhook.properties
      .filter(
        (p) =>
          p.name === 'filters' && NodeHelpers.displayParameter({ events: ['monitoring.change'] }, p, { typeVersion: 2 } as never, null),
      )
      .flatMap((p) => p.options as INodeProperties[])
      .find((o) => o.name === 'kinds')!;
    const names = kinds.options!.map((o) => o.name);
    expect(names).toContain('VAT Deregistered');
    for (const name of names) expect(name, name).toMatch(/^[A-Z]+[a-z]*( [A-Z][a-z]*)*$/);
  });
});
