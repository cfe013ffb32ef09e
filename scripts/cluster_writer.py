#!/usr/bin/env python3
"""Writes and checks keys through a Redis-protocol endpoint, for scripts/ci-cluster.sh.

  cluster_writer.py write PORT PREFIX SECONDS OUT   SET PREFIX:i = v:i for i = 0, 1, ...
      one at a time, each waiting for its reply, for SECONDS; appends to OUT the index of
      every SET acknowledged with +OK. A failed SET (an error reply, or a connection the
      proxy closed) is not acknowledged: the writer reconnects and goes on.
  cluster_writer.py check PORT PREFIX ACKED TIMEOUT  reads every acknowledged key through
      PORT (MGET, 100 at a time) until all hold their values or TIMEOUT seconds pass;
      exits 1 naming the first lost or wrong key.

A minimal RESP2 client on a socket: no third-party package is needed.
"""

import socket
import sys
import time


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""

    def close(self):
        self.sock.close()

    def send(self, *words):
        out = [b"*%d\r\n" % len(words)]
        for w in words:
            w = w if isinstance(w, bytes) else str(w).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(w), w))
        self.sock.sendall(b"".join(out))

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2 :]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise ValueError("bad reply %r" % line)

    def call(self, *words):
        self.send(*words)
        return self.reply()


def write(port, prefix, seconds, out):
    deadline = time.monotonic() + seconds
    acked = failed = 0
    conn = None
    i = 0
    with open(out, "a") as f:
        while time.monotonic() < deadline:
            try:
                if conn is None:
                    conn = Conn(port)
                r = conn.call("SET", "%s:%d" % (prefix, i), "v:%d" % i)
                if r == "OK":
                    f.write("%d\n" % i)
                    acked += 1
                else:
                    failed += 1
            except (OSError, ConnectionError):
                failed += 1
                if conn is not None:
                    conn.close()
                conn = None
                time.sleep(0.01)
            i += 1
    print("writer: %d SETs acknowledged, %d failed" % (acked, failed))


def check(port, prefix, acked_file, timeout):
    with open(acked_file) as f:
        acked = [int(line) for line in f if line.strip()]
    deadline = time.monotonic() + timeout
    while True:
        problem = None
        try:
            conn = Conn(port)
            for start in range(0, len(acked), 100):
                part = acked[start : start + 100]
                got = conn.call("MGET", *["%s:%d" % (prefix, i) for i in part])
                if not isinstance(got, list):
                    problem = "MGET failed: %s" % got
                    break
                for i, v in zip(part, got):
                    if v != b"v:%d" % i:
                        problem = "%s:%d holds %r, acknowledged as v:%d" % (prefix, i, v, i)
                        break
                if problem:
                    break
            conn.close()
        except (OSError, ConnectionError) as e:
            problem = "connection: %s" % e
        if problem is None:
            print("check: all %d acknowledged SETs read back through the proxy" % len(acked))
            return
        if time.monotonic() > deadline:
            print("check: FAILED after %d s: %s" % (timeout, problem), file=sys.stderr)
            sys.exit(1)
        time.sleep(0.2)


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "write":
        write(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) == 6 and sys.argv[1] == "check":
        check(int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
