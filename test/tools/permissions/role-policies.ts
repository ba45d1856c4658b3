import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource } from 'aws-cdk-lib';
import { BookLibraryStack, type BookLibraryStackProps } from '../../../infra/book-library-stack';
import type { TableKind } from '../../../local/call-log';

/** The account and region the synthesized ARNs are resolved in (any would do: every ARN is the stack's own). */
export const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

interface PolicyDocument {
  Version: string;
  Statement: PolicyStatement[];
}

/** One function's role as the template grants it: its ARN and its policies, intrinsic functions resolved. */
export interface FunctionRole {
  roleArn: string;
  policies: Array<{ name: string; policy: PolicyDocument }>;
}

export interface StackRoles {
  /** By the stack's function name: the route name, `Authorizer`, `ResourceMethods`. */
  functions: Record<string, FunctionRole>;
  /** The ARN of each of the service's tables. */
  tables: Record<TableKind, string>;
  /** The change-events function's role and the ARNs of what it reaches (test/tools/permissions/events-function.ts). */
  changeEvents?: ChangeEventsRole;
}

export interface ChangeEventsRole {
  role: FunctionRole;
  stream: string;
  bus: string;
  deadLetters: string;
}

/** A template resource, as far as this module reads one. */
interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}

/**
 * CloudFormation's intrinsic functions as they resolve in one account and region: what the role
 * policies use (Ref, Fn::GetAtt of a table's Arn, Fn::Join). Anything else stays an unmatchable text.
 */
const resolver = (resources: Record<string, Resource>) => {
  const arnOf = (id: string) => {
    const type = resources[id]?.Type;
    if (type === 'AWS::DynamoDB::Table') return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${id}`;
    if (type === 'AWS::IAM::Role') return `arn:aws:iam::${ACCOUNT}:role/${id}`;
    if (type === 'AWS::Logs::LogGroup') return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${id}:*`;
    if (type === 'AWS::Events::EventBus') return `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${id}`;
    if (type === 'AWS::SQS::Queue') return `arn:aws:sqs:${REGION}:${ACCOUNT}:${id}`;
    return `unresolved:${id}.Arn`;
  };
  const PSEUDO: Record<string, string> = {
    'AWS::Region': REGION,
    'AWS::AccountId': ACCOUNT,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    if ('Ref' in object) return PSEUDO[object.Ref as string] ?? String(object.Ref);
    if ('Fn::GetAtt' in object) {
      const [id, attribute] = object['Fn::GetAtt'] as [string, string];
      if (attribute === 'StreamArn' && resources[id]?.Type === 'AWS::DynamoDB::Table') {
        return `${arnOf(id)}/stream/2026-01-01T00:00:00.000`;
      }
      return attribute === 'Arn' ? arnOf(id) : `unresolved:${id}.${attribute}`;
    }
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => String(resolve(part))).join(separator);
    }
    return Object.fromEntries(Object.entries(object).map(([key, inner]) => [key, resolve(inner)]));
  };
  return resolve;
};

const roleIdOf = (role: unknown): string | undefined => (role as { 'Fn::GetAtt'?: [string] })['Fn::GetAtt']?.[0];

/** Every function's role policies in a template, found by the functions' logical ids. */
const rolesOfTemplate = (
  template: { Resources: Record<string, Resource> },
  functionIds: Record<string, string>,
  tableIds: Record<TableKind, string>,
): StackRoles => {
  const resources = template.Resources;
  const resolve = resolver(resources);
  const roleOf = (functionId: string): FunctionRole => {
    const roleId = roleIdOf(resources[functionId]?.Properties?.Role);
    if (!roleId) throw new Error(`function ${functionId} has no role of this stack`);
    const role = resources[roleId]?.Properties ?? {};
    if (role.ManagedPolicyArns) throw new Error(`role ${roleId} has managed policies, which this check cannot read`);
    const inline = ((role.Policies ?? []) as Array<{ PolicyName: string; PolicyDocument: unknown }>).map((p) => ({
      name: p.PolicyName,
      policy: resolve(p.PolicyDocument) as PolicyDocument,
    }));
    const attached = Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::IAM::Policy')
      .filter(([, resource]) =>
        ((resource.Properties?.Roles ?? []) as Array<{ Ref?: string }>).some((ref) => ref.Ref === roleId),
      )
      .map(([id, resource]) => ({ name: id, policy: resolve(resource.Properties?.PolicyDocument) as PolicyDocument }));
    return { roleArn: String(resolve({ 'Fn::GetAtt': [roleId, 'Arn'] })), policies: [...inline, ...attached] };
  };
  return {
    functions: Object.fromEntries(Object.entries(functionIds).map(([name, id]) => [name, roleOf(id)])),
    tables: {
      books: String(resolve({ 'Fn::GetAtt': [tableIds.books, 'Arn'] })),
      auth: String(resolve({ 'Fn::GetAtt': [tableIds.auth, 'Arn'] })),
    },
  };
};

/** The stack's variants the check covers by default: as deployed, and with the buffered list. */
const DEFAULT_STACK_PROPS: BookLibraryStackProps = {
  stage: 'dev',
  retainData: false,
  realm: 'books',
  publicReads: false,
  throttling: { rateLimit: 50, burstLimit: 100 },
};

/**
 * The roles the CDK synthesizes for the stack with these options (bundling skipped: the check
 * reads the policies, not the code).
 */
export const synthesizeRoles = (options: Partial<BookLibraryStackProps> = {}): StackRoles => {
  const outdir = mkdtempSync(join(tmpdir(), 'permissions-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new BookLibraryStack(app, 'Permissions', { ...DEFAULT_STACK_PROPS, ...options });
    const template = app.synth().getStackByName(stack.stackName).template;
    const idOf = (construct: { node: { defaultChild?: unknown } }) =>
      stack.getLogicalId(construct.node.defaultChild as CfnResource);
    const functionIds = Object.fromEntries(Object.entries(stack.functions).map(([name, fn]) => [name, idOf(fn)]));
    const tableIds = { books: idOf(stack.tables.books), auth: idOf(stack.tables.auth) };
    const events = stack.changeEvents;
    const { functions } = rolesOfTemplate(template, { ChangeEvents: idOf(events.function) }, tableIds);
    const arn = resolver(template.Resources);
    return {
      ...rolesOfTemplate(template, functionIds, tableIds),
      changeEvents: {
        role: functions.ChangeEvents as FunctionRole,
        stream: String(arn({ 'Fn::GetAtt': [tableIds.books, 'StreamArn'] })),
        bus: String(arn({ 'Fn::GetAtt': [idOf(events.bus), 'Arn'] })),
        deadLetters: String(arn({ 'Fn::GetAtt': [idOf(events.deadLetters), 'Arn'] })),
      },
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
