// Preloaded (`node --import`) into an MCP server under test whose HTTP entry listens on every
// interface at $PORT: binds it to 127.0.0.1 instead, and prints the port it got (PORT=0
// picks a free one) as `loopback-listen: <port>` on stderr, so the test needs no free-port
// guess and nothing listens beyond this machine.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const callback = args.find((arg) => typeof arg === 'function');
    this.once('listening', () => process.stderr.write(`loopback-listen: ${this.address().port}\n`));
    return callback ? listen.call(this, port, '127.0.0.1', callback) : listen.call(this, port, '127.0.0.1');
  }
  return listen.apply(this, args);
};
