import { Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, inject, it } from 'vitest';

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((done) => {
    const socket = new Socket();
    socket.setTimeout(2_000, () => {
      socket.destroy();
      done(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.connect(port, host);
  });

/** This machine's own addresses other than loopback: where anyone on the network would reach it. */
const externalAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((address) => address !== undefined && !address.internal && address.family === 'IPv4')
    .map((address) => address?.address as string);

describe('DynamoDB Local as the project starts it', () => {
  const port = Number(new URL(inject('dynamoEndpoint')).port);

  it('accepts connections on 127.0.0.1', async () => {
    expect(await accepts('127.0.0.1', port)).toBe(true);
  });

  it.runIf(externalAddresses().length > 0)('refuses them on every other interface of this machine', async () => {
    for (const address of externalAddresses()) expect(await accepts(address, port), address).toBe(false);
  });
});
