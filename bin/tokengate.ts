#!/usr/bin/env node
// tokengate's command-line tool: serve, replay, token, order, export, import, notifications.
// Every command reads EVENT_STORE (default sqlite:./data/gateway.db) or --store.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, MAX_WORKERS, workersFromEnv } from '../config.js';
import { exitWithError } from '../exit.js';
import { VERSION } from '../lib/version.js';
import type { Command } from './command-kit.js';
import { commands } from './commands.js';

const USAGE = `Usage: tokengate <command> [options]
       tokengate --version

Commands:
${Object.entries(commands).map(([name, c]) => `  ${name.padEnd(13)} ${c.summary}`).join('\n')}
  serve         start the gateway (same as npm start; configured by the environment; --workers N)

Run "tokengate <command> --help" for a command's options.`;

const SERVE_USAGE = `Usage: tokengate serve [--workers N]

Start the gateway (as npm start). Configuration comes from the environment: HOST, PORT,
EVENT_STORE, MERCHANTS_FILE, LOG_LEVEL and the others of the README (Configuration).

Options:
  --workers <N>                N gateway processes on one port, 1 to ${MAX_WORKERS} (default: $WORKERS, else 1)
  --help                       this text
`;

function helpOf(name: string, command: Command): string {
  const rows: Array<[string, string]> = Object.entries(command.options).map(([flag, o]) =>
    [`--${flag}${o.type === 'string' ? ` <${o.value ?? 'value'}>` : ''}`, o.help]);
  rows.push(['--store <EVENT_STORE>', 'the store (default: $EVENT_STORE, else sqlite:./data/gateway.db)'], ['--help', 'this text']);
  const options = rows.map(([flag, help]) => `  ${flag.padEnd(28)} ${help}`).join('\n');
  return `Usage: tokengate ${name} ${command.args}\n\n${command.summary}\n\nOptions:\n${options}\n` +
    (command.example ? `\nExample:\n  ${command.example}\n` : '');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    process.stdout.write(`tokengate ${VERSION}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = topic ? commands[topic] : undefined;
    process.stdout.write(`${command && topic ? helpOf(topic, command) : USAGE}\n`);
    return 0;
  }
  if (name === 'serve') {
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { workers: { type: 'string' }, help: { type: 'boolean' } }, strict: true });
    } catch (error) {
      process.stderr.write(`tokengate serve: ${(error as Error).message}\n\n${SERVE_USAGE}`);
      return 2;
    }
    if (parsed.values.help) {
      process.stdout.write(SERVE_USAGE);
      return 0;
    }
    const workers = parsed.values.workers;
    if (workers !== undefined) {
      try {
        workersFromEnv({ WORKERS: workers });
      } catch (error) {
        throw new ConfigError((error as Error).message.replace(/^WORKERS/, '--workers'));
      }
    }
    // The server's modules (Fastify, the routes) only for serve: the other commands start without them.
    const { serve } = await import('../server.js');
    await serve(workers === undefined ? process.env : { ...process.env, WORKERS: workers });
    return -1; // keeps running
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`tokengate: unknown command '${name}'\n\n${USAGE}\n`);
    return 2;
  }
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean' }, store: { type: 'string' } };
  for (const [flag, o] of Object.entries(command.options)) options[flag] = { type: o.type };
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`tokengate ${name}: ${(error as Error).message}\n\n${helpOf(name, command)}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(helpOf(name, command));
    return 0;
  }
  return command.run(parsed.positionals, parsed.values as Record<string, string | boolean | undefined>);
}

main(process.argv.slice(2)).then((code) => { if (code >= 0) process.exitCode = code; }, exitWithError);
