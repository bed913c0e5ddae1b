// The commands of bin/tokengate.ts, in the order its usage lists them. Each opens the store named
// by --store or EVENT_STORE, through the composition root (root.ts).
import { UsageError, type Command } from './command-kit.js';
import { order, token } from './history-commands.js';
import { exportLog, importLog, replay } from './log-commands.js';
import { notifications } from './notification-commands.js';

export const commands: Record<string, Command> = { replay, token, order, export: exportLog, notifications, import: importLog };

// Usage errors print the message and exit 2; anything else is a failure of the tool.
for (const command of Object.values(commands)) {
  const run = command.run.bind(command);
  command.run = async (positionals, values) => {
    try {
      return await run(positionals, values);
    } catch (error) {
      if (error instanceof UsageError) { process.stderr.write(`tokengate: ${error.message}\n`); return 2; }
      throw error;
    }
  };
}
