#!/usr/bin/env python3
"""Pictures a second that a kernelscope page streams: reads URL/stream.mjpg (the page's Motion-JPEG
stream, what a browser shows) for SECONDS and counts the JPEG parts; then prints the page's stage
timings (/state.json).

  scripts/page-fps.py URL [SECONDS]        URL as the program printed it (token included)
"""
import sys
import time
import urllib.parse
import urllib.request


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    url, seconds = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    parts = urllib.parse.urlsplit(url)
    stream = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/stream.mjpg", parts.query, ""))
    with urllib.request.urlopen(stream, timeout=10) as r:
        start, frames, buf = None, 0, b""
        while True:
            chunk = r.read1(65536)
            if not chunk:
                break
            buf += chunk
            while True:
                at = buf.find(b"\xff\xd9")  # end of a JPEG
                if at < 0:
                    break
                buf = buf[at + 2:]
                if start is None:
                    start = time.monotonic()  # count from the first picture
                else:
                    frames += 1
            if start is not None and time.monotonic() - start >= seconds:
                break
    if start is None:
        sys.exit("page-fps: no picture came from %s" % stream)
    fps = frames / (time.monotonic() - start)
    print("page-fps: %.1f pictures a second over %.1f s (%s)" % (fps, seconds, stream.split("?")[0]))
    # the page's stage panel as the program reports it (its own timings, e.g. v.stage("jacobi"))
    import json
    state = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/state.json", parts.query, ""))
    with urllib.request.urlopen(state, timeout=10) as r:
        stages = json.load(r).get("stages_ms", {})
    for name, figures in stages.items():
        print("page-fps: stage %s: %s" % (name, figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
