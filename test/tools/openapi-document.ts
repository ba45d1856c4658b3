import { readFileSync, writeFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { handler } from '../../functions/openapi/handler';
import { lambdaContext } from '../../local/gateway';

const HELP = `Usage: tsx test/tools/openapi-document.ts OUTFILE

Writes the OpenAPI document exactly as the deployed function serves it: the GetOpenApi handler
answers the sample API Gateway event events/get-openapi.json (so \`servers\` names the gateway's
origin and stage). PUBLIC_READS and the other settings come from the environment, as on Lambda.
Exits 1 unless the handler answers 200.`;

const [outFile] = process.argv.slice(2);
if (!outFile || outFile === '--help' || outFile === '-h') {
  console.log(HELP);
  process.exit(outFile ? 0 : 2);
}

const event = JSON.parse(readFileSync('events/get-openapi.json', 'utf8')) as APIGatewayProxyEvent;
// Typed as middy's normalizers leave it; the raw event is what API Gateway sends.
const answer = (await handler(
  event as Parameters<typeof handler>[0],
  lambdaContext('GetOpenApi', event.requestContext.requestId),
)) as APIGatewayProxyResult;
if (answer.statusCode !== 200) {
  console.error(`GET /api/openapi.json answered ${answer.statusCode}: ${answer.body}`);
  process.exit(1);
}
writeFileSync(outFile, answer.body);
