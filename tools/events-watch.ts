import { integerOption, parseCommandLine, runTool } from './cli';
import { startEventReceiver } from './event-receiver';
import { escapeControl } from './terminal-text';

const DEFAULT_PORT = 4000;

const HELP = `Usage: npm run events:watch [-- options]

Receives the books' change events that npm start sends (CloudEvents over HTTP, one POST each)
and prints one line per event: time, type, book id, version, event id. Start it, then start the
service pointing at it in another terminal:

  npm run events:watch
  LOCAL_EVENTS_URL=http://127.0.0.1:${DEFAULT_PORT}/events npm start

Options:
  --port <n>     port on 127.0.0.1 to listen on (default ${DEFAULT_PORT}; 0: any free one)
  --json         print each whole event as one JSON line instead (for jq and the like)
  --fail <n>     answer 500 to the first n events, to watch npm start retry them (default 0)
  -h, --help     this text

Ctrl-C stops it; events sent meanwhile are retried by npm start, then dead-lettered in
DATA_DIR/events-dead-letter.jsonl (docs/contract.md#events).`;

const COMMAND = 'npm run events:watch --';

runTool(COMMAND, async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: {
      port: { type: 'string' },
      json: { type: 'boolean', default: false },
      fail: { type: 'string' },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  let failures = integerOption('fail', values.fail, 0, { min: 0 });
  const receiver = await startEventReceiver({
    port: integerOption('port', values.port, DEFAULT_PORT, { min: 0, max: 65535 }),
    onEvent: (event) => {
      if (failures > 0) {
        failures--;
        console.log(`(answered 500 to ${escapeControl(event.id)} on purpose)`);
        return 500;
      }
      const { time, type, subject, id } = event;
      const version = (event as unknown as Record<string, unknown>).bookversion;
      console.log(
        values.json
          ? JSON.stringify(event)
          : escapeControl(`${time}  ${type}  book ${subject}  version ${version}  id ${id}`),
      );
      return 204;
    },
    onInvalid: (reason) => console.error(`refused a request: ${escapeControl(reason)}`),
  });
  console.error(`Listening for change events on ${receiver.url}`);
  console.error(`Start the service with: LOCAL_EVENTS_URL=${receiver.url} npm start`);
  const stop = () => void receiver.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
