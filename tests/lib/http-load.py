#!/usr/bin/python3
# Raw HTTP on loopback for tests/46-server-load.t: bounded in count and
# time, every socket to 127.0.0.1 only.
#
#   http-load.py PORT pipeline N [TAIL [who]]  N GETs in one write
#       (alternating /api/health and /api/runs), then TAIL (a Python bytes
#       literal); prints the statuses in order, one line, and whether each
#       answer's body matches its request ("inorder" or "outoforder");
#       with "who", then who sent the last answer and its body, as talk
#   http-load.py PORT hold N SECONDS      N connections held idle for
#       SECONDS, then closed; prints how many the server closed first
#   http-load.py PORT send LITERAL        one write of LITERAL (bytes),
#       prints the statuses of the answers and the last one's body
#   http-load.py PORT talk LITERAL...     a write of each LITERAL (bytes),
#       each after one more answer has come whole (an interim 100 counts);
#       prints the statuses of the answers, who sent the last ("gate":
#       kwarn's gate, whose answers carry no Date; "mhd": libmicrohttpd,
#       which dates every answer) and its body
import re
import socket
import sys
import time

port = int(sys.argv[1])
mode = sys.argv[2]


def read_all(s, until, limit):
    buf = b''
    end = time.time() + limit
    s.settimeout(1)
    while time.time() < end and not until(buf):
        try:
            d = s.recv(1 << 16)
        except socket.timeout:
            continue
        if not d:
            break
        buf += d
    return buf


def answered(buf, k):
    """True if BUF holds K whole answers: a head, Content-Length bytes."""
    pos = 0
    for _ in range(k):
        end = buf.find(b'\r\n\r\n', pos)
        if end < 0:
            return False
        m = re.search(rb'\r\ncontent-length: *(\d+)', buf[pos:end], re.I)
        pos = end + 4 + (int(m.group(1)) if m else 0)
        if pos > len(buf):
            return False
    return True


def last_answer(buf):
    """Who sent the last answer in BUF, and its body."""
    last = re.split(rb'(?=HTTP/1\.1 \d{3} )', buf)[-1]
    head, _, body = last.partition(b'\r\n\r\n')
    who = 'mhd' if re.search(rb'\r\ndate:', head, re.I) else 'gate'
    return who + ' ' + body.decode(errors='replace')


if mode == 'pipeline':
    n = int(sys.argv[3])
    tail = eval(sys.argv[4]) if len(sys.argv) > 4 else b''
    paths = ['/api/health', '/api/runs']
    reqs = b''.join(('GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n' %
                     paths[i % 2]).encode() for i in range(n))
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(reqs + tail)
    want = n + (1 if tail else 0)
    buf = read_all(s, lambda b: len(re.findall(rb'HTTP/1\.1 \d{3} ', b))
                   >= want and not tail, 30)
    parts = re.split(rb'HTTP/1\.1 (\d{3}) [^\r]*\r\n', buf)[1:]
    statuses = [p.decode() for p in parts[0::2]]
    order = 'inorder'
    for i, body in enumerate(parts[1::2][:n]):
        health = b'"status":"ok"' in body
        if health != (i % 2 == 0):
            order = 'outoforder'
    if len(sys.argv) > 5 and sys.argv[5] == 'who':
        print(len(statuses), order, ' '.join(statuses[-2:]),
              last_answer(buf))
    else:
        print(len(statuses), order, ' '.join(statuses[-2:]))
elif mode == 'hold':
    n, secs = int(sys.argv[3]), float(sys.argv[4])
    socks = []
    for _ in range(n):
        try:
            socks.append(socket.create_connection(('127.0.0.1', port), 2))
        except OSError:
            break
    time.sleep(secs)
    closed = 0
    for s in socks:
        s.setblocking(False)
        try:
            if s.recv(1 << 12) is not None:
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    print(len(socks), closed)
elif mode == 'send':
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(eval(sys.argv[3]))
    buf = read_all(s, lambda b: False, 5)
    parts = re.split(rb'HTTP/1\.1 (\d{3}) [^\r]*\r\n', buf)[1:]
    last = parts[-1].partition(b'\r\n\r\n')[2] if parts else b''
    print(' '.join(p.decode() for p in parts[0::2]),
          last.decode(errors='replace'))
elif mode == 'talk':
    s = socket.create_connection(('127.0.0.1', port))
    s.settimeout(1)
    buf = b''
    for i, lit in enumerate(sys.argv[3:]):
        end = time.time() + 10
        while i and not answered(buf, i) and time.time() < end:
            try:
                d = s.recv(1 << 16)
            except socket.timeout:
                continue
            if not d:
                break
            buf += d
        s.sendall(eval(lit))
    buf += read_all(s, lambda b: False, 5)
    parts = re.split(rb'HTTP/1\.1 (\d{3}) [^\r]*\r\n', buf)[1:]
    print(' '.join(p.decode() for p in parts[0::2]), last_answer(buf))
