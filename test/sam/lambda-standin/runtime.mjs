// The stand-in's runtime: the Lambda Runtime API loop that AWS's Node.js base image runs, reduced
// to what `sam local` exercises (docs/sam.md). Written by hand because the npm runtime interface
// client (aws-lambda-ric) compiles a native addon at install time, which the image, without a
// compiler, cannot do.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const api = `http://${process.env.AWS_LAMBDA_RUNTIME_API}/2018-06-01/runtime`;
const taskRoot = process.env.LAMBDA_TASK_ROOT ?? '/var/task';
const handlerSetting = process.env._HANDLER ?? process.env.AWS_LAMBDA_FUNCTION_HANDLER ?? 'index.handler';

const post = (path, body, headers = {}) =>
  fetch(`${api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const errorBody = (error) => ({
  errorType: error?.name ?? 'Error',
  errorMessage: error?.message ?? String(error),
  stackTrace: String(error?.stack ?? '').split('\n'),
});

const loadHandler = async () => {
  const dot = handlerSetting.lastIndexOf('.');
  const moduleName = handlerSetting.slice(0, dot);
  const exportName = handlerSetting.slice(dot + 1);
  const file = ['.mjs', '.js', '.cjs'].map((ext) => join(taskRoot, moduleName + ext)).find(existsSync);
  if (!file) throw new Error(`Cannot find module '${moduleName}' in ${taskRoot}`);
  const handler = (await import(pathToFileURL(file).href))[exportName];
  if (typeof handler !== 'function') throw new Error(`${handlerSetting} is not a function`);
  return handler;
};

let handler;
try {
  handler = await loadHandler();
} catch (error) {
  console.error(error);
  await post('/init/error', errorBody(error), { 'lambda-runtime-function-error-type': 'Runtime.ImportModuleError' });
  process.exit(1);
}

for (;;) {
  const next = await fetch(`${api}/invocation/next`);
  const requestId = next.headers.get('lambda-runtime-aws-request-id');
  const deadline = Number(next.headers.get('lambda-runtime-deadline-ms'));
  const event = await next.json();
  const context = {
    awsRequestId: requestId,
    invokedFunctionArn: next.headers.get('lambda-runtime-invoked-function-arn'),
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await handler(event, context);
    await post(`/invocation/${requestId}/response`, result ?? null);
  } catch (error) {
    console.error(error);
    await post(`/invocation/${requestId}/error`, errorBody(error), {
      'lambda-runtime-function-error-type': 'Runtime.UnhandledError',
    });
  }
}
