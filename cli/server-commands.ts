import type { Command } from 'commander';
import { takeEarlySignals } from './early-signals.ts';

// The server is imported when a command runs, not for `--help` or a usage error: loading it takes a second.
const server = () => import('../server/main.ts');

/** The commands that run Intake itself (serve, worker, migrate, dev, mcp): the CLI's only route into server/ besides `admin`. */
export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP API (and, unless --no-worker, the background workers)')
    .option('--no-worker', 'serve HTTP only; run `intake worker` processes separately')
    .action(async (opts: { worker: boolean }) => {
      const { boot, loadConfig, runUntilSignal } = await server();
      const rt = await boot(loadConfig(), {
        http: true,
        worker: opts.worker,
        services: true,
        signalsBeforeBoot: takeEarlySignals,
      });
      await runUntilSignal(rt);
    });

  program
    .command('worker')
    .description('Run the background workers only')
    .action(async () => {
      const { boot, loadConfig, runUntilSignal } = await server();
      const rt = await boot(loadConfig(), {
        http: false,
        worker: true,
        services: true,
        signalsBeforeBoot: takeEarlySignals,
      });
      await runUntilSignal(rt);
    });

  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .action(async () => {
      const { boot, loadConfig } = await server();
      const rt = await boot(loadConfig(), { http: false, worker: false, services: false });
      await rt.close();
      console.log('migrations are up to date');
    });

  program
    .command('dev')
    .description('Run everything for local development: embedded Postgres and S3 by default, a dev team and token')
    .action(async () => {
      const [{ boot, loadConfig, runUntilSignal }, { ensureDevAccount }, { privateDataDir }] = await Promise.all([
        server(),
        import('./dev.ts'),
        import('../server/infra/data-dir.ts'),
      ]);
      const loaded = loadConfig();
      // It prints an owner token: only this machine can reach it unless HOST says otherwise. Notification
      // addresses need not confirm by e-mail in development unless INTAKE_VERIFY_NOTIFICATION_EMAILS says so.
      const config = {
        ...loaded,
        host: loaded.hostSet ? loaded.host : '127.0.0.1',
        verifyNotificationEmails: loaded.verifyNotificationEmailsSet ? loaded.verifyNotificationEmails : false,
      };
      const rt = await boot(config, { http: true, worker: true, services: true, signalsBeforeBoot: takeEarlySignals });
      const { token, created } = await ensureDevAccount(rt);
      privateDataDir(config.dataDir);
      const base = rt.url!;
      console.log(
        [
          '',
          `Intake is running at ${base}   (data in ${config.dataDir}${config.databaseUrl ? ', DATABASE_URL' : ''})`,
          `${created ? 'Created a dev team (plan team) with an owner token' : 'Dev owner token'}:`,
          '',
          `  ${token}`,
          '',
          `Try:   curl -H "Authorization: Bearer ${token}" ${base}/v1/me`,
          `Docs:  ${base}/v1/docs`,
          ...(config.verifyNotificationEmails
            ? []
            : [
                'Note:  notification addresses are not asked to confirm in development (INTAKE_VERIFY_NOTIFICATION_EMAILS=true to test it)',
              ]),
          'Stop:  Ctrl-C',
          '',
        ].join('\n'),
      );
      await runUntilSignal(rt);
    });

  program
    .command('mcp')
    .description(
      'Serve MCP over stdio for a client that starts a command; needs INTAKE_TOKEN (INTAKE_URL: relay to a remote Intake)',
    )
    .addHelpText(
      'after',
      '\nEnvironment:\n  INTAKE_TOKEN   the API token the agent acts with (required)\n' +
        "  INTAKE_URL     a remote Intake (e.g. https://forms.example.com): relay to its /mcp; unset: use this installation's database\n",
    )
    .action(async () => {
      const token = process.env.INTAKE_TOKEN;
      if (!token) throw new Error('set INTAKE_TOKEN to the API token the agent acts with');
      const { relayStdio, serveStdio } = await import('../server/transports/mcp/stdio.ts');
      if (process.env.INTAKE_URL) {
        await await relayStdio(process.env.INTAKE_URL, token);
        return;
      }
      const { boot, loadConfig } = await server();
      const { pino } = await import('pino');
      const config = loadConfig();
      // stdout carries the protocol: logs go to stderr.
      const log = pino({ level: config.logLevel, base: { service: 'intake' } }, pino.destination(2));
      const rt = await boot(config, { http: false, worker: false, services: true, log });
      const stop = await serveStdio(rt.ctx, token);
      const quit = async () => {
        await stop();
        await rt.close();
        process.exit(0);
      };
      process.stdin.on('end', () => void quit());
      process.once('SIGINT', () => void quit());
      process.once('SIGTERM', () => void quit());
    });
}
