// A scripted IDE for the mirror tests: Microsoft's own DAP client (`DebugClient` from
// @vscode/debugadapter-testsupport) driven by JSON commands, one per stdin line; one JSON
// answer per command on stdout. The Rust test plays the agent and this script the person.
//
// Commands ({"op": ...}):
//   connect {port}                      → {client}           a new DebugClient on 127.0.0.1:port
//   request {client, command, args}     → {ok, body?, message?, request_seq}
//   send_many {client, requests:[{command,args}]} → {responses:[...]} all sent at once, in order
//   event {client, name, timeout_ms}    → {event} or {timeout: true}  next unseen event of that name
//   events {client}                     → {events:[...]}     every event received so far
//   closed {client, timeout_ms}         → {closed: bool}     whether the socket closed
//   probe {port}                        → {refused: bool}    whether a TCP connect is refused
// Events are recorded from the moment the socket connects, so none is ever missed.
'use strict';
const path = require('path');
const net = require('net');
const readline = require('readline');
const { DebugClient } = require(path.join(process.argv[2], 'lib', 'main.js'));

const clients = [];

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

async function connect(port) {
  const dc = new DebugClient('node', 'unused', 'agentdap-mirror');
  const record = { dc, events: [], seen: new Set(), closed: false, waiters: [] };
  const emit = dc.emit.bind(dc);
  dc.emit = (name, ...args) => {
    const ev = args[0];
    if (ev && ev.type === 'event') {
      record.events.push(ev);
      record.waiters.forEach((w) => w());
    }
    return emit(name, ...args);
  };
  await dc.start(port);
  dc._socket.on('close', () => {
    record.closed = true;
    record.waiters.forEach((w) => w());
  });
  dc._socket.on('error', () => {});
  clients.push(record);
  return clients.length - 1;
}

function waitFor(record, cond, timeoutMs) {
  return new Promise((resolve) => {
    const check = () => {
      const v = cond();
      if (v !== undefined) {
        done(v);
      }
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const done = (v) => {
      clearTimeout(timer);
      record.waiters = record.waiters.filter((w) => w !== check);
      resolve(v);
    };
    record.waiters.push(check);
    check();
  });
}

function request(record, command, args) {
  // DebugClient rejects a failed request with Error(message); keep the raw response instead.
  return new Promise((resolve) => {
    record.dc.doSend(command, args, (r) => resolve(r));
  });
}

async function handle(cmd) {
  const record = clients[cmd.client];
  switch (cmd.op) {
    case 'connect':
      return { client: await connect(cmd.port) };
    case 'request': {
      const r = await request(record, cmd.command, cmd.args || {});
      return { ok: r.success, body: r.body, message: r.message, request_seq: r.request_seq, seq: r.seq };
    }
    case 'send_many': {
      const all = cmd.requests.map((q) => request(record, q.command, q.args || {}));
      const rs = await Promise.all(all);
      return { responses: rs.map((r) => ({ ok: r.success, body: r.body, message: r.message, request_seq: r.request_seq, command: r.command })) };
    }
    case 'event': {
      const ev = await waitFor(record, () => {
        const i = record.events.findIndex((e, i) => e.event === cmd.name && !record.seen.has(i));
        if (i >= 0) {
          record.seen.add(i);
          return record.events[i];
        }
        return undefined;
      }, cmd.timeout_ms || 10000);
      return ev === undefined ? { timeout: true } : { event: ev };
    }
    case 'events':
      return { events: record.events };
    case 'closed': {
      const c = await waitFor(record, () => (record.closed ? true : undefined), cmd.timeout_ms || 10000);
      return { closed: c === true };
    }
    case 'probe':
      return new Promise((resolve) => {
        const s = net.createConnection(cmd.port, '127.0.0.1');
        s.on('connect', () => { s.destroy(); resolve({ refused: false }); });
        s.on('error', (e) => resolve({ refused: e.code === 'ECONNREFUSED', code: e.code }));
      });
    default:
      return { error: `unknown op ${cmd.op}` };
  }
}

const rl = readline.createInterface({ input: process.stdin });
let chain = Promise.resolve();
rl.on('line', (line) => {
  if (!line.trim()) return;
  chain = chain.then(async () => {
    try {
      out(await handle(JSON.parse(line)));
    } catch (e) {
      out({ error: String(e && e.stack || e) });
    }
  });
});
rl.on('close', () => {
  chain.then(() => process.exit(0));
});
