import { Command } from 'commander';
import { setOfflineStarter } from './config';
import { authCommand } from './commands/auth';
import { enrichCommand } from './commands/enrich';
import { eventsToSheetCommand } from './commands/events-to-sheet';
import { watchCommand } from './commands/watch';
import { mcpCommand } from './commands/mcp';
import { sandboxCommand } from './commands/sandbox';
import { inCliWords } from './sheets-errors';

// Commands without --base-url / --api-key run against an in-process sandbox.
setOfflineStarter(async () => {
  const { startSandbox } = await import('../sandbox');
  return startSandbox({ companies: 20_000 });
});

const program = new Command('company-data')
  .description('Estonian company data from the terminal: enrich sheets, follow events, serve AI assistants (MCP), run the offline sandbox')
  .showHelpAfterError();
for (const cmd of [sandboxCommand(), enrichCommand(), eventsToSheetCommand(), watchCommand(), mcpCommand(), authCommand()])
  program.addCommand(cmd);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`${inCliWords(err)}\n`);
  process.exit(1);
});
