#!/usr/bin/env python3
"""A WebSocket viewer that asks for H.264 (as a page with WebCodecs does) and
checks the first video message: kind 2, the key-frame flag, and an Annex B
access unit holding SPS, PPS and an IDR slice. Plain sockets, no modules.
Usage: ws_h264.py PORT [QUERY]; exit 0 when seen. No deadline: it waits as long
as the server keeps the connection open (the calling test's ctest TIMEOUT is the limit)."""
import os, socket, struct, sys

port, query = int(sys.argv[1]), (sys.argv[2] if len(sys.argv) > 2 else "")
s = socket.create_connection(("127.0.0.1", port))
s.sendall(("GET /ws%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % (query, port)).encode())
buf = b""
while b"\r\n\r\n" not in buf:
    buf += s.recv(4096)
head, buf = buf.split(b"\r\n\r\n", 1)
if b" 101 " not in head.split(b"\r\n")[0]:
    sys.exit("no upgrade: %r" % head[:60])

def send_text(text):
    payload, mask = text.encode(), os.urandom(4)
    s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

def read(n):
    global buf
    while len(buf) < n:
        chunk = s.recv(1 << 20)
        if not chunk:
            sys.exit("connection closed")
        buf += chunk
    out, buf = buf[:n], buf[n:]
    return out

def frame():
    b0, b1 = read(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", read(2))[0]
    elif n == 127:
        n = struct.unpack(">Q", read(8))[0]
    return b0 & 0x0F, read(n)

send_text('{"accept":"h264"}')
jpegs = 0
while True:
    op, data = frame()
    if op != 2 or len(data) < 12:
        continue
    kind, flags = data[0], data[1]
    w, h = struct.unpack("<II", data[4:12])
    if kind == 1:
        jpegs += 1
        continue
    au = data[12:]
    nals, i = set(), 0
    while True:
        i = au.find(b"\x00\x00\x01", i)
        if i < 0:
            break
        if i + 3 < len(au):
            nals.add(au[i + 3] & 0x1F)
        i += 3
    ok = kind == 2 and (flags & 1) and (au.startswith(b"\x00\x00\x00\x01") or au.startswith(b"\x00\x00\x01"))
    if ok and {7, 8, 5} <= nals:
        print("h264 key frame %dx%d, %d bytes, NAL types %s (after %d JPEG messages)" % (w, h, len(au), sorted(nals), jpegs))
        sys.exit(0)
    sys.exit("bad first H.264 message: kind %d flags %d NAL types %s starts %r" % (kind, flags, sorted(nals), au[:6]))
