/**
 * Records every outgoing TCP connection attempt made in this process (the
 * service runs in the test's process): the address a socket actually tried,
 * after name resolution, from node:net's `connectionAttempt` event. The D35
 * tests use it to show that refused URLs were never connected to.
 */
import { Socket } from 'node:net';
import { IPv4, IPv6 } from 'ipaddr.js';

export interface ConnectionAttempt {
  readonly address: string;
  readonly port: number;
}

export interface ConnectionRecorder {
  readonly attempts: ConnectionAttempt[];
  /** Attempts to anything but loopback (127/8, ::1, and their IPv4-mapped forms). */
  nonLoopback(): ConnectionAttempt[];
  /** Attempts to this port. */
  toPort(port: number): ConnectionAttempt[];
  stop(): void;
}

export function isLoopback(address: string): boolean {
  if (IPv4.isValidFourPartDecimal(address)) return IPv4.parse(address).range() === 'loopback';
  if (!IPv6.isValid(address)) return false;
  const v6 = IPv6.parse(address);
  return (v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6).range() === 'loopback';
}

/** Starts recording; `stop()` puts node:net back as it was. */
export function recordConnectionAttempts(): ConnectionRecorder {
  const attempts: ConnectionAttempt[] = [];
  const recording = new WeakSet<Socket>();
  const original = Socket.prototype.connect;
  const patched = function (this: Socket, ...args: unknown[]) {
    if (!recording.has(this)) {
      recording.add(this);
      this.on('connectionAttempt', (address: string, port: number) => {
        attempts.push({ address, port });
      });
    }
    return (original as (...a: unknown[]) => Socket).apply(this, args);
  };
  Socket.prototype.connect = patched as typeof Socket.prototype.connect;
  return {
    attempts,
    nonLoopback: () => attempts.filter((attempt) => !isLoopback(attempt.address)),
    toPort: (port) => attempts.filter((attempt) => attempt.port === port),
    stop: () => {
      if (Socket.prototype.connect === patched) Socket.prototype.connect = original;
    },
  };
}
