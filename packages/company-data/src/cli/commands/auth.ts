import { Command, InvalidArgumentError, Option } from 'commander';
import { accountFile, readAccount, removeAccount, saveAccount } from '../../sheets/google-account';
import { checkAccount, openInBrowser, readClientFile, revokeAccount, signIn } from '../../sheets/google-signin';
import { stateDirOption } from '../options';

/** Where the sign-in is kept: the same state folder (and option) as the commands that use it. */
const signInStateDirOption = () => stateDirOption('state folder holding the sign-in (google-account.json)');

const seconds = (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('timeout: must be a whole number of seconds, 1 or more');
  return Number(v);
};

interface LoginFlags {
  clientFile?: string;
  browser: boolean;
  timeout: number;
  stateDir?: string;
}

function loginCommand(): Command {
  return new Command('login')
    .description('sign in with a Google account in the browser; --google-account then uses it (for people without a service account)')
    .addOption(
      new Option('--client-file <path>', 'your OAuth client of type "Desktop app", as downloaded from the Google Cloud console (JSON)').env(
        'COMPANY_DATA_GOOGLE_CLIENT_FILE',
      ),
    )
    .option('--no-browser', 'only print the address to open (for a machine without a desktop)')
    .addOption(new Option('--timeout <seconds>', 'how long to wait for the sign-in in the browser').argParser(seconds).default(300))
    .addOption(signInStateDirOption())
    .action(async (flags: LoginFlags) => {
      const say = (line: string) => process.stderr.write(line + '\n');
      if (!flags.clientFile)
        throw new Error(
          'client-file: give your OAuth client (type "Desktop app", JSON from Cloud console → APIs & Services → Credentials) with --client-file or COMPANY_DATA_GOOGLE_CLIENT_FILE',
        );
      const client = readClientFile(flags.clientFile);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const stored = await signIn({
          client,
          timeoutMs: flags.timeout * 1000,
          signal: stop.signal,
          onUrl: async (url) => {
            const opened = flags.browser && (await openInBrowser(url));
            say(
              opened
                ? 'Sign in with Google in the browser that opened. If none did, open this address:'
                : 'Open this address in a browser to sign in with Google:',
            );
            say(url);
            say(`Waiting up to ${flags.timeout} s for the sign-in (Ctrl-C to cancel)...`);
          },
        });
        const path = saveAccount(stored, flags.stateDir);
        const who = stored.account ?? 'the Google account';
        process.stdout.write(
          `Signed in as ${who}. The sign-in is kept in ${path} (readable by you only).\n` +
            `Use it with --google-account on enrich and events-to-sheet; a spreadsheet must be yours or shared with ${who} as an Editor.\n`,
        );
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

function statusCommand(): Command {
  return new Command('status')
    .description('who is signed in, and whether the sign-in still works (asks Google for a token, which is not kept)')
    .addOption(signInStateDirOption())
    .action(async (flags: { stateDir?: string }) => {
      const found = readAccount(flags.stateDir);
      if (!found) {
        process.stdout.write(
          `Not signed in (no ${accountFile(flags.stateDir)}). Sign in with: company-data auth login --client-file <client.json>\n`,
        );
        process.exitCode = 1;
        return;
      }
      const s = found.stored;
      const check = await checkAccount(s);
      process.stdout.write(
        [
          `Signed in as ${s.account ?? 'a Google account (email not shared)'} since ${s.signed_in_at}`,
          `Sign-in file: ${found.path}`,
          `Permissions: ${s.scope}`,
          check.ok
            ? 'Check: the sign-in works (Google issued an access token).'
            : `Check: the sign-in no longer works (${check.why}); sign in again with company-data auth login`,
        ].join('\n') + '\n',
      );
      if (!check.ok) process.exitCode = 1;
    });
}

function logoutCommand(): Command {
  return new Command('logout')
    .description('sign out: revoke the sign-in at Google and delete it from the state folder')
    .addOption(signInStateDirOption())
    .action(async (flags: { stateDir?: string }) => {
      let found: ReturnType<typeof readAccount>;
      try {
        found = readAccount(flags.stateDir);
      } catch {
        // A damaged file cannot be revoked, but it can still be removed.
        removeAccount(flags.stateDir);
        process.stdout.write(`Deleted the damaged sign-in file ${accountFile(flags.stateDir)}.\n`);
        return;
      }
      if (!found) {
        process.stdout.write(`Not signed in (no ${accountFile(flags.stateDir)}); nothing to do.\n`);
        return;
      }
      const r = await revokeAccount(found.stored);
      removeAccount(flags.stateDir);
      const who = found.stored.account ?? 'the Google account';
      process.stdout.write(
        r.revoked
          ? `Signed out ${who}: access revoked at Google and ${found.path} deleted.\n`
          : `Signed out ${who}: ${found.path} deleted, but Google did not confirm the revocation (${r.why}); ` +
              'remove the access under https://myaccount.google.com/permissions\n',
      );
    });
}

export function authCommand(): Command {
  return new Command('auth')
    .description('sign in with a Google account for Google Sheets (login, status, logout)')
    .addCommand(loginCommand())
    .addCommand(statusCommand())
    .addCommand(logoutCommand());
}
