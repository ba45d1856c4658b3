import { HELP, LocalStartError, parseLocalOptions, startNotices } from './options';
import { readyReport, runUntilSignalled, setUpLocalService, startStorage } from './start';

/** `npm start`: the steps of local/options.ts and local/start.ts in order; a step's LocalStartError ends it with its message. */
const main = async () => {
  const options = parseLocalOptions(process.argv.slice(2), process.env);
  if (!options) {
    console.log(HELP);
    return;
  }
  for (const line of startNotices(options)) console.log(line);
  const service = await setUpLocalService(options);
  runUntilSignalled(service);
  await startStorage(service, options);
  for (const line of readyReport(options, service.url)) console.log(line);
};

main().catch((error: Error) => {
  console.error(`error: ${error instanceof LocalStartError ? error.message : error.stack}`);
  process.exit(1);
});
