/**
 * Published on-demand prices, us-east-1, as on the AWS pricing pages (aws.amazon.com/lambda/pricing,
 * /dynamodb/pricing/on-demand, /api-gateway/pricing) at PRICES_AS_OF. No network here: check them
 * before relying on the estimate.
 */
export const PRICES_AS_OF = '2025-06 (DynamoDB on-demand after the November 2024 reduction)';
export const PRICES = {
  /** Lambda arm64, per GB-second (first 7.5 billion GB-s a month). */
  lambdaArmGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** DynamoDB on-demand, per million read / write request units. */
  dynamoPerMillionReads: 0.125,
  dynamoPerMillionWrites: 0.625,
  /** REST API, per million requests (first 333 million a month); a streamed response counts one per 10 MB. */
  restApiPerMillion: 3.5,
  /** Lambda response streaming, per GB a function streams beyond the first 6 MB of each response. */
  lambdaStreamedPerGb: 0.008,
};

/** Lambda gives one full vCPU at 1,769 MB; below that, CPU time stretches in proportion. */
const FULL_VCPU_MB = 1769;
const MEMORY_OPTIONS_MB = [128, 256, 512, 1024] as const;
/**
 * An assumption, not a measurement (Dynoxide on a shared laptop says nothing about AWS): the
 * time one DynamoDB call from Lambda waits in the same region.
 */
export const ASSUMED_DYNAMODB_CALL_MS = 5;

/** Warm duration at `memoryMb`: measured CPU time stretched by the CPU share, plus waiting on DynamoDB. */
export const durationMs = (cpuMs: number, roundTrips: number, memoryMb: number): number =>
  cpuMs * Math.max(1, FULL_VCPU_MB / memoryMb) + roundTrips * ASSUMED_DYNAMODB_CALL_MS;

/** Lambda's charge for one million warm invocations (billed duration rounds up to 1 ms). */
export const lambdaCostPerMillion = (durationMsAtMemory: number, memoryMb: number): number =>
  1e6 * (memoryMb / 1024) * (Math.ceil(durationMsAtMemory) / 1000) * PRICES.lambdaArmGbSecond +
  PRICES.lambdaPerMillionRequests;

/**
 * The memory size where cost × duration is lowest. With duration d = a/M + b (a = CPU time × 1,769,
 * b = DynamoDB wait) and cost ∝ M·d, the product M·d² is smallest at M = a/b: more memory stops
 * paying once CPU time no longer dominates the wait. Picks the listed size nearest that optimum.
 */
export const bestMemoryMb = (cpuMs: number, roundTrips: number): number => {
  const optimum = (cpuMs * FULL_VCPU_MB) / Math.max(roundTrips * ASSUMED_DYNAMODB_CALL_MS, 1e-9);
  const score = (m: number) => m * durationMs(cpuMs, roundTrips, m) ** 2;
  return [...MEMORY_OPTIONS_MB].sort(
    (x, y) => score(x) - score(y) || Math.abs(x - optimum) - Math.abs(y - optimum),
  )[0] as number;
};

export const dynamoCostPerMillion = (reads: number, writes: number): number =>
  reads * PRICES.dynamoPerMillionReads + writes * PRICES.dynamoPerMillionWrites;

/**
 * The challenge leg of a Digest request whose client did not use a `nextnonce`: one more API Gateway
 * request answered 401, and one more authorizer invocation that signs a nonce (no DynamoDB call).
 */
export const digestChallengeLegCostPerMillion = (authorizerCpuMs: number, memoryMb: number): number =>
  PRICES.restApiPerMillion + lambdaCostPerMillion(durationMs(authorizerCpuMs, 0, memoryMb), memoryMb);
