/**
 * The MCP Registry entry (packages/company-data/server.json, published with mcp-publisher from that folder)
 * describes the package it sits beside: the registry verifies an npm package by its mcpName, refuses a
 * version range, and clients start the server from the package, arguments and environment it lists.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { langs } from '@company-data/core/vocabulary';
import { mcpCommand } from '../../../packages/company-data/src/cli/commands/mcp';

const dir = resolve(__dirname, '../../../packages/company-data');
const serverJson = JSON.parse(readFileSync(resolve(dir, 'server.json'), 'utf8')) as {
  $schema: string;
  name: string;
  description: string;
  version: string;
  repository: { url: string; source: string; subfolder: string };
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    packageArguments: { type: string; value?: string; name?: string; choices?: string[] }[];
    environmentVariables: { name: string; isSecret: boolean; isRequired: boolean }[];
  }[];
};
const pkg = JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  mcpName: string;
  bin: Record<string, string>;
  repository: { url: string; directory: string };
};

describe('server.json (MCP Registry)', () => {
  it("has the package's name and version", () => {
    expect(serverJson.name).toBe(pkg.mcpName);
    expect(serverJson.version).toBe(pkg.version);
    expect(serverJson.packages).toHaveLength(1);
    expect(serverJson.packages[0]).toMatchObject({
      registryType: 'npm',
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: 'stdio' },
    });
  });

  it("keeps the registry's rules: reverse-DNS name of the GitHub namespace, a description of at most 100 characters, a fixed version", () => {
    expect(serverJson.$schema).toMatch(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/);
    expect(serverJson.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    const [, owner, repo] = /github\.com\/([^/]+)\/([^/.]+)/.exec(pkg.repository.url)!;
    expect(serverJson.name).toBe(`io.github.${owner}/${repo}`);
    expect(serverJson.repository).toMatchObject({
      url: `https://github.com/${owner}/${repo}`,
      source: 'github',
      subfolder: pkg.repository.directory,
    });
    expect(serverJson.description.length).toBeLessThanOrEqual(100);
    expect(serverJson.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  });

  it('starts the mcp command with the options and environment variables the command reads', () => {
    const [entry] = serverJson.packages;
    const cmd = mcpCommand();
    expect(Object.keys(pkg.bin)).toContain(pkg.name);
    expect(entry!.packageArguments[0]).toEqual({ type: 'positional', value: cmd.name() });
    for (const a of entry!.packageArguments.filter((x) => x.type === 'named')) {
      const option = cmd.options.find((o) => o.long === a.name);
      expect(option, `${a.name} is an option of company-data mcp`).toBeDefined();
      if (a.name === '--lang') expect([...a.choices!].sort()).toEqual([...langs].sort());
    }
    // The stdio server reads exactly these (flags win); the COMPANY_DATA_MCP_* ones (token, OAuth issuer and
    // audience, public URL) are for --http only, which a registry entry of transport stdio never starts.
    const envOfOptions = cmd.options.map((o) => o.envVar).filter((v): v is string => !!v && !v.startsWith('COMPANY_DATA_MCP_'));
    expect(entry!.environmentVariables.map((e) => e.name).sort()).toEqual(envOfOptions.sort());
    expect(entry!.environmentVariables.find((e) => e.name === 'COMPANY_DATA_API_KEY')).toMatchObject({ isSecret: true });
    // Neither is required: without both the server answers from its offline sandbox.
    for (const e of entry!.environmentVariables) expect(e.isRequired).toBe(false);
  });
});
