"""A live stream read through Flask's test client, an event at a time."""

from __future__ import annotations


class Stream:
    """An open stream, read an event at a time."""

    def __init__(self, client, url, headers=None, **options):
        headers = headers or {"Accept-Language": "en"}
        self.response = client.get(url, buffered=False, headers=headers, **options)
        assert self.response.mimetype == "text/event-stream"
        self.chunks = iter(self.response.response)
        self.pending = ""

    def events(self, until):
        """(name, data) of each event until one named ``until`` (that one included)."""
        got = []
        while True:
            while "\n\n" not in self.pending:
                chunk = next(self.chunks)
                self.pending += chunk.decode() if isinstance(chunk, bytes) else chunk
            block, self.pending = self.pending.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
            if "event" in fields:
                got.append((fields["event"], fields.get("data", "")))
                if fields["event"] == until:
                    return got

    def close(self):
        self.response.close()


def url(night, screen: str, version: int) -> str:
    return f"/t/{night.code}/stream?screen={screen}&v={version}"
