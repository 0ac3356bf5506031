"""The lines a running kernelscope writes on stderr, read as they come, for the scripts that
drive a live run (kernel-reload.py, kernel-edit.py): wait_for(pattern) gives the first line
matching it, or calls on_silence(reason) when the run ends or says nothing for timeout seconds."""
import os
import re
import select
import time


class StderrLines:
    def __init__(self, proc, timeout, on_silence):
        self.proc, self.timeout, self.on_silence = proc, timeout, on_silence
        self.lines = []     # every complete line so far
        self.pending = ""   # the start of the next one

    def wait_for(self, pattern, seen=False):
        """The first line matching pattern from now on (seen: among those read already too)."""
        if seen:
            for line in self.lines:
                m = re.search(pattern, line)
                if m:
                    return m
        end = time.time() + self.timeout
        while True:
            while "\n" in self.pending:
                line, self.pending = self.pending.split("\n", 1)
                self.lines.append(line)
                m = re.search(pattern, line)
                if m:
                    return m
            left = end - time.time()
            ready = select.select([self.proc.stderr], [], [], max(left, 0))[0] if left > 0 else []
            chunk = os.read(self.proc.stderr.fileno(), 65536).decode(errors="replace") if ready else ""
            if not chunk:
                self.on_silence("no line matching %r (%s)" % (
                    pattern, "no answer in %.0f s" % self.timeout if not ready else "the run ended"))
                raise SystemExit(1)  # on_silence does not come back; this is its guard
            self.pending += chunk

    def all_said(self):
        """The complete lines and the unfinished last one."""
        return self.lines + self.pending.splitlines()

    def finish(self, rest):
        """After the run ended: what it said last (rest: the remaining bytes of stderr)."""
        self.lines += (self.pending + rest).splitlines()
        self.pending = ""
